// Real MCP clients nobody here wrote, driving dist/toolgate serve over stdio: the MCP Inspector's
// CLI mode and mcporter (run under Bun, as their package.json files ask for a newer Node than 20;
// both also ran on Node 20.20 by hand, see docs/mcp.md). The client configs
// in docs/mcp.md (Claude Code, Cursor, VS Code, Codex) are read from that page and loaded by a
// client that imports that very file, so the docs cannot show a shape nobody ran.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, ROOT, run, tempDir } from "../helpers.ts";

const INSPECTOR = join(
  ROOT,
  "node_modules",
  "@modelcontextprotocol",
  "inspector",
  "clients",
  "launcher",
  "build",
  "index.js",
);
const MCPORTER = join(ROOT, "node_modules", "mcporter", "dist", "cli.js");
const SCOUT = ["desk", "file_find", "file_read", "file_search", "plan", "skill_list", "skill_load"];

interface Site {
  readonly ws: string;
  readonly home: string;
  /** Holds `toolgate` (a link to dist/toolgate), first on PATH, as an installed toolgate would be. */
  readonly bin: string;
}

/** A workspace with a file, a HOME beside it (never inside) and a bin folder. */
function site(root: string): Site {
  const s = { ws: join(root, "ws"), home: join(root, "home"), bin: join(root, "bin") };
  for (const d of Object.values(s)) mkdirSync(d);
  writeFileSync(join(s.ws, "a.txt"), "alpha\n");
  symlinkSync(BIN, join(s.bin, "toolgate"));
  return s;
}

