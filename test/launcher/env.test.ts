import { describe, expect, test } from "bun:test";
import { MIN_SECRET_LENGTH } from "../../src/boundary/redact.ts";
import {
  BASE_ENV,
  childEnv,
  isExecutionControl,
  PASS_GROUPS,
  redactProxyUrl,
  SECRET_MIN_LENGTH,
} from "../../src/launcher/env.ts";
import { tempDir } from "../helpers.ts";
import { env, launcherWith } from "./support.ts";

/** A parent environment full of things a child must never inherit by default. */
const PARENT = {
  AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  NODE_OPTIONS: "--require /tmp/evil.js",
  LD_PRELOAD: "/tmp/evil.so",
  HOME: "/home/someone",
  PATH: "/home/someone/bin:/usr/bin",
  TERM: "xterm",
  KEEP_ME: "kept",
  HTTP_PROXY: "http://alice:s3cr3t-pw@proxy.invalid:3128",
  https_proxy: "http://proxy.invalid:3128",
  NO_PROXY: "localhost,127.0.0.1",
  SSL_CERT_FILE: "/etc/ssl/certs/ca.pem",
};

/** Runs /usr/bin/env -0 through the launcher and parses what the child saw. */
async function envSeenByChild(built: ReturnType<typeof env>): Promise<{ vars: Record<string, string>; tail: string }> {
  await using dir = tempDir();
  const r = await launcherWith().launch({
    argv: ["/usr/bin/env", "-0"],
    env: built,
    cwd: dir.path,
    deadlineMs: 10_000,
    artifactsDir: `${dir.path}/artifacts`,
  });
  if (!r.ok) throw new Error(r.refusal.message);
  expect(r.value).toMatchObject({ ended: "exited", code: 0 });
  const tail = r.value.stdout.tail;
  const vars = Object.fromEntries(
    tail
      .split("\0")
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );
  return { vars, tail };
}

describe("childEnv", () => {
  test("the child's environment is exactly the base, the allowlist, values and secrets", async () => {
    const built = env({
      parent: PARENT,
      allow: ["KEEP_ME", "ABSENT"],
      values: { LAS_ONLY: "echo,lem" },
      secrets: { API_TOKEN: "tok-123456" },
    });
    const { vars } = await envSeenByChild(built);
    expect(vars).toEqual({ ...BASE_ENV, KEEP_ME: "kept", LAS_ONLY: "echo,lem", API_TOKEN: "[REDACTED]" });
    expect(built.vars).toEqual({ ...BASE_ENV, KEEP_ME: "kept", LAS_ONLY: "echo,lem", API_TOKEN: "tok-123456" });
    expect(built.secrets).toEqual(["tok-123456"]);
  });

  test("with nothing opted in, the child gets the base alone", async () => {
    expect((await envSeenByChild(env({ parent: PARENT }))).vars).toEqual({ ...BASE_ENV });
  });

  test("the proxy group passes its variables; a proxy password is redacted from the child's output", async () => {
    const built = env({ parent: PARENT, groups: ["proxy"] });
    expect(built.vars).toEqual({
      ...BASE_ENV,
      HTTP_PROXY: PARENT.HTTP_PROXY,
      https_proxy: PARENT.https_proxy,
      NO_PROXY: PARENT.NO_PROXY,
      SSL_CERT_FILE: PARENT.SSL_CERT_FILE,
    });
    expect([...built.secrets].sort()).toEqual(["alice:s3cr3t-pw", "s3cr3t-pw"]);
    const { vars, tail } = await envSeenByChild(built);
    expect(vars.HTTP_PROXY).toBe("http://[REDACTED]@proxy.invalid:3128");
    expect(tail).not.toContain("s3cr3t-pw");
  });

  test("the proxy group lists the proxy variables in both cases and the CA files", () => {
    expect([...PASS_GROUPS.proxy].sort()).toEqual([
      "HTTPS_PROXY",
      "HTTP_PROXY",
      "NODE_EXTRA_CA_CERTS",
      "NO_PROXY",
      "SSL_CERT_FILE",
      "http_proxy",
      "https_proxy",
      "no_proxy",
    ]);
  });

  test("the allowlist and a group may name the same variable", () => {
    const built = env({ parent: PARENT, allow: ["NO_PROXY"], groups: ["proxy"] });
    expect(built.vars.NO_PROXY).toBe(PARENT.NO_PROXY);
  });

  test.each([
    ["an execution-control name in the allowlist", { allow: ["LD_PRELOAD"] }, "env.execution_control"],
    ["NODE_OPTIONS as a value", { values: { NODE_OPTIONS: "--inspect" } }, "env.execution_control"],
    ["a DYLD_ secret binding", { secrets: { DYLD_INSERT_LIBRARIES: "/tmp/x.dylib" } }, "env.execution_control"],
    ["a BASH_FUNC_ export", { values: { "BASH_FUNC_ls%%": "() { :; }" } }, "env.invalid_name"],
    ["PATH from the parent", { allow: ["PATH"] }, "env.reserved"],
    ["LC_ALL as a value", { values: { LC_ALL: "C" } }, "env.reserved"],
    ["a name with =", { values: { "A=B": "x" } }, "env.invalid_name"],
    ["an empty name", { allow: [""] }, "env.invalid_name"],
    [
      "a name given as value and secret",
      { values: { TOKEN: "plain" }, secrets: { TOKEN: "secret-value" } },
      "env.conflict",
    ],
    [
      "an allowlisted name also bound as a secret",
      { allow: ["KEEP_ME"], secrets: { KEEP_ME: "secret-value" } },
      "env.conflict",
    ],
    ["a secret too short to redact", { secrets: { PIN: "123" } }, "env.secret_too_short"],
    ["a value with NUL", { values: { X: "a\0b" } }, "env.invalid_value"],
    ["an unknown group", { groups: ["nope" as "proxy"] }, "env.unknown_group"],
  ] as const)("refuses %s", (_name, input, code) => {
    const r = childEnv({ parent: PARENT, ...input });
    expect(r.ok ? null : r.refusal.code).toBe(code);
  });

  test("a server's own PATH replaces the fixed one, the command's folder before it; only absolute folders", () => {
    expect(env({ parent: PARENT, path: "/opt/helpers/bin:/usr/bin" }).vars.PATH).toBe("/opt/helpers/bin:/usr/bin");
    expect(env({ parent: PARENT, path: "/opt/helpers/bin", pathPrefix: "/home/u/.bun/bin" }).vars.PATH).toBe(
      "/home/u/.bun/bin:/opt/helpers/bin",
    );
    for (const bad of ["bin:/usr/bin", "/usr/bin:", "/usr/bin::/bin", ""]) {
      const r = childEnv({ parent: PARENT, path: bad });
      expect(r.ok ? null : r.refusal.code).toBe("env.invalid_value");
    }
  });

  test("reads only the parent it is given", () => {
    expect(env({ parent: {}, allow: ["HOME", "PATH_EXTRA"] }).vars).toEqual({ ...BASE_ENV });
  });

  test("refuses secrets the boundary's redactor would skip", () => {
    expect(SECRET_MIN_LENGTH).toBe(MIN_SECRET_LENGTH);
  });
});

