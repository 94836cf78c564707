// Connecting to one MCP server: a stdio child started by the launcher (never by the SDK) or a
// Streamable HTTP endpoint. A connection that fails says why, with the child's stderr tail.
import { startServer } from "../launcher/server.ts";
import type { Connection, ConnectOptions, Target } from "./connection.ts";
import { openSession } from "./session.ts";
import { PipeTransport } from "./transport.ts";

export type { Connection, ConnectOptions, Declared, PolicyFetch, Target } from "./connection.ts";

/**
 * A failed connect shuts its child down as any other close does: stdin closed behind what was sent
 * last (the SDK's cancellation of a request that went unanswered), this long to read it and leave,
 * then what is left of its tree killed. Killed at once, a server never read the cancellation and
 * had no moment to clean up (the SDK's own stdio client waits 2 s). Only a server that outlives
 * its stdin makes the failure wait.
 */
const FAILED_CONNECT_GRACE_MS = 1_000;

export async function connectTarget(t: Target, opts: ConnectOptions): Promise<Connection> {
  // Loaded only for a server over HTTP (as the SDK's HTTP transports are).
  if (t.kind === "http") return (await import("./connect-http.ts")).connectHttp(t, opts);
  const started = startServer({
    argv: t.argv,
    env: t.env,
    cwd: t.cwd,
    redactor: opts.redactor,
    ...(t.sandbox ? { sandbox: t.sandbox } : {}),
  });
  if (!started.ok) throw new Error(started.refusal.message);
  const child = started.value;
  const transport = new PipeTransport(
    { write: (d) => child.write(d), stdout: child.stdout, endInput: () => child.endInput() },
    (line) => opts.onNoise?.(t.name, line),
  );
  const close = async (graceMs: number) => {
    await child.shutdown(graceMs);
  };
  try {
    const session = await openSession(transport, {
      pin: opts.pin,
      connectTimeoutMs: opts.connectTimeoutMs,
      version: opts.version,
      early: true,
      ...(opts.sampling ? { sampling: true } : {}),
      ...(opts.elicitation === false ? { elicitation: false } : {}),
    });
    const tools = await session.listTools(opts.requestTimeoutMs);
    const exit = child.exited.then((code) => (code === null ? "was killed by a signal" : `exited with status ${code}`));
    // stdout usually closes a moment before the exit is reaped: wait briefly to say which it was.
    // (The wait keeps nothing alive: a process that handed its child over exits without it.)
    const stdoutClosed = () => new Promise<string>((res) => setTimeout(() => res("closed its stdout"), 200).unref());
    const lost = Promise.race([exit, transport.closed.then(() => Promise.race([exit, stdoutClosed()]))]);
    // A sandboxed child dies with this process (bwrap --die-with-parent): no reaper could give it its grace.
    return {
      session,
      tools,
      child,
      close,
      lost,
      ...(t.sandbox ? {} : { handOff: (graceMs: number) => child.handOff(graceMs) }),
    };
  } catch (e) {
    await close(FAILED_CONNECT_GRACE_MS);
    const tail = child.stderrTail().trim();
    // connectTimeout (session.ts) kept: the caller's message names the key that sets it.
    throw Object.assign(
      new Error(`${(e as Error).message}${tail ? `; its stderr ends with: ${tail.slice(-600)}` : ""}`),
      { connectTimeout: (e as { connectTimeout?: boolean }).connectTimeout === true },
    );
  }
}