/** Runs a client's CLI under Bun with HOME and every XDG folder in the temporary site. */
async function client(
  script: string,
  args: readonly string[],
  s: Site,
  o: { cwd?: string; env?: Record<string, string> } = {},
) {
  const proc = Bun.spawn([process.execPath, script, ...args], {
    cwd: o.cwd ?? s.ws,
    env: {
      PATH: `${s.bin}:/usr/bin:/bin`,
      HOME: s.home,
      XDG_STATE_HOME: join(s.home, "state"),
      XDG_CONFIG_HOME: join(s.home, "config"),
      XDG_CACHE_HOME: join(s.home, "cache"),
      XDG_DATA_HOME: join(s.home, "data"),
      // No keychain here: the Inspector keeps secrets in memory instead of warning about it.
      MCP_INSPECTOR_SECRET_STORE: "memory",
      NO_COLOR: "1",
      ...o.env,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

const inspector = (args: readonly string[], s: Site, o?: { cwd?: string }) =>
  client(INSPECTOR, ["--cli", "--format", "json", ...args], s, o);
/** -q: the result on stdout, the Inspector's error envelope alone on stderr (the server's stderr is not passed through). */
const inspectorQuiet = (args: readonly string[], s: Site) => inspector(["-q", ...args], s);
const mcporter = (args: readonly string[], s: Site, o?: { cwd?: string; env?: Record<string, string> }) =>
  client(MCPORTER, args, s, o);

const finished = async (ws: string, home: string) =>
  (await run(["log", "--json"], { cwd: ws, env: { HOME: home } })).stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((r) => r.event === "tool_finished")
    .map((r) => [r.tool, r.status, r.error_code]);

const payload = () => ({
  path: "a.txt",
  totalLines: 1,
  offset: 1,
  lineCount: 1,
  content: "1\talpha",
  clippedLines: 0,
  truncated: false,
  digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
});

describe("the MCP Inspector's CLI mode", () => {
  test("tools/list: the catalog as `toolgate tools` shows it, and --strict finds no schema a client could not use", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const r = await inspector(["--strict", BIN, "serve", "--method", "tools/list"], s);
    // The Inspector passes the server's stderr through (toolgate's lines); it adds nothing of its own.
    const reported = r.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("toolgate: "));
    expect({ code: r.code, reported }).toEqual({ code: 0, reported: [] });
    const { tools } = JSON.parse(r.stdout).result;
    const listed = (await run(["tools", "--json"], { cwd: s.ws, env: { HOME: s.home } })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(tools.map((t: { name: string }) => t.name)).toEqual(listed.map((d) => d.name));
    const full = JSON.parse((await run(["tools", "file_read", "--json"], { cwd: s.ws, env: { HOME: s.home } })).stdout);
    expect(tools.find((t: { name: string }) => t.name === "file_read")).toEqual({
      name: "file_read",
      description: full.description,
      inputSchema: full.inputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
      _meta: {
        toolgate: {
          name: "file_read",
          origin: "builtin",
          effect: "read",
          approval: "required",
          digest: full.digest.slice(0, 12),
        },
      },
    });
  });

  test("tools/call file_read: a real read, as text and structuredContent, journaled", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const r = await inspectorQuiet(
      [
        BIN,
        "serve",
        "--allow-read",
        "--approve",
        "file_read",
        "--method",
        "tools/call",
        "--tool-name",
        "file_read",
        "--tool-arg",
        "path=a.txt",
      ],
      s,
    );
    expect(r.code).toBe(0);
    const { result } = JSON.parse(r.stdout);
    expect(result).toEqual({
      _meta: { toolgate: { status: "success" } },
      content: [{ type: "text", text: expect.any(String) }],
      structuredContent: payload(),
    });
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    expect(await finished(s.ws, s.home)).toEqual([["file_read", "success", null]]);
  });

  test.each([
    ["outside the workspace", ["--allow-read", "--approve", "file_read"], "../../etc/passwd", "path.outside_workspace"],
    ["not approved (the Inspector declares no elicitation)", ["--allow-read"], "a.txt", "approval.required"],
  ])("tools/call refused %s: isError with the envelope and its code, exit 5", async (_, flags, path, code) => {
    await using root = tempDir();
    const s = site(root.path);
    const r = await inspectorQuiet(
      [BIN, "serve", ...flags, "--method", "tools/call", "--tool-name", "file_read", "--tool-arg", `path=${path}`],
      s,
    );
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { code: "tool_is_error", message: "Tool 'file_read' returned isError:true." },
    });
    const { result } = JSON.parse(r.stdout);
    expect(result).toEqual({
      _meta: { toolgate: { status: "failed", error_code: code } },
      content: [{ type: "text", text: expect.any(String) }],
      isError: true,
    });
    expect(JSON.parse(result.content[0].text)).toMatchObject({ status: "failed", tool: "file_read", error_code: code });
    expect(await finished(s.ws, s.home)).toEqual([["file_read", "failed", code]]);
  });
});

describe("mcporter with an ad-hoc stdio server", () => {
  const adhoc = (flags: string) => ["--stdio", `toolgate serve ${flags}`];

  test("list: every tool with its input schema", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const r = await mcporter(["list", ...adhoc("--allow-read"), "--json"], s);
    expect(r.code).toBe(0);
    const listed = JSON.parse(r.stdout);
    expect(listed).toMatchObject({ mode: "server", status: "ok", transport: "STDIO toolgate serve --allow-read" });
    const cat = (await run(["tools", "--json"], { cwd: s.ws, env: { HOME: s.home } })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(listed.tools.map((t: { name: string }) => t.name).sort()).toEqual(cat.map((d) => d.name).sort());
    const full = JSON.parse((await run(["tools", "file_read", "--json"], { cwd: s.ws, env: { HOME: s.home } })).stdout);
    expect(listed.tools.find((t: { name: string }) => t.name === "file_read").inputSchema).toEqual(full.inputSchema);
  });

  test("call file_read: the payload; a refusal exits 1 with the envelope", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const ok = await mcporter(
      ["call", ...adhoc("--allow-read --approve file_read"), "file_read", "path=a.txt", "--output", "json"],
      s,
    );
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual(payload());
    const no = await mcporter(
      ["call", ...adhoc("--approve file_read"), "file_read", "path=a.txt", "--output", "json"],
      s,
    );
    expect(no.code).toBe(1);
    expect(JSON.parse(no.stdout)).toMatchObject({
      status: "failed",
      tool: "file_read",
      error_code: "permission.denied",
    });
    expect(await finished(s.ws, s.home)).toEqual([
      ["file_read", "success", null],
      ["file_read", "failed", "permission.denied"],
    ]);
  });
});

