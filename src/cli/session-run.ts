// The session process (`toolgate session __run`, started detached by `session start`): listens on
// the workspace's socket and runs each forwarded call as a cold call would run (main, with the
// client's argv, cwd and output), until idle, stopped, or its config or lock changes.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Effective } from "../config/resolve.ts";
import { configFolder, type ConfigFile } from "../config/file.ts";
import { LOCK_NAME } from "../catalog/lock.ts";
import { withSinks } from "../result/io.ts";
import { openRuntime } from "../runtime/runtime.ts";
import { ownLine } from "../result/human.ts";
import { ConnectionPool } from "../servers/pool.ts";
import { listen, type SessionHandlers } from "../session/server.ts";
import { peerChecks, peerChecksUnavailable, refusePeer } from "../session/peer.ts";
import type { Status } from "../session/protocol.ts";
import { realOr, sessionsFolder, socketFor, unfitSessions } from "../session/where.ts";
import { bootError } from "../result/result.ts";
import { VERSION } from "../version.ts";
import { bootInput, type RunContext } from "./context.ts";
import { checkState, openChecked } from "./state.ts";
import { telemetryFor } from "../telemetry/telemetry.ts";
import { KeptState } from "../session/kept-state.ts";
import type { Scanned } from "./flags.ts";

/** How long after its last call a session collects its garbage (once per burst of calls). */
const IDLE_COLLECT_MS = 500;
/**
 * Whether a full collection runs once the `calls`-th call is answered (and none is in flight):
 * after the 1st, 2nd, 4th, 8th, ... call. The first calls load most of what the session will hold
 * (the SDK and its schemas, a server's listing) and leave the most garbage; collected then, it does
 * not stay resident through the burst that follows (scripts/bench-session.ts: ~7 MB less right
 * after 100 calls), and a long burst pays a collection ever more rarely.
 */
const collectsAfter = (calls: number) => calls > 0 && (calls & (calls - 1)) === 0;
/**
 * The JIT's tier-up thresholds in a session, times the normal ones (the binary starts at 8). A
 * forwarded call is a short run of mostly run-once code; compiling what a few hundred calls repeat
 * held ~8 MB (the compilers' own code and what they made) for no faster call. At 100 a call that
 * loops over a large result still gets its hot code compiled after a few calls (a 40 KB file_read
 * is no slower than at 8; at 1,000 it was ~8% slower).
 */
const SESSION_JIT_POLICY = 100;

/** A forwarded call this session does not serve: the client runs it cold. */
class NotThisSession extends Error {
  override name = "NotThisSession";
  constructor(
    readonly why: string,
    readonly stale: boolean,
  ) {
    super(why);
  }
}

const read = (path: string) => {
  try {
    return readFileSync(path);
  } catch {
    return "";
  }
};

/** Which config this is (its file and workspace), and what it says (the file's and the lock's bytes). */
function identity(config: Effective, file: ConfigFile | null): { key: string; fingerprint: string } {
  const workspace = config.values.workspace;
  const lock = join(configFolder(file, workspace), LOCK_NAME);
  const h = createHash("sha256");
  h.update(file ? read(file.path) : "")
    .update("\0")
    .update(read(lock));
  return { key: `${workspace}\0${file?.path ?? ""}`, fingerprint: h.digest("hex") };
}

