// The shape STYLE.md asks for, checked by reading imports: data moves one way through the
// stages, no two files import each other (even for types), tools sit in family folders, only the
// state module opens SQLite, nothing outside a launcher spawns processes, and what needs Linux is
// reached only through the platform layer.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { bundleOptions } from "../scripts/bundle.ts";

const SRC = join(import.meta.dir, "..", "src");

/** Stage of each top folder; a module may import (values) only from its own stage or earlier ones. */
const STAGE: Record<string, number> = {
  result: 0,
  schema: 0,
  generated: 0,
  fs: 0,
  platform: 0,
  "version.ts": 0,
  config: 1,
  trust: 1,
  catalog: 2,
  tools: 2,
  permission: 3,
  approval: 4,
  launcher: 5,
  http: 5,
  mcp: 5,
  auth: 5,
  boundary: 6,
  state: 7,
  servers: 8,
  telemetry: 8,
  runtime: 9,
  serve: 10,
  session: 10,
  tasks: 10,
  cli: 11,
  "main.ts": 11,
};

/** The command files held to 100 lines (src/cli/NAME.ts). */
// Every command the entry point loads (src/main.ts): each is a command file of at most 100 lines.
const COMMAND_FILES = [
  "approvals",
  "auth",
  "call",
  "completions",
  "config",
  "doctor",
  "help",
  "log",
  "serve",
  "session",
  "tasks",
  "tools",
  "trust",
  "version",
];

const lines = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

/** The tool families: src/tools/ holds index.ts and these folders, nothing loose. */
const FAMILIES = ["delegate", "files", "gates", "lane", "most", "net", "rails", "search", "shell", "skills", "tasks"];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

const topOf = (file: string) => relative(SRC, file).split("/")[0]!;

/** Value imports only: `import type` and `import { type X }`-only lines carry no runtime edge. */
function valueImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*import\s+(?!type\b)([^;]*?)\s+from\s+"([^"]+)"/gm)) {
    const names = m[1]!;
    const onlyTypes =
      /^\{[^}]*\}$/.test(names) &&
      names
        .slice(1, -1)
        .split(",")
        .every((n) => n.trim() === "" || n.trim().startsWith("type "));
    if (!onlyTypes) out.push(m[2]!);
  }
  for (const m of text.matchAll(/import\(\s*"([^"]+)"\s*\)/g)) out.push(m[1]!);
  return out;
}

/** Every relative import, types and re-exports included, resolved to a source file. */
function allImports(file: string, text: string): string[] {
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\bfrom\s+"(\.[^"]+)"/gm),
    ...text.matchAll(/import\(\s*"(\.[^"]+)"\s*\)/g),
  ].map((m) => m[1]!);
  return specs
    .map((spec) => resolve(dirname(file), spec))
    .map((p) => (p.endsWith(".ts") ? p : `${p}.ts`))
    .filter((p) => existsSync(p));
}

