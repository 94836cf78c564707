// MCP benchmark (on demand, not in `bun test`), against @modelcontextprotocol/server-everything,
// paired and interleaved in one run, medians:
// - a cold `call everything__echo` (the server started for the call) against a client with no SDK
//   (spawn, initialize, call, kill; compiled like toolgate): time to result (first line on stdout);
//   beside it the same raw client asking tools/list too (what toolgate's descriptor check costs the
//   server), the SDK's own minimal client, mcporter and the Inspector CLI (BENCH_PEERS=0 skips those two);
// - `tools --json --refresh` against the SDK client's own listTools process (connect, list, print,
//   exit): whole process, since a listing is done when its process is;
// - the same cold call against a compiled server that answers at once, beside the raw client that
//   lists: how long after each client's start the server starts, and the result is out (toolgate's
//   own cost in ms, which node's boot time does not move);
// - `tools --json` with three configured servers and a warm catalog cache against built-ins only.
// BENCH_RUNS=N (default 10); BENCH_BASELINE=/path/to/toolgate runs that binary's same commands too;
// BENCH_ALSO=/path[,/path] more binaries' cold call in the same rounds (one change at a time);
// BENCH_CALL_ONLY=1: the cold call rows only. Each round runs the cases in its own (seeded) order,
// each run once the previous run's servers have exited.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { interleave, loadavg, med, median, ms, pairedRatio, plus, row, type Case } from "./bench-lib.ts";