export async function runSessionProcess(ctx: RunContext, s: Scanned, idleSecs: number): Promise<number> {
  const t0 = Date.now();
  Bun.unsafe.setJITPolicy(SESSION_JIT_POLICY);
  const runMain = ctx.dispatch!;
  // Las and the MCP servers, started on a call's first use and kept while the session lives.
  const pool = new ConnectionPool();
  // The journal, opened on the first call and kept open (each call checks it is still the file).
  const kept = new KeptState();
  const stateDb = (config: Effective) => kept.get(config.values.state, () => openChecked(config));
  // A session that cannot tell who connects never listens (it would serve any process that reaches the socket).
  const checks = await peerChecks();
  const blind = peerChecksUnavailable(checks);
  if (blind !== null)
    throw bootError(
      `a session cannot start: ${blind}`,
      "calls run cold without a session; start one from an environment where the JIT is on",
    );
  // One boot with no grants: a config that cannot boot never starts a session.
  const rt = await openRuntime({
    ...bootInput(ctx, s),
    interactive: false,
    stateDb: undefined,
    state: { check: checkState, open: openChecked },
    telemetry: undefined,
  });
  await rt.close();
  const booted = rt.booted;
  const own = identity(booted.config, booted.file);
  // Where `session start` made sure it may listen (the user's 0700 sessions folder, not in the workspace).
  const folder = sessionsFolder(ctx.env);
  const unfit = folder === null ? "no user folder" : unfitSessions(folder);
  if (folder === null || unfit !== null)
    throw bootError(`a session cannot listen in ${unfit}`, "start it with toolgate session start");
  const socket = socketFor(folder, realOr(booted.workspace));
  // The forwarded calls' spans, exported by this process (the client's TRACEPARENT is each call's parent).
  const telemetry = telemetryFor(ctx.env, "live", ownLine);
  let calls = 0;
  let inFlight = 0;
  let last = Date.now();
  let stopping: ((why: string) => void) | undefined;
  const stopped = new Promise<string>((r) => (stopping = r));

  const handlers: SessionHandlers = {
    async call(req, io) {
      if (req.v !== VERSION) return { why: `the session runs toolgate ${VERSION}, this is ${req.v}` };
      inFlight++;
      try {
        const env: Record<string, string | undefined> = {
          ...ctx.env,
          TOOLGATE_CONFIG: req.env.TOOLGATE_CONFIG,
          CI: req.env.CI,
          TRACEPARENT: req.env.TRACEPARENT,
          TRACESTATE: req.env.TRACESTATE,
          COLUMNS: req.env.COLUMNS,
        };
        const gate = (config: Effective, file: ConfigFile | null) => {
          const id = identity(config, file);
          if (id.key !== own.key) throw new NotThisSession("the session serves another workspace or config", false);
          if (id.fingerprint !== own.fingerprint)
            throw new NotThisSession("the config or toolgate.lock changed since the session started", true);
        };
        const code = await withSinks({ out: io.out, err: io.err }, () =>
          runMain(req.argv, {
            cwd: req.cwd,
            env,
            stdoutIsTTY: req.tty,
            readStdin: io.readStdin,
            signal: io.signal,
            via: "session",
            gate,
            pool,
            stateDb,
            ...(req.prompt === true ? { ask: io.ask } : {}),
            ...(telemetry ? { telemetry } : {}),
          }),
        );
        calls++;
        // After the answer went out, while its client exits and the next one starts.
        if (collectsAfter(calls)) setTimeout(collectEarly, 0);
        return code;
      } catch (e) {
        if (!(e instanceof NotThisSession)) throw e;
        if (e.stale) stopping?.(e.why);
        return { why: e.why };
      } finally {
        inFlight--;
        last = Date.now();
      }
    },
    status: (): Status => ({
      pid: process.pid,
      version: VERSION,
      workspace: booted.workspace,
      socket,
      config: booted.file?.path ?? null,
      uptime_secs: Math.round((Date.now() - t0) / 1000),
      idle_secs: idleSecs,
      calls,
      in_flight: inFlight,
      rss_bytes: process.memoryUsage().rss,
      idle_collections: collections,
      early_collections: earlyCollections,
      servers: pool.alive(),
      env_bound: boundNames(booted.config),
    }),
    stop: () => stopping?.("stopped by toolgate session stop"),
  };
  // Peer credentials where the platform gives them: another user, or a process in another
  // namespace (a sandbox, a container), is refused even if it reached the socket.
  const uid = process.getuid?.();
  const listener = listen(
    socket,
    handlers,
    checks && uid !== undefined ? (sock) => refusePeer(checks, checks.socketFd(sock), uid) : null,
  );
  // Idle, or the config / lock edited: the session ends by itself (the next call runs cold).
  // Half a second or more after a burst of calls (at the next tick), one full collection: the garbage of the calls
  // served
  // would otherwise stay resident while the session waits, most of the time it lives.
  let collectedAt = 0;
  let collections = 0;
  let earlyCollections = 0;
  function collectEarly() {
    if (inFlight > 0) return;
    earlyCollections++;
    Bun.gc(true);
  }
  const tick = setInterval(
    () => {
      if (inFlight === 0 && calls !== collectedAt && Date.now() - last >= IDLE_COLLECT_MS) {
        collectedAt = calls;
        collections++;
        Bun.gc(true);
      }
      if (inFlight === 0 && Date.now() - last >= idleSecs * 1000) stopping?.(`idle for ${idleSecs} s`);
      else if (identity(booted.config, booted.file).fingerprint !== own.fingerprint)
        stopping?.("the config or toolgate.lock changed");
    },
    Math.min(1000, idleSecs * 250),
  );
  process.once("SIGTERM", () => stopping?.("SIGTERM")).once("SIGINT", () => stopping?.("SIGINT"));
  const why = await stopped;
  clearInterval(tick);
  listener.stop();
  ownLine(`toolgate: session stopping: ${why}`);
  // Calls in flight get the grace, then every child ends.
  const graceMs = booted.config.values.las.shutdown_grace_secs * 1000;
  for (let waited = 0; (inFlight > 0 || listener.active() > 0) && waited < graceMs; waited += 50) await Bun.sleep(50);
  await booted.remote?.shutdown();
  await pool.close(graceMs);
  await telemetry?.finish(1_000);
  kept.close();
  process.exit(0);
}

/** The ${NAME} variables the config's servers take from the session's environment (names only). */
function boundNames(config: Effective): string[] {
  const text = JSON.stringify({ las: config.values.las ?? null, mcp: config.values.mcpServers ?? null });
  return [...new Set([...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!))].sort();
}
