// `toolgate serve` benchmark (run on demand, not in `bun test`), side by side with a floor built in
// the same run: scripts/bench-serve-floor.ts (the SDK's low-level Server answering `echo`) compiled
// with toolgate's build flags. One client: raw newline-delimited JSON-RPC over the child's pipes
// (no SDK Client, so the client's own overhead stays out of both figures).
//   1. 1,000 sequential tools/call (after 50 warm-up calls) per process: serve runs plan (no
//      permission, the lane store, the journal's two rows) and file_read (--allow-read
//      --approve file_read: a permission and a file), the floors echo: the low-level Server
//      (bench-serve-floor.ts) and McpServer with a zod input schema (bench-serve-floor-mcp.ts, the
//      floor); calls/s, p50, p99. BENCH_ROUNDS rounds (default 7), each case once
//      per round in turn, the machine's load average printed per round; per case the median round
//      (by calls/s), and serve's ratio to each floor as the median of the rounds' own ratios.
//   2. Peak RSS (VmHWM of /proc/PID/status) of serve's own process: after those calls with
//      built-ins only, and with the fixture Las and two server-everything children attached.
//   3. Cold spawn → initialize → tools/list answered, serve with built-ins vs the floor: medians
//      of BENCH_RUNS (default 20) interleaved runs.
//   4. Where serve's per-call time goes, in this process (same code, not the binary): the whole
//      pipeline (invoke with serve's wiring, no transport), and its journal rows alone.
//   5. The same through the binary: p50 and mean round trip of ping (no handler), a call of an
//      unknown name (refused: one journal row), plan (two rows, the lane store) and file_read, for
//      serve and the floor; then file_read again with the state folder on tmpfs (/dev/shm).
//   6. The gateway's relay: p50 of resources/read and prompts/get sent to the
//      conformance fixture server directly and through serve (the fixture its stdio upstream);
//      target: a relayed request at most 300 µs (p50) over the direct one.
// On a small, shared VM a sequential round trip is mostly the scheduler waking the other process on
// the other core (rounds vary 2-3x); `taskset -c 1 bun scripts/bench-serve.ts` puts client and
// server on one core, so a round trip measures the work both do per call (rounds within ~5%).
// Targets: serve plan ≥ 70% of the floor's calls/s, p99 < 2 ms, RSS < 80 MB, cold within 30 ms.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scanFlags } from "../src/cli/flags.ts";
import { boot } from "../src/runtime/boot.ts";
import { approvedSet, callDeps } from "../src/runtime/call-deps.ts";
import { invoke } from "../src/runtime/invoke.ts";
import { openState } from "../src/state/db.ts";
import { callJournal, selfMark } from "../src/state/journal.ts";

const root = join(import.meta.dir, "..");
// BENCH_BIN: the binary under test (default dist/toolgate), e.g. an older build for a before/after in one sitting.
const bin = process.env.BENCH_BIN ?? join(root, "dist", "toolgate");
const everything = join(root, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const las = join(root, "test", "fixtures", "las", "server.ts");
const node = Bun.which("node") ?? "/usr/bin/node";
const runs = Number(process.env.BENCH_RUNS ?? 20);
const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WARMUP = 50;
const work = mkdtempSync(join(tmpdir(), "toolgate-bench-serve-"));
/** BENCH_OTEL=1: a loopback OTLP receiver that counts the export requests it is sent. */
const collector = process.env.BENCH_OTEL
  ? (() => {
      const c = { port: 0, requests: 0 };
      c.port = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch: async (req) => (await req.arrayBuffer(), c.requests++, new Response("")),
      }).port!;
      return c;
    })()
  : undefined;

/** One MCP peer over newline JSON-RPC: requests are answered by id, in any order. */
class Peer {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  private next = 1;
  private readonly pending = new Map<number, (m: any) => void>();
  private err = "";

