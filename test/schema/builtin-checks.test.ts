// The generated checks of the built-in tools' inputs and of the config file (src/schema/
// builtin-checks.ts and generated-check.ts, ajv's standalone code made by scripts/gen-schemas.ts): one for every built-in
// tool, found by the schema the catalog hands the pipeline, and the same verdict as the
// hand-written check and as arktype's declaration on the arguments callers send, the config files
// people write, and the mistakes they make.
import { describe, expect, test } from "bun:test";
import { type } from "arktype";
import { builtinSources } from "../../src/catalog/builtin.ts";
import { configType } from "../../src/config/schema.ts";
import { configSchema, toolSchemas } from "../../src/generated/schemas.ts";
import { validate as configCheck } from "../../src/generated/config-check.js";
import { generatedValidator } from "../../src/schema/builtin-checks.ts";
import { validatorOf } from "../../src/schema/generated-check.ts";
import { compileSchema } from "../../src/schema/validate.ts";
import { builtinTools } from "../../src/tools/index.ts";
import { railTools } from "../../src/tools/rails/index.ts";
import { mostTools } from "../../src/tools/most/index.ts";
import { delegationTools } from "../../src/tools/delegate/index.ts";
import { CASES, CONFIGS } from "../../scripts/bench-validate.ts";

const configValidator = validatorOf(configCheck);
const decls = [
  ...builtinTools,
  ...railTools,
  ...mostTools,
  ...delegationTools({ delegation: { command: [], worktree_root: "" } }),
];

describe("generated checks of the built-ins' inputs", () => {
  test("every built-in tool's source carries a schema with a generated check; another schema, even an equal copy, has none", () => {
    const sources = builtinSources(decls);
    expect(sources.length).toBe(Object.keys(toolSchemas).length);
    for (const s of sources) expect(generatedValidator(s.inputSchema)).toBeFunction();
    expect(generatedValidator(structuredClone(toolSchemas.file_read))).toBeUndefined();
    expect(generatedValidator({ type: "object" })).toBeUndefined();
  });

  test("the same verdict as the hand-written check and arktype on valid and invalid arguments, the arguments handed on untouched", () => {
    expect(CASES.some(([, , valid]) => !valid)).toBe(true);
    for (const [tool, args, valid] of CASES) {
      const schema = toolSchemas[tool]!;
      const r = generatedValidator(schema)!(args);
      expect({ tool, args, ok: r.ok }).toEqual({ tool, args, ok: valid });
      expect(compileSchema(schema)(args).ok).toBe(valid);
      const ark = decls.find((d) => d.name === tool)!.input(type);
      expect(ark(args) instanceof type.errors).toBe(!valid);
      if (r.ok) expect(r.value).toBe(args);
      else expect(r.issues.length).toBeGreaterThan(0);
    }
  });

  test("what the pipeline reports when arktype does not word a refusal: the path and the problem", () => {
    const check = generatedValidator(toolSchemas.file_read)!;
    expect(check({ path: "a", pth: "b" })).toEqual({
      ok: false,
      issues: [{ path: ["pth"], message: "must be removed" }],
    });
    expect(check({ path: 3 })).toEqual({
      ok: false,
      issues: [{ path: ["path"], message: "must be a string (was number)" }],
    });
    const plan = generatedValidator(toolSchemas.plan)!;
    expect(
      plan({
        steps: [
          { status: "done", title: "a" },
          { status: "done", title: ["x"] },
        ],
      }),
    ).toEqual({ ok: false, issues: [{ path: ["steps", 1, "title"], message: "must be a string (was array)" }] });
    expect(check({})).toEqual({ ok: false, issues: [{ path: ["path"], message: "must be present" }] });
  });

  test("the config file: the same verdict as the hand-written check and arktype; the issue names the key", () => {
    expect(CONFIGS.some(([, valid]) => !valid)).toBe(true);
    for (const [config, valid] of CONFIGS) {
      expect({ config, ok: configValidator(structuredClone(config)).ok }).toEqual({ config, ok: valid });
      expect(compileSchema(configSchema)(config).ok).toBe(valid);
      expect(configType(type)(config) instanceof type.errors).toBe(!valid);
    }
    expect(configValidator({ permisions: {} })).toEqual({
      ok: false,
      issues: [{ path: ["permisions"], message: "must be removed" }],
    });
  });

  test("the config file: the same values (defaults filled) and verdicts as the hand-written check on the config's own schema", () => {
    const samples: Record<string, unknown>[] = [
      {},
      { mcpServers: { a: { command: "node", args: ["x.js"] } } },
      { permissions: { allow: { read: ["src"] }, deny: { run: true } }, approval: { bash: "never" } },
      { las: { enabled: true, shutdown_grace_secs: 3 }, sandbox: "off" },
      { mcpServers: { a: { command: 1 } }, permissions: { allow: { read: "src" } }, nope: true },
      { profiles: { p: { tools: ["file_read"] } }, rails: { require: true } },
    ];
    const hand = compileSchema(configSchema);
    for (const sample of samples) {
      const [ours, theirs] = [configValidator(structuredClone(sample)), hand(structuredClone(sample))];
      expect(ours.ok).toBe(theirs.ok);
      if (ours.ok && theirs.ok) expect(ours.value).toEqual(theirs.value);
    }
  });
});