/** The snippet under `<!-- client-config: NAME -->` in docs/mcp.md, verbatim. */
function readmeSnippet(name: string): string {
  const readme = readFileSync(join(ROOT, "docs", "mcp.md"), "utf8");
  const m = new RegExp(`<!-- client-config: ${name} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\`\`\`\\n`).exec(readme);
  if (m === null) throw new Error(`docs/mcp.md has no client-config block for ${name}`);
  return m[1]!;
}

describe("the docs' client configs, each loaded from its own file", () => {
  // Where the client reads it, the mcporter arguments that load it, and the source mcporter reports.
  const clients = [
    {
      name: "claude-code",
      file: (s: Site) => join(s.ws, ".mcp.json"),
      pre: ["--config", ".mcp.json"],
      source: (s: Site) => ({ kind: "local", path: join(s.ws, ".mcp.json") }),
    },
    {
      name: "cursor",
      file: (s: Site) => join(s.ws, ".cursor", "mcp.json"),
      pre: [],
      source: (s: Site) => ({ kind: "import", importKind: "cursor", path: join(s.ws, ".cursor", "mcp.json") }),
    },
    {
      name: "vscode",
      file: (s: Site) => join(s.ws, ".vscode", "mcp.json"),
      pre: [],
      source: (s: Site) => ({ kind: "import", importKind: "vscode", path: join(s.ws, ".vscode", "mcp.json") }),
    },
    {
      name: "codex",
      file: (s: Site) => join(s.home, ".codex", "config.toml"),
      pre: [],
      source: (s: Site) => ({ kind: "import", importKind: "codex", path: join(s.home, ".codex", "config.toml") }),
    },
  ];

  test.each(clients)("$name: mcporter lists the scout tools and reads a file through it", async (c) => {
    await using root = tempDir();
    const s = site(root.path);
    const file = c.file(s);
    mkdirSync(dirname(file), { recursive: true });
    const snippet = readmeSnippet(c.name);
    writeFileSync(file, snippet);
    // The editors substitute ${workspaceFolder} themselves; mcporter takes it from the environment.
    const env = { workspaceFolder: s.ws };
    const listed = await mcporter([...c.pre, "list", "toolgate", "--json"], s, { env });
    expect(listed.code).toBe(0);
    const l = JSON.parse(listed.stdout);
    expect({ name: l.name, status: l.status, source: l.source }).toEqual({
      name: "toolgate",
      status: "ok",
      source: c.source(s),
    });
    expect(l.tools.map((t: { name: string }) => t.name).sort()).toEqual(SCOUT);
    // Codex's file is not per project: mcporter starts the server in the file's folder, its workspace.
    const [path, first] = c.name === "codex" ? ["config.toml", snippet.split("\n")[0]] : ["a.txt", "alpha"];
    const read = await mcporter([...c.pre, "call", "toolgate.file_read", `path=${path}`, "--output", "json"], s, {
      env,
    });
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout).content.split("\n")[0]).toBe(`1\t${first}`);
    const write = await mcporter(
      [...c.pre, "call", "toolgate.file_write", "path=b.txt", "content=x", "--output", "json"],
      s,
      { env },
    );
    expect(JSON.parse(write.stdout)).toMatchObject({ error_code: "profile.excluded" });
  });

  test("claude-code: the MCP Inspector loads .mcp.json too and calls file_read", async () => {
    await using root = tempDir();
    const s = site(root.path);
    writeFileSync(join(s.ws, ".mcp.json"), readmeSnippet("claude-code"));
    const r = await inspector(
      [
        "--config",
        ".mcp.json",
        "--server",
        "toolgate",
        "--method",
        "tools/call",
        "--tool-name",
        "file_read",
        "--tool-arg",
        "path=a.txt",
      ],
      s,
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result.structuredContent).toEqual(payload());
  });
});