describe("redactProxyUrl", () => {
  test.each([
    ["http://user:pass@host.invalid:8080", "http://***@host.invalid:8080"],
    ["https://user@host.invalid/path?q=a@b", "https://***@host.invalid/path?q=a@b"],
    ["http://us%40er:p%3Ass@host.invalid", "http://***@host.invalid"],
    ["user:pass@host.invalid:3128", "***@host.invalid:3128"],
    ["http://host.invalid:3128", "http://host.invalid:3128"],
    ["http://host.invalid/a@b", "http://host.invalid/a@b"],
    ["localhost,127.0.0.1", "localhost,127.0.0.1"],
  ])("%s → %s", (url, shown) => {
    expect(redactProxyUrl(url)).toBe(shown);
  });
});

describe("names that change what a child runs before its own code", () => {
  // Module paths, interpreter options, git's config/repository/pager and the
  // programs other programs start by name were accepted as env values and needs.env names.
  test.each([
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONWARNINGS",
    "PYTHONSTARTUP",
    "NODE_PATH",
    "NODE_OPTIONS",
    "RUBYLIB",
    "RUBYOPT",
    "PERL5LIB",
    "PERL5OPT",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_KEY_0",
    "GIT_CONFIG_VALUE_12",
    "GIT_CONFIG_PARAMETERS",
    "GIT_DIR",
    "GIT_EXEC_PATH",
    "PAGER",
    "GIT_PAGER",
    "EDITOR",
    "VISUAL",
    "LESSOPEN",
    "BASH_ENV",
    "ENV",
    "LD_PRELOAD",
    "BUN_OPTIONS",
    // Bun's runtime switches: the guardian that runs an unsandboxed command is toolgate (bun-switches.ts)
    "BUN_INSPECT",
    "BUN_INSPECT_PRELOAD",
    "BUN_BE_BUN",
    "BUN_BYTECODE_ORDER_OUT",
    "BUN_JSC_useJIT",
    "NODE_REDIRECT_WARNINGS",
  ])("%s is refused as a value, a secret and an allowlist entry", (name) => {
    expect(isExecutionControl(name)).toBe(true);
    for (const input of [{ values: { [name]: "x" } }, { secrets: { [name]: "secret-value" } }, { allow: [name] }]) {
      const r = childEnv({ parent: { [name]: "x" }, ...input });
      expect(r.ok ? null : r.refusal.code).toBe("env.execution_control");
    }
  });

  test.each([
    "PYTHONUNBUFFERED",
    "NODE_ENV",
    "GIT_AUTHOR_NAME",
    "EDITOR_THEME",
    "TOKEN",
    "BUN_INSTALL",
    "BUN_CONFIG_REGISTRY",
  ])("%s stays allowed", (name) => {
    expect(isExecutionControl(name)).toBe(false);
  });
});
