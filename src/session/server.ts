// The session's listener: a Unix socket (0600, in the user's 0700 sessions folder) where each connection is
// one request. Calls run concurrently, each with its own output, stdin and cancellation.
import { chmodSync, unlinkSync } from "node:fs";
import { lineReader, Outbox, type ClientFrame, type Request } from "./protocol.ts";
import type { Question } from "../permission/prompt.ts";
import { Interrupted } from "../result/result.ts";

export interface CallIo {
  out(d: string): void;
  err(d: string): void;
  /** The client's stdin (asked for only when the call reads it). */
  readStdin(): Promise<string>;
  /** Asks at the client's terminal (a prompt); null when it gave no answer or went away. */
  ask(q: Question): Promise<string | null>;
  /** Aborted by the client's Ctrl-C (its reason an Interrupted naming the signal), or when the client goes away. */
  readonly signal: AbortSignal;
}

export interface SessionHandlers {
  /** A forwarded call: its exit code, or why this session does not serve it (the client runs it cold). */
  call(req: Extract<Request, { t: "call" }>, io: CallIo): Promise<number | { why: string }>;
  status(): unknown;
  stop(): void;
}

type Sock = { write(d: Uint8Array): number; end(): void; data: Conn };
interface Conn {
  box: Outbox;
  read: (chunk: Uint8Array) => void;
  abort: AbortController;
  stdin?: (d: string) => void;
  answer?: (a: string | null) => void;
  closing?: boolean;
  /** One request per connection. */
  started?: boolean;
}

export interface Listener {
  /** Stops taking connections; the open ones finish their answers. */
  stop(): void;
  /** Connections still open (a call running, or its answer still being written). */
  active(): number;
}

/**
 * `refuse`: why an accepted connection is not served (session/peer.ts: another uid, another
 * namespace), or null; a refused connection's request is never read. The caller has made sure
 * nothing answers at `path` (a stale socket there is replaced).
 */
export function listen(
  path: string,
  handlers: SessionHandlers,
  refuse?: ((sock: unknown) => string | null) | null,
): Listener {
  try {
    unlinkSync(path);
  } catch {
    // none
  }
  let open = 0;
  const old = process.umask(0o177);
  let server: ReturnType<typeof Bun.listen<Conn>>;
  try {
    server = Bun.listen<Conn>({
      unix: path,
      socket: {
        open(sock) {
          open++;
          const conn: Conn = { box: new Outbox(sock), abort: new AbortController(), read: () => undefined };
          sock.data = conn;
          const why = refuse ? refuse(sock) : null;
          if (why !== null) {
            // Whatever it sends is never read; it is told to run cold (as itself, not as this session's user).
            conn.started = true;
            // Answered once the client has sent something (its bytes are dropped unread), or after a
            // second: a refusal sent at once can close the socket before a slow client has seen its
            // connect complete, and Bun's client then reports a failed connect instead of the answer.
            let answered = false;
            const refused = () => {
              if (answered) return;
              answered = true;
              clearTimeout(timer);
              conn.box.send({ t: "c", why });
              if (conn.box.idle) sock.end();
              else conn.closing = true;
            };
            const timer = setTimeout(refused, 1000);
            conn.read = () => void setTimeout(refused, 0);
            return;
          }
          conn.read = lineReader((frame) => onFrame(sock as unknown as Sock, conn, frame));
        },
        data: (sock, chunk) => sock.data.read(chunk),
        drain: (sock) => {
          sock.data.box.drain();
          if (sock.data.closing && sock.data.box.idle) sock.end();
        },
        close: (sock) => {
          open--;
          sock.data.abort.abort();
          sock.data.answer?.(null);
        },
        error: () => undefined,
      },
    });
  } finally {
    process.umask(old);
  }
  chmodSync(path, 0o600);

  function onFrame(sock: Sock, conn: Conn, frame: unknown) {
    const f = frame as Request | ClientFrame;
    // The signal the client got is the reason: the call's result names it, and the client exits 130 or 143.
    if (f.t === "cancel")
      return conn.abort.abort(f.s === "SIGINT" || f.s === "SIGTERM" ? new Interrupted(f.s) : undefined);
    if (f.t === "stdin") return conn.stdin?.(f.d);
    if (f.t === "answer") {
      const settle = conn.answer;
      conn.answer = undefined;
      return settle?.(typeof f.a === "string" ? f.a : null);
    }
    if (conn.started) return;
    conn.started = true;
    const end = (last: unknown) => {
      conn.box.send(last);
      if (conn.box.idle) sock.end();
      else conn.closing = true;
    };
    if (f.t === "status") return end({ t: "s", status: handlers.status() });
    if (f.t === "stop") {
      end({ t: "s", status: handlers.status() });
      return handlers.stop();
    }
    if (f.t !== "call") return end({ t: "c", why: "an unknown request" });
    const io: CallIo = {
      out: (d) => conn.box.send({ t: "o", d }),
      err: (d) => conn.box.send({ t: "e", d }),
      readStdin: () =>
        new Promise((resolve) => {
          conn.stdin = resolve;
          conn.box.send({ t: "i" });
        }),
      signal: conn.abort.signal,
      // One question at a time: the call waits for each answer.
      ask: (q) =>
        new Promise((resolve) => {
          if (conn.abort.signal.aborted) return resolve(null);
          conn.answer = resolve;
          conn.box.send({ t: "q", q });
        }),
    };
    void handlers.call(f, io).then(
      (r) => end(typeof r === "number" ? { t: "x", code: r } : { t: "c", why: r.why }),
      (e) => {
        io.err(`toolgate: internal error in the session: ${String((e as Error)?.message ?? e)}\n`);
        end({ t: "x", code: 1 });
      },
    );
  }

  return {
    active: () => open,
    stop: () => {
      server.stop(false);
      try {
        unlinkSync(path);
      } catch {
        // gone already
      }
    },
  };
}
