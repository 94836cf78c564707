import { describe, expect, test } from "bun:test";
import { checkListedTools } from "../../src/servers/declared.ts";
import type { RemoteSpec } from "../../src/servers/specs.ts";
import { TOOLS } from "../fixtures/mcp/declares.ts";

const spec = (over: Partial<RemoteSpec> = {}): RemoteSpec =>
  ({
    name: "desc",
    origin: "mcp:desc",
    kind: "mcp",
    required: false,
    network: false,
    pin: false,
    needs: [],
    transport: { kind: "stdio", argv: ["server"], cwd: "/", values: {}, secrets: {} },
    timeoutMs: 1_000,
    connectTimeoutMs: 1_000,
    graceMs: 0,
    ...over,
  }) as RemoteSpec;

/** The fixture's listing as a session reads it: name, description and input schema, the rest as extra. */
const listed = TOOLS.map(({ name, description, inputSchema, ...extra }) => ({
  name,
  description,
  inputSchema,
  ...(Object.keys(extra).length > 0 ? { extra } : {}),
}));

describe("checkListedTools", () => {
  test("keeps the clean tool and withholds each hostile one, in listing order, with its catalog name, rule and place", () => {
    const { kept, withheld } = checkListedTools(spec(), listed);
    expect(kept).toEqual([listed[0]!]);
    expect(withheld).toEqual([
      { tool: "pem_doc", position: 2, name: "desc__pem_doc", rule: "pem", where: "$.description" },
      {
        tool: "secret_default",
        position: 3,
        name: "desc__secret_default",
        rule: "secret_key",
        where: "$.inputSchema.properties.password",
      },
      { tool: "meta_key", position: 4, name: "desc__meta_key", rule: "secret_key", where: "$._meta.api_key" },
      {
        tool: "shadow_title",
        position: 5,
        name: "desc__shadow_title",
        rule: "local_path",
        where: "$.annotations.title",
      },
    ]);
  });

  test("the server's --allow-local-paths lets the path through, nothing else", () => {
    const { kept, withheld } = checkListedTools(spec({ localPathsOff: "--allow-local-paths=desc" }), listed);
    expect([kept.map((t) => t.name), withheld.map((w) => w.tool)]).toEqual([
      ["clean", "shadow_title"],
      ["pem_doc", "secret_default", "meta_key"],
    ]);
  });

  test("with `only` (the tool a call runs), that tool alone is checked; the rest are kept unchecked", () => {
    const { kept, withheld } = checkListedTools(spec(), listed, "desc__meta_key");
    expect([kept.map((t) => t.name), withheld]).toEqual([
      ["clean", "pem_doc", "secret_default", "shadow_title"],
      [{ tool: "meta_key", position: 4, name: "desc__meta_key", rule: "secret_key", where: "$._meta.api_key" }],
    ]);
    expect(checkListedTools(spec(), listed, "desc__clean")).toEqual({ kept: listed, withheld: [] });
  });

  test("a tool whose name is what broke the rule is named by its place only", () => {
    const { withheld } = checkListedTools(spec(), [
      { name: "/etc/shadow", description: "", inputSchema: { type: "object" } },
    ]);
    expect(withheld).toHaveLength(1);
    expect(withheld[0]).not.toHaveProperty("tool");
    expect([withheld[0]!.position, withheld[0]!.rule, withheld[0]!.where, withheld[0]!.name.includes("/")]).toEqual([
      1,
      "local_path",
      "$.name",
      false,
    ]);
  });

  test("Las's tools are checked too, under their own names", () => {
    const las = spec({ name: "las", origin: "las", kind: "las" });
    expect(
      checkListedTools(las, [{ name: "echo__echo", description: "-----BEGIN RSA PRIVATE KEY-----", inputSchema: {} }])
        .withheld,
    ).toEqual([{ tool: "echo__echo", position: 1, name: "echo__echo", rule: "pem", where: "$.description" }]);
  });
});