  constructor(cmd: string[], cwd: string, env: Record<string, string>) {
    this.proc = Bun.spawn(cmd, { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    void this.read();
    void this.collect(this.proc.stderr);
  }

  private async collect(stderr: ReadableStream<Uint8Array>) {
    for await (const c of stderr) this.err += new TextDecoder().decode(c);
  }

  private async read() {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of this.proc.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim() === "") continue;
        const m = JSON.parse(line);
        if (typeof m.id === "number" && ("result" in m || "error" in m)) this.pending.get(m.id)?.(m);
        this.pending.delete(m.id);
      }
    }
    for (const [, settle] of this.pending) settle({ error: { message: `the process ended; stderr: ${this.err}` } });
  }

  request(method: string, params: object = {}): Promise<any> {
    const id = this.next++;
    const answer = new Promise<any>((resolve) => this.pending.set(id, resolve));
    this.proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    this.proc.stdin.flush();
    return answer.then((m) => {
      if (m.error) throw new Error(`${method}: ${JSON.stringify(m.error)}`);
      return m.result;
    });
  }

  notify(method: string) {
    this.proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`);
    this.proc.stdin.flush();
  }

  async initialize() {
    await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "bench", version: "1" },
    });
    this.notify("notifications/initialized");
  }

  /** Peak resident set of this process so far, in MB. */
  peakRssMb(): number {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.proc.pid}/status`, "utf8"));
    return Number(m![1]) / 1024;
  }

  async close() {
    this.proc.stdin.end();
    const code = await this.proc.exited;
    if (code !== 0) throw new Error(`exited ${code}: ${this.err}`);
  }
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], f: number) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * f))]!;

interface Case {
  readonly name: string;
  readonly cmd: string[];
  readonly tool: string;
  readonly args: object;
  /** Added to the environment (BENCH_OTEL: telemetry on). */
  readonly env?: Record<string, string>;
}

interface Round {
  readonly callsPerSec: number;
  readonly p50: number;
  readonly p99: number;
  readonly rssMb: number;
}

/** Warm-up, then CALLS sequential calls, each awaited before the next is sent. */
async function throughput(c: Case, cwd: string, env: Record<string, string>): Promise<Round> {
  const peer = new Peer(c.cmd, cwd, { ...env, ...c.env });
  await peer.initialize();
  const params = { name: c.tool, arguments: c.args };
  const first = await peer.request("tools/call", params);
  if (first.isError) throw new Error(`${c.name}: ${JSON.stringify(first)}`);
  for (let i = 1; i < WARMUP; i++) await peer.request("tools/call", params);
  const lat: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    const r = await peer.request("tools/call", params);
    lat.push(performance.now() - t);
    if (r.isError) throw new Error(`${c.name} call ${i}: ${JSON.stringify(r)}`);
  }
  const total = performance.now() - t0;
  const rssMb = peer.peakRssMb();
  await peer.close();
  return { callsPerSec: (CALLS * 1000) / total, p50: pct(lat, 0.5), p99: pct(lat, 0.99), rssMb };
}

/** Spawn to tools/list answered; the exit is waited for but not counted. */
async function cold(cmd: string[], cwd: string, env: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const peer = new Peer(cmd, cwd, env);
  await peer.initialize();
  const { tools } = await peer.request("tools/list");
  const ms = performance.now() - t0;
  if (tools.length === 0) throw new Error(`${cmd.join(" ")}: no tools`);
  await peer.close();
  return ms;
}