/** The import circles among files (Tarjan's strongly connected components of two or more files, or a self-import). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    stack: string[] = [],
    onStack = new Set<string>(),
    found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      part.push(w);
    } while (w !== v);
    if (part.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(part.map((f) => relative(SRC, f)).sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const sources = files(SRC).map((f) => ({ file: f, rel: relative(SRC, f), text: readFileSync(f, "utf8") }));

describe("architecture", () => {
  test("every source folder has a stage", () => {
    expect(sources.map((s) => topOf(s.file)).filter((t) => STAGE[t] === undefined)).toEqual([]);
  });

  test("value imports only point to the same or an earlier stage", () => {
    const backwards: string[] = [];
    for (const s of sources) {
      for (const spec of valueImports(s.text)) {
        if (!spec.startsWith(".")) continue;
        const target = topOf(resolve(dirname(s.file), spec));
        if (STAGE[target]! > STAGE[topOf(s.file)]!) backwards.push(`${s.rel} → ${spec}`);
      }
    }
    expect(backwards).toEqual([]);
  });

  test("no import circles between files, type-only imports included", () => {
    expect(circles(new Map(sources.map((s) => [s.file, allImports(s.file, s.text)])))).toEqual([]);
  });

  test("the circle check finds a circle, type-only included", () => {
    const [a, b, c] = ["/x/a.ts", "/x/b.ts", "/x/c.ts"];
    expect(
      circles(
        new Map([
          [a, [b]],
          [b, [c]],
          [c, [a]],
        ]),
      ),
    ).toHaveLength(1);
    expect(
      circles(
        new Map([
          [a, [b]],
          [b, [c]],
          [c, []],
        ]),
      ),
    ).toEqual([]);
    expect(
      allImports(
        join(SRC, "cli", "x.ts"),
        'import type { RunContext } from "./context.ts";\nexport { a } from "../version";',
      ),
    ).toEqual([join(SRC, "cli", "context.ts"), join(SRC, "version.ts")]);
  });

  // A tool's description sits beside its module as NAME.txt (imported as text): modules are counted.
  test("src/tools holds the explicit list and one folder per family, none over 12 modules", () => {
    const entries = readdirSync(join(SRC, "tools"), { withFileTypes: true });
    expect(entries.filter((e) => !e.isDirectory()).map((e) => e.name)).toEqual(["index.ts"]);
    expect(
      entries
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort(),
    ).toEqual(FAMILIES);
    const crowded = FAMILIES.map(
      (f) => [f, readdirSync(join(SRC, "tools", f)).filter((n) => n.endsWith(".ts")).length] as const,
    ).filter(([, n]) => n > 12);
    expect(crowded).toEqual([]);
  });

  test("no source file is over 350 lines", () => {
    const long = sources
      .map((s) => [s.rel, s.text.split("\n").length - (s.text.endsWith("\n") ? 1 : 0)] as const)
      .filter(([, n]) => n > 350);
    expect(long).toEqual([]);
  });

  // Refusal codes have one registry (src/result/codes.ts, with the tools' part in codes-tools.ts and
  // their type in code-info.ts): no other module declares a code's exit code, outcome or meaning,
  // and every registered code carries all three (test/result/codes.test.ts holds the codes used).
  test("one registry of refusal codes", async () => {
    const declaring = sources.filter((s) => /\bmeaning:\s*["'`]/.test(s.text)).map((s) => s.rel);
    expect(declaring.sort()).toEqual(["result/codes-tools.ts", "result/codes.ts"]);
    const { CODES } = await import("../src/result/codes.ts");
    const incomplete = Object.entries(CODES as Record<string, Record<string, unknown>>).filter(
      ([, c]) => typeof c.meaning !== "string" || c.meaning === "" || !("exit" in c) || !("outcome" in c),
    );
    expect([Object.keys(CODES).length > 100, incomplete]).toEqual([true, []]);
  });

  // serve reaches the MCP SDK through its public API (Server, Protocol, Transport): no source file
  // touches a member the SDK keeps to itself (a `_`-prefixed field or method, as its own code names
  // them), nor steps around a public method through a prototype. serve's fast path for tools/call
  // (src/serve/dispatch.ts) sits behind the Transport seam with public members only.
  test("no source file reaches the MCP SDK's private members", () => {
    const js = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? js(join(dir, e.name)) : e.name.endsWith(".js") ? [join(dir, e.name)] : [],
      );
    const privates = new Set<string>();
    for (const f of js(join(import.meta.dir, "..", "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm")))
      for (const m of readFileSync(f, "utf8").matchAll(/this\.(_[A-Za-z]\w*)/g)) privates.add(m[1]!);
    expect(["_onrequest", "_requestHandlers", "_transport"].every((n) => privates.has(n))).toBe(true);
    const reaching = sources.flatMap((s) =>
      [...s.text.matchAll(/(?:\.|\[\s*["'`])(_[A-Za-z]\w*)\b/g)]
        .filter((m) => privates.has(m[1]!))
        .map((m) => `${s.rel}: ${m[1]}`),
    );
    expect(reaching).toEqual([]);
    expect(
      sources.filter((s) => /\b(Protocol|Server|Client|McpServer)\.prototype\b/.test(s.text)).map((s) => s.rel),
    ).toEqual([]);
  });

  // Tool sources reach the runtime through providers (src/runtime/providers/, one per source, one
  // list): no other module imports a tool (src/tools/**) or the servers' sources as a value.
  test("only the providers import tool sources", () => {
    const toolSource = (p: string) =>
      p.startsWith(`${join(SRC, "tools")}/`) || p === join(SRC, "servers", "sources.ts");
    const importers = sources.filter((s) => !s.rel.startsWith("tools/") && !s.rel.startsWith("runtime/providers/"));
    const reaching = importers.filter((s) =>
      valueImports(s.text).some(
        (spec) =>
          spec.startsWith(".") && toolSource(resolve(dirname(s.file), spec.endsWith(".ts") ? spec : `${spec}.ts`)),
      ),
    );
    expect(reaching.map((s) => s.rel)).toEqual([]);
  });

  // Every entry point (call, a session's forwarded calls, a task's supervisor, serve and its child)
  // calls tools through one Runtime (src/runtime/runtime.ts): the pipeline and its wiring are called
  // nowhere else, comments aside.
  test("only the Runtime runs the pipeline", () => {
    const runs = (s: { text: string }) => /\b(invoke|callDeps)\(/.test(s.text.replace(/^\s*(\/\/|\*|\/\*).*$/gm, ""));
    expect(sources.filter((s) => runs(s) && !s.rel.startsWith("runtime/")).map((s) => s.rel)).toEqual([]);
    expect(
      sources
        .filter(runs)
        .map((s) => s.rel)
        .sort(),
    ).toEqual(["runtime/call-deps.ts", "runtime/invoke.ts", "runtime/runtime.ts"]);
  });

  test("only src/state opens SQLite", () => {
    expect(sources.filter((s) => valueImports(s.text).includes("bun:sqlite")).map((s) => s.rel)).toEqual([
      "state/db.ts",
    ]);
  });

  // One spawn function (launcher/spawn.ts) takes an explicit argv, folder and whole environment: no other file starts a process.
  test("only src/launcher/spawn.ts starts a process", () => {
    const spawners = sources.filter((s) =>
      /Bun\.spawn|Bun\.spawnSync|node:child_process|["']child_process["']|Bun\.\$/.test(s.text),
    );
    expect(spawners.map((s) => s.rel)).toEqual(["launcher/spawn.ts"]);
  });

  test("nothing outside src/launcher spawns a process or calls fetch outside src/http", () => {
    const spawners = sources.filter(
      (s) => /Bun\.spawn|node:child_process|Bun\.\$|from "bun"/.test(s.text) && !s.rel.startsWith("launcher/"),
    );
    expect(spawners.map((s) => s.rel)).toEqual([]);
    expect(sources.filter((s) => /\bfetch\(/.test(s.text) && !s.rel.startsWith("http/")).map((s) => s.rel)).toEqual([]);
  });

  // The platform layer (src/platform/host.ts) is the one choice of what this OS gives: a module that
  // reached platform/linux/ itself would run Linux's code on every platform (a dlopen of libc.so.6,
  // a read of /proc), and one that read /proc or loaded bun:ffi on its own would too.
  test("only platform/host.ts reaches platform/linux/, types included", () => {
    const linux = join(SRC, "platform", "linux");
    const reaching = sources.filter(
      (s) => !s.file.startsWith(`${linux}/`) && allImports(s.file, s.text).some((i) => i.startsWith(`${linux}/`)),
    );
    expect(reaching.map((s) => s.rel)).toEqual(["platform/host.ts"]);
  });

  test("/proc is read and bun:ffi loaded only in platform/linux/ (host.ts asks whether /proc is mounted)", () => {
    const outside = sources.filter((s) => !s.rel.startsWith("platform/linux/"));
    const procReaders = outside.filter((s) => /["'`]\/proc\//.test(s.text)).map((s) => s.rel);
    const ffi = outside
      .filter((s) => /["']bun:ffi["']/.test(s.text.replace(/^\s*(\/\/|\*|\/\*).*$/gm, "")))
      .map((s) => s.rel);
    expect({ procReaders, ffi }).toEqual({ procReaders: ["platform/host.ts"], ffi: [] });
  });

  test("the portable implementations import nothing Linux-only", () => {
    const portable = sources.filter((s) => s.rel.startsWith("platform/portable/"));
    expect(portable.length).toBeGreaterThan(0);
    expect(
      portable
        .flatMap((s) => allImports(s.file, s.text).map((i) => relative(SRC, i)))
        .filter((i) => !i.startsWith("platform/types.ts")),
    ).toEqual([]);
  });

  // Human lines go through one module (src/result/human.ts: escaped, at the --quiet/--verbose
  // level); stdout is the result's. What writes stderr another way is listed in that module's
  // header, with why, and here.
  test("stderr is written only through src/result/human.ts, and the files its header lists", () => {
    const direct = sources
      .filter((s) => /process\.stderr\.write|console\.error/.test(s.text))
      .map((s) => s.rel)
      .sort();
    expect(direct).toEqual([
      "cli/serve-start.ts",
      "launcher/guard.ts",
      "launcher/reaper.ts",
      "result/io.ts",
      "serve/stdout.ts",
    ]);
    const sink = sources
      .filter((s) => /\bwrite(Own)?Stderr\b/.test(s.text) && s.rel !== "result/io.ts")
      .map((s) => s.rel)
      .sort();
    expect(sink).toEqual(["cli/call-args.ts", "cli/call-view.ts", "cli/call.ts", "result/human.ts"]);
    const header = sources.find((s) => s.rel === "result/human.ts")!.text.split("\nimport ")[0]!;
    for (const rel of [...direct, ...sink].filter((r) => r !== "result/human.ts"))
      expect({ rel, listed: header.includes(`src/${rel}`) }).toEqual({ rel, listed: true });
  });

  // A command file reads its flags (the entry point scans them with its declaration), opens what it
  // needs and renders: what it does lives in the module it belongs to (src/state/, src/tasks/,
  // src/session/), its output in src/cli/render-*.ts and the like.
  test("each command file listed is at most 100 lines, and is a command the entry point loads", () => {
    const commands = [
      ...readFileSync(join(SRC, "main.ts"), "utf8").matchAll(
        /import\("\.\/cli\/([\w-]+)\.ts"\)\s*\.then\(\s*\(m\)\s*=>\s*\(\{\s*def:/g,
      ),
    ].map((m) => m[1]!);
    expect([...commands].sort()).toEqual(COMMAND_FILES);
    const long = COMMAND_FILES.map(
      (c) => [c, lines(readFileSync(join(SRC, "cli", `${c}.ts`), "utf8"))] as const,
    ).filter(([, n]) => n > 100);
    expect(long).toEqual([]);
  });

  test("consola is loaded only by the human lines' module", () => {
    expect(
      sources
        .filter((s) => valueImports(s.text).some((i) => i === "consola" || i.startsWith("consola/")))
        .map((s) => s.rel),
    ).toEqual(["result/human.ts"]);
  });

  test("the hot path never imports arktype as a value", () => {
    expect(sources.filter((s) => valueImports(s.text).includes("arktype")).map((s) => s.rel)).toEqual([
      "schema/explain.ts",
    ]);
  });

  // Telemetry costs nothing unless the user's environment asks for it: the OTel packages are imported
  // by src/telemetry/export.ts alone, and that module only through a dynamic import in telemetry.ts
  // and in the exporter's worker (which telemetry.ts starts), taken once an endpoint is set
  // (telemetryFor is undefined otherwise: test/telemetry/env.test.ts).
  // What a tool needs from the pipeline is declared by its source (catalog/terms.ts: every field
  // required, so a new source states each one); the adapter only runs the tool. An optional member
  // on either is a source's special case creeping back as a knob the stages must remember to read.
  test("the Adapter has no optional member but begin (a run in two phases), and Terms none", () => {
    const membersOf = (rel: string, name: string) => {
      const text = sources.find((s) => s.rel === rel)!.text;
      const body = text
        .slice(text.indexOf(`export interface ${name} {`))
        .match(/^export interface \w+ \{\n([\s\S]*?)^\}/m)![1]!;
      // The interface's own members (two spaces in), each marked "?" when optional.
      return [...body.matchAll(/^ {2}(?:readonly )?(\w+)(\??)[:(]/gm)].map((m) => `${m[1]}${m[2]}`);
    };
    expect(membersOf("catalog/catalog.ts", "Adapter")).toEqual(["needs", "run", "begin?"]);
    const terms = membersOf("catalog/terms.ts", "Terms");
    expect(terms).toEqual(["validation", "settle", "boundary", "secrets", "audit", "time", "acts"]);
  });

  test("OpenTelemetry is imported only by telemetry/export.ts, and that only dynamically", () => {
    expect(
      sources.filter((s) => valueImports(s.text).some((i) => i.startsWith("@opentelemetry/"))).map((s) => s.rel),
    ).toEqual(["telemetry/export.ts"]);
    const exporter = join(SRC, "telemetry", "export.ts");
    const resolved = (s: { file: string }, spec: string) => resolve(dirname(s.file), spec) === exporter;
    const statically = sources.filter((s) =>
      [...s.text.matchAll(/^\s*import\s+(?!type\b)([^;]*?)\s+from\s+"(\.[^"]+)"/gm)].some(
        (m) => resolved(s, m[2]!) && !/^\{\s*type\s/.test(m[1]!),
      ),
    );
    const dynamically = sources.filter((s) =>
      [...s.text.matchAll(/import\(\s*"(\.[^"]+)"\s*\)/g)].some((m) => resolved(s, m[1]!)),
    );
    expect([statically.map((s) => s.rel), dynamically.map((s) => s.rel).sort()]).toEqual([
      [],
      ["telemetry/telemetry.ts", "telemetry/worker.ts"],
    ]);
  });

  // The binary is split (scripts/bundle.ts): every start loads src/main.ts's chunk and the chunks
  // it imports statically, nothing else; a command, and whatever only it uses (builtins included),
  // is a chunk read on its first use. A static import into this closure puts its module, and every
  // builtin it imports, on every start (`--version` too): this list is where that shows.
  test("a start loads only the entry's static closure: these modules, and of the builtins only fs", async () => {
    const texts = await splitBuild();
    expect(texts.size).toBeGreaterThan(20); // the commands, the SDK, the tools: chunks of their own
    const start = closure(texts, "main.js");
    expect(start.chunks).toBeGreaterThan(1);
    expect([...start.builtins].sort()).toEqual(["fs"]);
    expect([...start.modules].sort()).toEqual([
      "citty",
      "src/cli/flags.ts",
      "src/launcher/bun-switches.ts",
      "src/main.ts",
      "src/permission/flags.ts",
      "src/permission/net.ts",
      "src/permission/types.ts",
      "src/result/escape.ts",
      "src/result/human.ts",
      "src/result/io.ts",
      "src/result/lifetime.ts",
      "src/result/result.ts",
      "src/session/none.ts",
      "src/version.ts",
    ]);
  });

  // What `call` and `tools` load once chosen (their chunk and its static closure), of the builtins.
  // node:crypto's Hash is a Node stream: loading it (streams and all) was about a seventh of a cold
  // call's CPU, so the digests on these paths go through Bun's own hasher (src/result/sha256.ts).
  test("call and tools load of the builtins only bun:sqlite, fs and path", async () => {
    const texts = await splitBuild();
    for (const command of ["call", "tools"]) {
      const chunk = [...texts].find(([, t]) => t.includes(`\n// src/cli/${command}.ts\n`))![0];
      expect({ command, builtins: [...closure(texts, chunk).builtins].sort() }).toEqual({
        command,
        builtins: ["bun:sqlite", "fs", "path"],
      });
    }
  });

  // serve --http --oauth-issuer's token checks: jose is imported by the two modules that verify,
  // and they are loaded only on that path (serve's own chunk, and the HTTP server's, hold neither).
  test("jose is loaded only by serve --oauth-issuer", async () => {
    expect(
      sources
        .filter((s) => valueImports(s.text).some((i) => i === "jose" || i.startsWith("jose/")))
        .map((s) => s.rel)
        .sort(),
    ).toEqual(["serve/oauth/keys.ts", "serve/oauth/verify.ts"]);
    const texts = await splitBuild();
    for (const module of ["cli/serve.ts", "serve/http.ts"]) {
      const chunk = [...texts].find(([, t]) => t.includes(`\n// src/${module}\n`))![0];
      const loaded = [...closure(texts, chunk).modules];
      expect({ module, jose: loaded.filter((m) => m === "jose" || m.startsWith("src/serve/oauth/start")) }).toEqual({
        module,
        jose: [],
      });
    }
  });
});

/** The binary's chunks as scripts/build.ts splits them (not minified, so each module's "// path" comment shows), by file name. */
async function splitBuild(): Promise<Map<string, string>> {
  const built = await Bun.build({ ...bundleOptions(join(SRC, "..")), define: { TOOLGATE_VERSION: '"0"' } });
  expect(built.success).toBe(true);
  return new Map(
    await Promise.all(built.outputs.map(async (o) => [basename(o.path), await o.text()] as [string, string])),
  );
}

/** What loading `chunk` loads: the chunks it imports statically (transitively), their modules and builtins. */
function closure(
  texts: ReadonlyMap<string, string>,
  chunk: string,
): { chunks: number; modules: Set<string>; builtins: Set<string> } {
  const seen = new Set<string>();
  const modules = new Set<string>();
  const builtins = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const text = texts.get(name)!;
    for (const m of text.matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm))
      modules.add(m[1]!.replace(/^node_modules\/([^/]+)\/.*$/, "$1"));
    for (const m of text.matchAll(/^import\b[^;]*?(?:\bfrom\s*)?"([^"]+)";?$/gm)) {
      if (m[1]!.startsWith("./")) visit(m[1]!.slice(2));
      else builtins.add(m[1]!.replace(/^node:/, ""));
    }
  };
  visit(chunk);
  return { chunks: seen.size, modules, builtins };
}
