// serve's hand-written fast path for tools/call (src/serve/dispatch.ts) against the SDK's own path
// (run on demand, not in `bun test`). In this one process, serve's served parts are started twice
// the way the in-process tests start them (test/support/serve-in-memory.ts: the command's own
// startServe, an SDK Client over the SDK's InMemoryTransport): once as serve runs, and once with
// the fast path left out, every call then parsed and dispatched by the SDK's Server through the
// handler set with setRequestHandler (the same handler the fast path calls). Product code offers
// no switch: the SDK's Protocol.connect sets the transport's onmessage and onclose and then calls
// its start(), after which the hub wraps both (dispatch.ts's fastCalls); here, for the SDK's path,
// the transport's start records what the SDK set and the two are put back once the hub connected.
// Each round, each path in turn (the order swapping every round) runs BENCH_CALLS sequential calls
// of plan, then of file_read on a small file: per-call wall time (p50, p99) and this process's CPU
// time per call (process.cpuUsage, user + system, all threads; steadier than wall time on a
// loaded machine). Printed: per round, then the medians over BENCH_ROUNDS rounds (default 5) and
// the median of the rounds' own ratios (SDK / fast path). BENCH_CALLS defaults to 2000; a warm-up
// round of BENCH_CALLS / 4 calls per tool and path is not counted.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scanFlags, type Args } from "../src/cli/flags.ts";
import serveCommand from "../src/cli/serve.ts";
import { startServe, type Started } from "../src/cli/serve-start.ts";
import { loadavg, median, quantile } from "./bench-lib.ts";

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ARGS = ["--allow-read", "--approve", "file_read"];
const TOOLS = [
  { tool: "plan", args: {} },
  { tool: "file_read", args: { path: "README.md" } },
] as const;
type Path = "fast path" | "SDK path";
const PATHS: Path[] = ["fast path", "SDK path"];

interface Served {
  client: Client;
  started: Started;
  close(): Promise<void>;
}

/** serve's parts in process, a Client connected; `sdkOnly`: the transport's handlers as the SDK's connect left them. */
async function start(dir: string, sdkOnly: boolean): Promise<Served> {
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  mkdirSync(ws, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(ws, "README.md"), "# bench\n\nsome text\n".repeat(20));
  const env = { PATH: "/usr/bin:/bin", HOME: home, XDG_STATE_HOME: join(home, "state"), CI: "true" };
  const flags = scanFlags(ARGS, (serveCommand.args ?? {}) as Args);
  const ctx = { argv: ARGS, flags, cwd: ws, env, stdoutIsTTY: false, readStdin: async () => "" };
  let operatorLines = 0;
  const started = await startServe(ctx, flags, { operator: () => void operatorLines++ });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  let sdk: Pick<Transport, "onmessage" | "onclose"> | undefined;
  const startTransport = serverSide.start.bind(serverSide);
  serverSide.start = () => {
    sdk = { onmessage: serverSide.onmessage, onclose: serverSide.onclose };
    return startTransport();
  };
  await started.hub.connect(serverSide, { sessionApprovals: false });
  if (!sdk?.onmessage || serverSide.onmessage === sdk.onmessage)
    throw new Error("the hub did not install its fast path as expected");
  if (sdkOnly) Object.assign(serverSide, sdk);
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(clientSide);
  const close = async () => {
    await client.close();
    await started.hub.drain(10_000);
    await started.hub.close();
    await started.close();
    if (operatorLines > 0) console.log(`  (${operatorLines} operator lines)`);
  };
  return { client, started, close };
}

interface Sample {
  p50: number;
  p99: number;
  /** µs of this process's CPU per call. */
  cpu: number;
}

async function batch(s: Served, tool: string, args: object, n: number): Promise<Sample> {
  Bun.gc(true);
  const each: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await s.client.callTool({ name: tool, arguments: args as Record<string, unknown> });
    each.push((performance.now() - t0) * 1000);
    if (r.isError) throw new Error(`${tool}: ${JSON.stringify(r).slice(0, 300)}`);
  }
  const cpu = process.cpuUsage(cpu0);
  return { p50: median(each), p99: quantile(each, 0.99), cpu: (cpu.user + cpu.system) / n };
}

const work = mkdtempSync(join(tmpdir(), "toolgate-bench-dispatch-"));
const served = new Map<Path, Served>();
try {
  served.set("fast path", await start(join(work, "fast"), false));
  served.set("SDK path", await start(join(work, "sdk"), true));
  console.log(
    `serve tools/call in process, fast path (src/serve/dispatch.ts) against the SDK's; ${CALLS} calls a batch, ${ROUNDS} rounds; load ${loadavg()}`,
  );
  for (const p of PATHS)
    for (const t of TOOLS) await batch(served.get(p)!, t.tool, t.args, Math.max(1, Math.floor(CALLS / 4)));
  const key = (p: Path, tool: string) => `${tool}, ${p}`;
  const samples = new Map<string, Sample[]>(
    TOOLS.flatMap((t) => PATHS.map((p) => [key(p, t.tool), []] as [string, Sample[]])),
  );
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...PATHS].reverse() : PATHS;
    for (const t of TOOLS)
      for (const p of order) {
        const s = await batch(served.get(p)!, t.tool, t.args, CALLS);
        samples.get(key(p, t.tool))!.push(s);
        console.log(
          `  round ${round + 1} ${key(p, t.tool).padEnd(22)} p50 ${s.p50.toFixed(0)} µs, p99 ${s.p99.toFixed(0)} µs, CPU ${s.cpu.toFixed(0)} µs/call`,
        );
      }
  }
  const us = (x: number) => `${x.toFixed(0)} µs`;
  console.log(`medians over ${ROUNDS} rounds (p10..p90 of the rounds); load ${loadavg()}`);
  for (const t of TOOLS) {
    for (const p of PATHS) {
      const xs = samples.get(key(p, t.tool))!;
      const f = (k: keyof Sample) => xs.map((x) => x[k]);
      const spread = (k: keyof Sample) =>
        `${us(median(f(k)))} (${quantile(f(k), 0.1).toFixed(0)}..${quantile(f(k), 0.9).toFixed(0)})`;
      console.log(
        `  ${key(p, t.tool).padEnd(22)} p50 ${spread("p50")}, p99 ${spread("p99")}, CPU/call ${spread("cpu")}`,
      );
    }
    const fast = samples.get(key("fast path", t.tool))!;
    const sdk = samples.get(key("SDK path", t.tool))!;
    const ratio = (k: keyof Sample) => {
      const rs = sdk.map((x, i) => x[k] / fast[i]![k]);
      return `${median(rs).toFixed(2)}x (rounds ${Math.min(...rs).toFixed(2)}..${Math.max(...rs).toFixed(2)})`;
    };
    const less = median(sdk.map((x, i) => x.cpu - fast[i]!.cpu));
    console.log(
      `  ${t.tool}: SDK / fast path: CPU/call ${ratio("cpu")}, p50 ${ratio("p50")}, p99 ${ratio("p99")}; the fast path saves ${us(less)} CPU a call`,
    );
  }
} finally {
  for (const s of served.values()) await s.close();
  rmSync(work, { recursive: true, force: true });
}