try {
  // Built in a child process, like scripts/bench.ts: the bundler would grow this process.
  const compile = (script: string, out: string) => {
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
        join(import.meta.dir, script),
        "--outfile",
        out,
      ],
      { stdout: "ignore", stderr: "pipe" },
    );
    if (built.exitCode !== 0) throw new Error(`could not build ${script}: ${built.stderr.toString()}`);
    return out;
  };
  const floor = compile("bench-serve-floor.ts", join(work, "floor"));
  const floorMcp = compile("bench-serve-floor-mcp.ts", join(work, "floor-mcp"));
  const ws = join(work, "ws");
  Bun.spawnSync(["mkdir", "-p", ws, join(work, "home")]);
  writeFileSync(join(ws, "README.md"), "# bench\n\nsome text\n".repeat(20));
  const env = {
    PATH: "/usr/bin:/bin",
    HOME: join(work, "home"),
    XDG_STATE_HOME: join(work, "home", "state"),
    CI: "true",
  };
  const serveArgs = [bin, "serve", "--allow-read", "--approve", "file_read"];
  const cases: Case[] = [
    { name: "floor: bare SDK Server, echo", cmd: [floor], tool: "echo", args: { text: "hello" } },
    { name: "floor: bare SDK McpServer, echo", cmd: [floorMcp], tool: "echo", args: { text: "hello" } },
    { name: "toolgate serve, plan", cmd: serveArgs, tool: "plan", args: {} },
    { name: "toolgate serve, file_read", cmd: serveArgs, tool: "file_read", args: { path: "README.md" } },
    // BENCH_OTEL=1: file_read with telemetry on, spans batched to a loopback OTLP receiver (target: within 5%).
    ...(collector
      ? [
          {
            name: "serve, file_read, telemetry on",
            cmd: serveArgs,
            tool: "file_read",
            args: { path: "README.md" },
            env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}` },
          },
        ]
      : []),
  ];
  const [low, high, plan, read] = cases.map((c) => c.name) as [string, string, string, string];

  console.log(
    `1. ${CALLS} sequential tools/call per process (after ${WARMUP} warm-up calls), ${rounds} rounds, each case in turn (µs per call, mean):`,
  );
  const results = new Map<string, Round[]>(cases.map((c) => [c.name, []]));
  const loadAvg = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0]!;
  for (let r = 0; r < rounds; r++) {
    const line: string[] = [];
    for (const c of cases) {
      const x = await throughput(c, ws, env);
      results.get(c.name)!.push(x);
      line.push(`${c.name.replace(/^(floor: bare SDK |toolgate serve, )/, "")} ${(1e6 / x.callsPerSec).toFixed(0)}`);
    }
    console.log(`   round ${r + 1}, load ${loadAvg()}: ${line.join(", ")}`);
  }
  const report: Record<string, unknown> = {};
  const mid = (name: string) =>
    sorted(results.get(name)!.map((x) => x.callsPerSec)).map(
      (cps) => results.get(name)!.find((x) => x.callsPerSec === cps)!,
    )[Math.floor(rounds / 2)]!;
  for (const c of cases) {
    const m = mid(c.name);
    console.log(
      `   ${c.name.padEnd(32)} ${m.callsPerSec.toFixed(0).padStart(6)} calls/s  p50 ${(m.p50 * 1000).toFixed(0).padStart(5)} µs  p99 ${(m.p99 * 1000).toFixed(0).padStart(5)} µs  peak RSS ${m.rssMb.toFixed(1)} MB`,
    );
    report[c.name] = {
      calls_per_s: +m.callsPerSec.toFixed(0),
      p50_us: +(m.p50 * 1000).toFixed(0),
      p99_us: +(m.p99 * 1000).toFixed(0),
      peak_rss_mb: +m.rssMb.toFixed(1),
    };
  }
  // Each round's own ratio (the same minute of the machine), then their median.
  const ratioTo = (a: string, b: string) =>
    median(results.get(a)!.map((x, i) => x.callsPerSec / results.get(b)!.at(i)!.callsPerSec));
  for (const [name, key] of [
    [plan, "plan"],
    [read, "file_read"],
  ] as const) {
    console.log(
      `   serve ${key}: ${(ratioTo(name, low) * 100).toFixed(0)}% of the Server floor's calls/s, ${(ratioTo(name, high) * 100).toFixed(0)}% of the McpServer floor's (target ≥ 70%); p99 ${mid(name).p99.toFixed(2)} ms (target < 2 ms)`,
    );
    report[`ratio_${key}`] = { server: +ratioTo(name, low).toFixed(3), mcp_server: +ratioTo(name, high).toFixed(3) };
  }
  if (collector) {
    const on = ratioTo(cases[4]!.name, read);
    console.log(
      `   serve file_read, telemetry on: ${(on * 100).toFixed(1)}% of its calls/s without (target ≥ 95%); ${collector.requests} export requests received`,
    );
    report.telemetry_ratio = +on.toFixed(3);
  }

  // 2. With children attached: the fixture Las (under bun) and two server-everything (node).
  const cfg = join(work, "attached.json");
  writeFileSync(
    cfg,
    JSON.stringify({
      las: {
        enabled: true,
        command: process.execPath,
        entrypoint: las,
        agent_id: "bench",
        timeout_secs: 10,
        shutdown_grace_secs: 1,
        required_surfaces: ["echo"],
      },
      mcpServers: {
        everything: { command: node, args: [everything, "stdio"] },
        more: { command: node, args: [everything, "stdio"] },
      },
    }),
  );
  const attached = new Peer(
    [...serveArgs, "--config", cfg, "--workspace", ws, "--allow-run", "--approve", "all"],
    ws,
    env,
  );
  await attached.initialize();
  const { tools } = await attached.request("tools/list");
  const calls: [string, object][] = [
    ["echo__echo", { message: "hi" }],
    ["everything__echo", { message: "hi" }],
    ["more__echo", { message: "hi" }],
    ["file_read", { path: "README.md" }],
  ];
  for (const [name] of calls)
    if (!tools.some((t: { name: string }) => t.name === name)) throw new Error(`attached: ${name} is not served`);
  for (let i = 0; i < 250; i++) {
    for (const [name, args] of calls) {
      const r = await attached.request("tools/call", { name, arguments: args });
      if (r.isError) throw new Error(`attached ${name}: ${JSON.stringify(r)}`);
    }
  }
  const attachedRss = attached.peakRssMb();
  await attached.close();
  console.log(
    `2. peak RSS of serve's own process: ${mid(read).rssMb.toFixed(1)} MB with built-ins only; ${attachedRss.toFixed(1)} MB with Las and two MCP servers attached (${tools.length} tools, 1,000 calls across the four sources) (target < 80 MB)`,
  );
  report.attached_peak_rss_mb = +attachedRss.toFixed(1);

  // 3. Cold start to a listed catalog, interleaved.
  const coldCases: [string, string[]][] = [
    ["floor", [floor]],
    ["serve", [bin, "serve"]],
  ];
  const samples = new Map<string, number[]>(coldCases.map(([n]) => [n, []]));
  for (let i = 0; i <= runs; i++) {
    for (const [name, cmd] of coldCases) {
      const ms = await cold(cmd, ws, env);
      if (i > 0) samples.get(name)!.push(ms);
    }
  }
  const cf = median(samples.get("floor")!);
  const cs = median(samples.get("serve")!);
  console.log(
    `3. cold spawn → initialize → tools/list, median of ${runs}: floor ${cf.toFixed(1)} ms (${pct(samples.get("floor")!, 0.1).toFixed(1)}..${pct(samples.get("floor")!, 0.9).toFixed(1)}), serve ${cs.toFixed(1)} ms (${pct(samples.get("serve")!, 0.1).toFixed(1)}..${pct(samples.get("serve")!, 0.9).toFixed(1)}): +${(cs - cf).toFixed(1)} ms (target within 30 ms)`,
  );
  report.cold = { floor_ms: +cf.toFixed(1), serve_ms: +cs.toFixed(1), over_floor_ms: +(cs - cf).toFixed(1) };

  // 4. The pipeline without the transport, and the journal's share of it, in µs per call.
  const booted = await boot({
    cwd: ws,
    env,
    permissionFlags: scanFlags(["--allow-read"], {}).permissions,
    interactive: false,
  });
  const db = openState(booted.stateDir);
  const wiring = {
    booted,
    env,
    db: () => db,
    lane: "default",
    approved: approvedSet(["file_read"]),
    ask: undefined,
    operator: () => {},
    unstarted: (e: unknown): never => {
      throw e;
    },
    unfinished: (e: unknown) => {
      throw e;
    },
  };
  const row = {
    time_ms: Date.now(),
    tool: "file_read",
    origin: "builtin",
    digest: "0".repeat(64),
    effect: "read",
    status: "success",
    error_code: null,
    duration_ms: 1,
    args_preview: '{"path":"README.md"}',
    result_bytes: 245,
    detail: null,
  };
  const perCall = async (f: () => unknown) => {
    const xs: number[] = [];
    for (let r = 0; r < 5; r++) {
      const t = performance.now();
      for (let i = 0; i < CALLS; i++) await f();
      xs.push(((performance.now() - t) * 1000) / CALLS);
    }
    return median(xs);
  };
  const parts = {
    invoke_us: await perCall(async () => {
      const { envelope } = await invoke("file_read", { path: "README.md" }, callDeps(wiring));
      if (envelope.status !== "success") throw new Error(JSON.stringify(envelope));
    }),
    journal_rows_us: await perCall(() => {
      const j = callJournal(() => db, selfMark);
      j.started(row);
      j.finished(row);
    }),
    self_mark_us: await perCall(selfMark),
  };
  db.close();
  const floorUs = 1e6 / mid(low).callsPerSec;
  const serveUs = 1e6 / mid(read).callsPerSec;
  console.log(
    `4. per call: floor round trip ${floorUs.toFixed(0)} µs, serve round trip ${serveUs.toFixed(0)} µs (+${(serveUs - floorUs).toFixed(0)} µs); in process: the pipeline (invoke file_read) ${parts.invoke_us.toFixed(0)} µs, of which the journal's started + finished rows ${parts.journal_rows_us.toFixed(0)} µs (selfMark, read per row, ${parts.self_mark_us.toFixed(0)} µs)`,
  );
  report.per_call_us = {
    floor: +floorUs.toFixed(0),
    serve: +serveUs.toFixed(0),
    invoke: +parts.invoke_us.toFixed(0),
    journal_rows: +parts.journal_rows_us.toFixed(0),
    self_mark: +parts.self_mark_us.toFixed(1),
  };

  // 5. What a round trip costs by what it does, one process each (after the warm-up).
  const trips = async (peer: Peer, method: string, params: object) => {
    for (let i = 0; i < WARMUP; i++) await peer.request(method, params);
    const lat: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t = performance.now();
      await peer.request(method, params);
      lat.push((performance.now() - t) * 1000);
    }
    return { p50_us: Math.round(pct(lat, 0.5)), mean_us: Math.round(lat.reduce((a, b) => a + b, 0) / lat.length) };
  };
  const call = (name: string, args: object) => ["tools/call", { name, arguments: args }] as const;
  const floorPeer = new Peer([floor], ws, env);
  await floorPeer.initialize();
  const servePeer = new Peer(serveArgs, ws, env);
  await servePeer.initialize();
  const trip: Record<string, unknown> = {
    "floor ping": await trips(floorPeer, "ping", {}),
    "floor echo": await trips(floorPeer, ...call("echo", { text: "hello" })),
    "serve ping": await trips(servePeer, "ping", {}),
    "serve unknown tool": await trips(servePeer, ...call("no_such_tool", {})),
    "serve plan": await trips(servePeer, ...call("plan", {})),
    "serve file_read": await trips(servePeer, ...call("file_read", { path: "README.md" })),
  };
  await floorPeer.close();
  await servePeer.close();
  if (Bun.spawnSync(["test", "-d", "/dev/shm"]).exitCode === 0) {
    const shm = mkdtempSync("/dev/shm/toolgate-bench-");
    try {
      writeFileSync(join(shm, "cfg.json"), JSON.stringify({ workspace: ws, state: join(shm, "state") }));
      const onShm = new Peer([...serveArgs, "--config", join(shm, "cfg.json")], ws, env);
      await onShm.initialize();
      trip["serve file_read, state on tmpfs"] = await trips(onShm, ...call("file_read", { path: "README.md" }));
      await onShm.close();
    } finally {
      rmSync(shm, { recursive: true, force: true });
    }
  }
  console.log("5. round trip by what it does (p50 / mean µs):");
  for (const [k, v] of Object.entries(trip))
    console.log(
      `   ${k.padEnd(34)} ${String((v as { p50_us: number }).p50_us).padStart(5)} / ${String((v as { mean_us: number }).mean_us).padStart(5)}`,
    );
  report.round_trips = trip;

  // 6. The relay: the same requests to the fixture itself and through serve.
  const fixture = [process.execPath, join(root, "test", "fixtures", "mcp", "conformance-server.ts")];
  const gatewayCfg = join(work, "gateway.json");
  writeFileSync(
    gatewayCfg,
    JSON.stringify({ mcpServers: { fixture: { command: fixture[0], args: fixture.slice(1) } } }),
  );
  const relayed: Record<string, { p50_us: number; mean_us: number }> = {};
  const asks = [
    ["resources/read", { uri: "test://static-text" }, { uri: "test://static-text" }],
    ["prompts/get", { name: "test_simple_prompt" }, { name: "fixture__test_simple_prompt" }],
  ] as const;
  for (let r = 0; r < rounds; r++) {
    const direct = new Peer(fixture, ws, env);
    await direct.initialize();
    const via = new Peer([bin, "serve", "--config", gatewayCfg, "--allow-run"], ws, env);
    await via.initialize();
    for (const [method, own, served] of asks) {
      const d = await trips(direct, method, own);
      const v = await trips(via, method, served);
      for (const [k, x] of [
        [`direct ${method}`, d],
        [`relayed ${method}`, v],
      ] as const)
        if (!relayed[k] || x.p50_us < relayed[k]!.p50_us) relayed[k] = x;
    }
    await direct.close();
    await via.close();
  }
  console.log(`6. the relay, best of ${rounds} rounds (p50 / mean µs; target: relayed at most 300 µs over direct):`);
  for (const [method] of asks) {
    const d = relayed[`direct ${method}`]!;
    const v = relayed[`relayed ${method}`]!;
    console.log(
      `   ${method.padEnd(16)} direct ${d.p50_us} / ${d.mean_us}, relayed ${v.p50_us} / ${v.mean_us}: +${v.p50_us - d.p50_us} µs p50`,
    );
  }
  report.relay = relayed;
  console.log(JSON.stringify(report));
} finally {
  rmSync(work, { recursive: true, force: true });
}

// BENCH_OTEL=1: then telemetry off vs on, paired, with serve's CPU time by thread (scripts/bench-serve-otel.ts).
if (collector)
  Bun.spawnSync([process.execPath, join(import.meta.dir, "bench-serve-otel.ts")], {
    stdout: "inherit",
    stderr: "inherit",
  });
