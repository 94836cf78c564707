// MCP benchmark (on demand, not in `bun test`): one `everything__echo` call against
// @modelcontextprotocol/server-everything, cold (the server is started for the call), by
// toolgate, the MCP Inspector's CLI, mcporter, and a minimal SDK client compiled with Bun (the
// floor) — time to result (first line on stdout) and whole-process time, medians in one run.
// Then `toolgate tools` with three configured servers and a warm catalog cache against the
// built-ins-only listing. The peers are installed on first use under ~/.cache/toolgate-bench.
// BENCH_RUNS=N (default 10); BENCH_BASELINE=/path/to/toolgate adds that binary's cold call.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const bin = join(root, "dist", "toolgate");
const everything = join(root, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const node = Bun.which("node") ?? "/usr/bin/node";
const sdk = join(root, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm");
const runs = Number(process.env.BENCH_RUNS ?? 10);
// Another toolgate binary to compare in the same run (e.g. one built from before a change).
const baseline = process.env.BENCH_BASELINE;
const peersDir = join(homedir(), ".cache", "toolgate-bench", "peers");
const work = mkdtempSync(join(tmpdir(), "toolgate-bench-mcp-"));

function ensurePeers(): void {
  if (existsSync(join(peersDir, "node_modules", ".bin", "mcporter")) && existsSync(join(peersDir, "node_modules", ".bin", "mcp-inspector"))) return;
  mkdirSync(peersDir, { recursive: true });
  if (!existsSync(join(peersDir, "package.json"))) writeFileSync(join(peersDir, "package.json"), '{"private":true}');
  const r = Bun.spawnSync(["npm", "install", "--no-audit", "--no-fund", "@modelcontextprotocol/inspector@2.12.0", "mcporter@0.12.3"], { cwd: peersDir, stdout: "inherit", stderr: "inherit" });
  if (r.exitCode !== 0) throw new Error("could not install the peers");
}

async function timed(cmd: string[], cwd: string, env: Record<string, string>): Promise<{ result: number; total: number }> {
  const t0 = performance.now();
  const p = Bun.spawn(cmd, { cwd, env, stdout: "pipe", stderr: "pipe" });
  let result = 0;
  let out = "";
  const decoder = new TextDecoder();
  for await (const chunk of p.stdout) {
    out += decoder.decode(chunk, { stream: true });
    if (result === 0 && out.includes("Echo: hi")) result = performance.now() - t0;
  }
  const code = await p.exited;
  const total = performance.now() - t0;
  if (code !== 0 || result === 0) throw new Error(`${cmd.join(" ")} failed (${code}): ${out.slice(0, 300)} ${await new Response(p.stderr).text()}`);
  return { result, total };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  ensurePeers();
  const env = { PATH: `/usr/bin:/bin:/usr/local/bin`, HOME: work, CI: "true" };
  // The floor: a minimal SDK client, compiled like toolgate.
  writeFileSync(
    join(work, "floor.ts"),
    `import { Client } from ${JSON.stringify(join(sdk, "client", "index.js"))};
import { StdioClientTransport } from ${JSON.stringify(join(sdk, "client", "stdio.js"))};
const c = new Client({ name: "floor", version: "1" }, { capabilities: {} });
const t = new StdioClientTransport({ command: ${JSON.stringify(node)}, args: [${JSON.stringify(everything)}, "stdio"] });
await c.connect(t);
const r = await c.callTool({ name: "echo", arguments: { message: "hi" } });
process.stdout.write(JSON.stringify(r) + "\\n");
await c.close();
process.exit(0);
`,
  );
  const built = Bun.spawnSync([process.execPath, "build", "--compile", "--minify", "--bytecode", "--format=esm", join(work, "floor.ts"), "--outfile", join(work, "floor")], { cwd: root, stderr: "pipe" });
  if (built.exitCode !== 0) throw new Error(`floor build failed: ${built.stderr}`);
  const ws = join(work, "ws");
  mkdirSync(ws);
  writeFileSync(join(ws, "toolgate.json"), JSON.stringify({ mcpServers: { everything: { command: node, args: [everything, "stdio"] } }, las: { shutdown_grace_secs: 10 } }));
  Bun.spawnSync([bin, "tools", "--allow-run"], { cwd: ws, env }); // warm the catalog cache
  const peers = join(peersDir, "node_modules", ".bin");
  const cases: [string, string[], number][] = [
    ["floor: minimal SDK client (compiled)", [join(work, "floor")], runs],
    ["toolgate call everything__echo", [bin, "call", "everything__echo", '{"message":"hi"}', "--allow-run", "--approve", "all"], runs],
    ...(baseline ? ([["toolgate (BENCH_BASELINE) call", [baseline, "call", "everything__echo", '{"message":"hi"}', "--allow-run", "--approve", "all"], runs]] as [string, string[], number][]) : []),
    ["mcporter call", [join(peers, "mcporter"), "call", "--stdio", node, "--stdio-arg", everything, "--stdio-arg", "stdio", "--server", "everything", "--tool", "echo", "message=hi", "--output", "json"], Math.max(3, Math.ceil(runs / 2))],
    ["inspector --cli tools/call", [join(peers, "mcp-inspector"), "--cli", node, everything, "stdio", "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi"], Math.max(3, Math.ceil(runs / 3))],
  ];
  const samples = new Map(cases.map(([n]) => [n, { result: [] as number[], total: [] as number[] }]));
  const rounds = Math.max(...cases.map(([, , n]) => n));
  for (let i = 0; i <= rounds; i++) {
    for (const [name, cmd, n] of cases) {
      if (i > n) continue;
      const t = await timed(cmd, ws, env);
      if (i === 0) continue; // warm-up
      samples.get(name)!.result.push(t.result);
      samples.get(name)!.total.push(t.total);
    }
  }
  const floor = median(samples.get(cases[0]![0])!.result);
  console.log("one everything__echo call, cold server; medians: time to result / whole process");
  const report: Record<string, unknown> = {};
  for (const [name] of cases) {
    const s = samples.get(name)!;
    const r = median(s.result);
    console.log(`${name.padEnd(40)} ${r.toFixed(0).padStart(6)} ms  (+${(r - floor).toFixed(0)} over floor)  whole ${median(s.total).toFixed(0).padStart(6)} ms  n=${s.result.length}`);
    report[name] = { result_ms: +r.toFixed(1), over_floor_ms: +(r - floor).toFixed(1), whole_ms: +median(s.total).toFixed(1), n: s.result.length };
  }
  console.log(JSON.stringify(report));

  // `tools` with three configured servers and a warm cache vs the built-ins-only listing.
  const three = join(work, "three");
  mkdirSync(three);
  const server = { command: node, args: [everything, "stdio"] };
  writeFileSync(join(three, "toolgate.json"), JSON.stringify({ mcpServers: { one: server, two: server, three: server } }));
  Bun.spawnSync([bin, "tools", "--allow-run"], { cwd: three, env });
  const bare = join(work, "bare");
  mkdirSync(bare);
  const listing = { three: [] as number[], bare: [] as number[] };
  for (let i = 0; i <= 30; i++) {
    for (const [k, cwd] of [["three", three], ["bare", bare]] as const) {
      const t0 = performance.now();
      const p = Bun.spawn([bin, "tools", "--json"], { cwd, env, stdout: "pipe", stderr: "pipe" });
      await new Response(p.stdout).arrayBuffer();
      if ((await p.exited) !== 0) throw new Error(`tools in ${k} failed`);
      if (i > 0) listing[k].push(performance.now() - t0);
    }
  }
  const [m3, mb] = [median(listing.three), median(listing.bare)];
  console.log(`\ntoolgate tools --json: three servers, warm cache ${m3.toFixed(1)} ms; built-ins only ${mb.toFixed(1)} ms; difference ${(m3 - mb).toFixed(1)} ms (n=30)`);
  console.log(JSON.stringify({ tools_three_warm_ms: +m3.toFixed(1), tools_builtins_ms: +mb.toFixed(1), diff_ms: +(m3 - mb).toFixed(1) }));
} finally {
  rmSync(work, { recursive: true, force: true });
}