const root = join(import.meta.dir, "..");
// BENCH_BIN: the binary under test (default dist/toolgate).
const bin = process.env.BENCH_BIN ?? join(root, "dist", "toolgate");
const everything = join(root, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const node = Bun.which("node") ?? "/usr/bin/node";
const sdk = join(root, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm");
const runs = Number(process.env.BENCH_RUNS ?? 10);
const baseline = process.env.BENCH_BASELINE;
const peers = process.env.BENCH_PEERS !== "0";
const also = (process.env.BENCH_ALSO ?? "").split(",").filter(Boolean);
const callOnly = process.env.BENCH_CALL_ONLY === "1";
const work = mkdtempSync(join(tmpdir(), "toolgate-bench-mcp-"));
const server = { command: node, args: [everything, "stdio"] };

/** Compiles a client like toolgate (minified, bytecode) in a child process. */
function compile(name: string, source: string): string {
  writeFileSync(join(work, `${name}.ts`), source);
  const built = Bun.spawnSync(
    [
      process.execPath,
      "build",
      "--compile",
      "--minify",
      "--bytecode",
      "--format=esm",
      "--no-compile-autoload-dotenv",
      "--no-compile-autoload-bunfig",
      join(work, `${name}.ts`),
      "--outfile",
      join(work, name),
    ],
    { cwd: root, stderr: "pipe" },
  );
  if (built.exitCode !== 0) throw new Error(`${name} build failed: ${built.stderr}`);
  return join(work, name);
}

const sdkClient = (body: string) => `import { Client } from ${JSON.stringify(join(sdk, "client", "index.js"))};
import { StdioClientTransport } from ${JSON.stringify(join(sdk, "client", "stdio.js"))};
const c = new Client({ name: "floor", version: "1" }, { capabilities: {} });
await c.connect(new StdioClientTransport({ command: ${JSON.stringify(node)}, args: [${JSON.stringify(everything)}, "stdio"] }));
${body}
process.exit(0);
`;

// The floor for a cold call: newline-delimited JSON-RPC over the child's pipes, nothing else.
// With `list`, it also asks tools/list (beside initialized) before the call, as toolgate's
// descriptor check must: the part of the gap that is the server's, not toolgate's.
const rawSource = (
  list: boolean,
  argv: readonly string[] = [node, everything, "stdio"],
) => `const child = Bun.spawn(${JSON.stringify(argv)}, { stdin: "pipe", stdout: "pipe", stderr: "ignore" });
const send = (m: unknown) => { child.stdin.write(JSON.stringify(m) + "\\n"); child.stdin.flush(); };
const reader = child.stdout.getReader();
let buf = "";
async function answer(id: number): Promise<unknown> {
  for (;;) {
    let nl: number;
    while ((nl = buf.indexOf("\\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const m = JSON.parse(line);
      if (m.id === id) return m.result;
    }
    const { value, done } = await reader.read();
    if (done) throw new Error("the server closed");
    buf += new TextDecoder().decode(value);
  }
}
send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
await answer(1);
send({ jsonrpc: "2.0", method: "notifications/initialized" });
${list ? `send({ jsonrpc: "2.0", id: 3, method: "tools/list", params: {} });\nawait answer(3);` : ""}
send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { message: "hi" } } });
process.stdout.write(JSON.stringify(await answer(2)) + "\\n");
child.kill();
process.exit(0);
`;

/**
 * Each case's medians over `runs` shuffled rounds (interleave's): ms from its own start to the
 * server's start (the stamp the server wrote, against the run's `start`), and to its result.
 */
async function againstInstant(
  cases: readonly (readonly [string, readonly string[]])[],
  stamps: string,
  cwd: string,
  env: Record<string, string>,
): Promise<Map<string, { spawn: number; result: number }>> {
  // Each run's stamp, read (and the file emptied) after it; the warm-up round's first.
  const started = new Map(cases.map(([n]) => [n, [] as number[]]));
  writeFileSync(stamps, "");
  const after = (name: string) => async () => {
    started.get(name)!.push(Number(readFileSync(stamps, "utf8").split("\n")[0]));
    writeFileSync(stamps, "");
    await Bun.sleep(20); // the cold call's reaper ends its server off the path: let it
  };
  const s = await interleave(
    cases.map(([name, cmd]) => ({ name, cmd, opts: { cwd, env, until: '"text":"hi"' }, after: after(name) })),
    runs,
    { shuffle: true },
  );
  return new Map(
    cases.map(([n]) => {
      const runsOf = s.get(n)!;
      return [
        n,
        {
          spawn: median(runsOf.map((r, k) => started.get(n)![k + 1]! - r.start)),
          result: median(runsOf.map((r) => r.result)),
        },
      ];
    }),
  );
}

/** Resolves once no server-everything process runs (polled; at most 3 s). */
async function serversGone(): Promise<void> {
  const until = Date.now() + 3_000;
  const running = () =>
    readdirSync("/proc").some((p) => {
      if (!/^\d+$/.test(p)) return false;
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(everything);
      } catch {
        return false;
      }
    });
  while (running() && Date.now() < until) await Bun.sleep(10);
}

try {
  const env = { PATH: `/usr/bin:/bin:/usr/local/bin`, HOME: work, XDG_STATE_HOME: join(work, ".state"), CI: "true" };
  const rawClient = compile("raw", rawSource(false));
  const rawListClient = compile("raw-list", rawSource(true));
  const sdkCall = compile(
    "sdk-call",
    sdkClient(
      `process.stdout.write(JSON.stringify(await c.callTool({ name: "echo", arguments: { message: "hi" } })) + "\\n");`,
    ),
  );
  const sdkList = compile("sdk-list", sdkClient(`process.stdout.write(JSON.stringify(await c.listTools()) + "\\n");`));
  const ws = join(work, "ws");
  mkdirSync(ws);
  writeFileSync(
    join(ws, "toolgate.json"),
    JSON.stringify({ mcpServers: { everything: server }, las: { shutdown_grace_secs: 10 } }),
  );
  Bun.spawnSync([bin, "tools", "--allow-run"], { cwd: ws, env }); // warm the catalog cache
  const o = { cwd: ws, env, until: "Echo: hi" };
  const call = ["call", "everything__echo", '{"message":"hi"}', "--allow-run", "--approve", "all"];
  const refresh = ["tools", "--json", "--refresh", "--allow-run"];
  const lo = { cwd: ws, env };
  const bin_ = join(root, "node_modules", ".bin");
  const cases: Case[] = [
    { name: "raw", cmd: [rawClient], opts: o },
    { name: "raw+list", cmd: [rawListClient], opts: o },
    { name: "call", cmd: [bin, ...call], opts: o },
    ...(baseline ? [{ name: "baseline call", cmd: [baseline, ...call], opts: o }] : []),
    ...also.map((b, i) => ({ name: `also ${i + 1} call`, cmd: [b, ...call], opts: o })),
    { name: "sdk call", cmd: [sdkCall], opts: o },
    ...(callOnly
      ? []
      : [
          { name: "sdk listTools", cmd: [sdkList], opts: lo },
          { name: "refresh", cmd: [bin, ...refresh], opts: lo },
          ...(baseline ? [{ name: "baseline refresh", cmd: [baseline, ...refresh], opts: lo }] : []),
        ]),
    ...(peers
      ? [
          {
            name: "mcporter",
            cmd: [
              join(bin_, "mcporter"),
              "call",
              "--stdio",
              node,
              "--stdio-arg",
              everything,
              "--stdio-arg",
              "stdio",
              "--server",
              "everything",
              "--tool",
              "echo",
              "message=hi",
              "--output",
              "json",
            ],
            opts: o,
            runs: Math.max(3, Math.ceil(runs / 2)),
          },
          {
            name: "inspector",
            cmd: [
              join(bin_, "mcp-inspector"),
              "--cli",
              node,
              everything,
              "stdio",
              "--method",
              "tools/call",
              "--tool-name",
              "echo",
              "--tool-arg",
              "message=hi",
            ],
            opts: o,
            runs: Math.max(3, Math.ceil(runs / 3)),
          },
        ]
      : []),
  ];
  // Each round in its own order, and each run only once the servers of the one before have exited
  // (a cold call's reaper ends its server about 400 ms after the result): no case pays for another.
  const s = await interleave(
    cases.map((c) => ({ ...c, after: serversGone })),
    runs,
    { shuffle: true },
  );
  const r = (n: string) => med(s, n, "result");
  const w = (n: string) => med(s, n, "wall");
  const x = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  // Each round's own ratio, then their median: steadier than a ratio of medians on a busy machine.
  const px = (a: string, b: string, k: "wall" | "result" = "result") => `${pairedRatio(s, a, b, k).toFixed(2)}x`;
  console.log(`MCP, server-everything, ${runs} interleaved rounds (load ${loadavg()} at the end)`);
  console.log(
    row(
      "cold MCP call (echo), time to result",
      `${px("call", "raw")} raw client`,
      "<= 1.05x",
      baseline ? px("baseline call", "raw") : undefined,
    ),
  );
  console.log(
    `  the server's part: a raw client that also lists (toolgate's descriptor check) ${px("raw+list", "raw")} raw client; toolgate ${px("call", "raw+list")} that`,
  );
  console.log(
    `  medians: raw client ${ms(r("raw"))}, raw+list ${ms(r("raw+list"))}, toolgate ${ms(r("call"))} (whole ${ms(w("call"))}, CPU ${ms(med(s, "call", "cpu"))})${baseline ? `, baseline ${ms(r("baseline call"))} (toolgate/baseline ${px("call", "baseline call")})` : ""}; SDK client ${ms(r("sdk call"))} (toolgate/SDK ${px("call", "sdk call")})`,
  );
  also.forEach((b, i) => {
    console.log(
      `  also ${i + 1} (${b}): ${px(`also ${i + 1} call`, "raw")} raw client, ${ms(r(`also ${i + 1} call`))} (CPU ${ms(med(s, `also ${i + 1} call`, "cpu"))})${baseline ? `, ${px(`also ${i + 1} call`, "baseline call")} baseline` : ""}`,
    );
  });
  if (peers)
    console.log(
      `  mcporter ${ms(r("mcporter"))} (${x(r("mcporter"), r("call"))} toolgate), inspector --cli ${ms(r("inspector"))} (${x(r("inspector"), r("call"))})`,
    );
  if (!callOnly) {
    console.log(
      row(
        "tools --json --refresh, whole process",
        `${px("refresh", "sdk listTools", "wall")} SDK listTools`,
        "<= 1.05x",
        baseline ? px("baseline refresh", "sdk listTools", "wall") : undefined,
      ),
    );
    console.log(
      `  SDK listTools ${ms(w("sdk listTools"))}, toolgate ${ms(w("refresh"))}${baseline ? `, baseline ${ms(w("baseline refresh"))}` : ""}`,
    );
  }
  const report: Record<string, unknown> = { load: loadavg() };
  for (const c of cases)
    report[c.name] = {
      result_ms: +r(c.name).toFixed(1),
      whole_ms: +w(c.name).toFixed(1),
      cpu_ms: +med(s, c.name, "cpu").toFixed(1),
      n: s.get(c.name)!.length,
    };
  console.log(JSON.stringify(report));
  // toolgate's own part of a cold call, with the server's time out of it (an instant server).
  // A server that answers at once: the wire fixture (no SDK), compiled like the clients, writing
  // its process's start (performance.timeOrigin) to `stamps` as it starts. Beside the raw client
  // that lists, how long after each client's own start the server starts and the result is out is
  // toolgate's own cost of a cold call, with no node boot to hide or add anything.
  const instant = compile("instant", readFileSync(join(root, "test", "fixtures", "mcp", "wire.ts"), "utf8"));
  const stamps = join(work, "stamps");
  const quick = join(work, "quick");
  mkdirSync(quick);
  writeFileSync(
    join(quick, "toolgate.json"),
    JSON.stringify({ mcpServers: { instant: { command: instant, args: [`--stamp=${stamps}`] } } }),
  );
  Bun.spawnSync([bin, "tools", "--allow-run"], { cwd: quick, env });
  const instantCall = ["call", "instant__echo", '{"message":"hi"}', "--allow-run", "--approve", "all"];
  const against = await againstInstant(
    [
      ["raw+list", [compile("raw-list-instant", rawSource(true, [instant, `--stamp=${stamps}`]))]],
      ["toolgate", [bin, ...instantCall]],
      ...(baseline ? [["baseline", [baseline, ...instantCall]] as const] : []),
    ],
    stamps,
    quick,
    env,
  );
  const [rl, tg] = [against.get("raw+list")!, against.get("toolgate")!];
  console.log(
    `\nagainst a server that answers at once (${runs} rounds): the server starts ${ms(rl.spawn)} after the raw client that lists, ${ms(tg.spawn)} after toolgate (${plus(tg.spawn - rl.spawn)}); result ${ms(rl.result)} and ${ms(tg.result)} (${plus(tg.result - rl.result)})${baseline ? `; baseline: server ${ms(against.get("baseline")!.spawn)}, result ${ms(against.get("baseline")!.result)}` : ""}`,
  );
  console.log(
    JSON.stringify({
      instant: Object.fromEntries(
        [...against].map(([n, v]) => [n, { spawn_ms: +v.spawn.toFixed(2), result_ms: +v.result.toFixed(2) }]),
      ),
    }),
  );
  // `tools` with three configured servers and a warm cache vs the built-ins-only listing.
  if (!callOnly) {
    const three = join(work, "three");
    mkdirSync(three);
    writeFileSync(
      join(three, "toolgate.json"),
      JSON.stringify({ mcpServers: { one: server, two: server, three: server } }),
    );
    Bun.spawnSync([bin, "tools", "--allow-run"], { cwd: three, env });
    const bare = join(work, "bare");
    mkdirSync(bare);
    const listing = await interleave(
      [
        { name: "three", cmd: [bin, "tools", "--json"], opts: { cwd: three, env } },
        { name: "bare", cmd: [bin, "tools", "--json"], opts: { cwd: bare, env } },
      ],
      30,
    );
    const [m3, mb] = [med(listing, "three", "wall"), med(listing, "bare", "wall")];
    console.log(
      `\ntoolgate tools --json: three servers, warm cache ${ms(m3)}; built-ins only ${ms(mb)}; difference ${ms(m3 - mb)} (n=30)`,
    );
    console.log(
      JSON.stringify({
        tools_three_warm_ms: +m3.toFixed(1),
        tools_builtins_ms: +mb.toFixed(1),
        diff_ms: +(m3 - mb).toFixed(1),
      }),
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
