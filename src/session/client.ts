// The client side of a session: find the workspace's socket, send the argv, print what comes back
// (byte for byte), exit with its code. Loads no catalog, arktype, SDK or SQLite: null = run cold.
import { closeSync, lstatSync, openSync, unlinkSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { isCI } from "../config/ci.ts";
import { isTerminal, READING_STDIN, writeStdout } from "../result/io.ts";
import { note, raw } from "../result/human.ts";
import { VERSION } from "../version.ts";
import { lineReader, Outbox, type Answer, type Request } from "./protocol.ts";
import { peerChecks, peerChecksUnavailable, type PeerChecks } from "./peer.ts";
import { realOr, sessionsFolder, socketFor, unfitSessions, within } from "./where.ts";
import type { Question } from "../permission/prompt.ts";

/** The prompt module is loaded only when the session has a question. */
const askHere = async (q: Question) => (await import("../permission/prompt.ts")).askQuestion("/dev/tty", q);

type Env = Readonly<Record<string, string | undefined>>;

/** A flag's value from argv (`--name X` or `--name=X`), before the command's own arguments too. */
function flagValue(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const t = argv[i]!;
    if (t === "--") return undefined;
    if (t === `--${name}`) return argv[i + 1];
    if (t.startsWith(`--${name}=`)) return t.slice(name.length + 3);
  }
  return undefined;
}

/**
 * The socket of the session that may serve this call: only in this user's own sessions folder
 * (0700, no link), the one of the workspace (`--workspace`, else where toolgate runs: a config
 * named by --config never moves the workspace) or of a folder above it; the session then checks
 * the workspace and config are its own. A socket anywhere else (a workspace's `.toolgate/`, where
 * a sandboxed command could plant one) is never looked at.
 */
export function findSocket(argv: readonly string[], cwd: string, env: Env): string | null {
  const folder = sessionsFolder(env);
  // The common cold case costs one lstat: no sessions folder, no session.
  if (folder === null || unfitSessions(folder) !== null) return null;
  const ws = flagValue(argv, "workspace");
  let dir = realOr(ws !== undefined ? resolve(cwd, ws) : cwd);
  const uid = process.getuid?.();
  for (let i = 0; i < 64; i++) {
    // A session never listens inside its own workspace.
    if (!within(dir, folder)) {
      const path = socketFor(folder, dir);
      try {
        const st = lstatSync(path);
        if (st.isSocket() && (uid === undefined || st.uid === uid)) return path;
      } catch {
        // none for this folder
      }
    }
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
  return null;
}

/** Whether this call could ask at a terminal: then the session asks here, through this client. */
function couldPrompt(argv: readonly string[], env: Env): boolean {
  if (argv.includes("--no-prompt") || isCI(env)) return false;
  try {
    closeSync(openSync("/dev/tty", "r+"));
    return true;
  } catch {
    return false;
  }
}

/** Forwards `argv` to a live session; the exit code, or null when none answers (run cold). */
/**
 * The client's variables a forwarded call runs with: its config and prompting, and the trace it continues
 * (telemetry).
 */
const FORWARDED_VARS = ["TOOLGATE_CONFIG", "CI", "TRACEPARENT", "TRACESTATE"] as const;

/**
 * `tools` on a terminal prints a table as wide as it: its width goes as COLUMNS (asked only then: the stream costs a
 * start).
 */
const tableWidth = (command: string | undefined, tty: boolean): { COLUMNS?: string } =>
  tty && command === "tools" && process.stdout.columns ? { COLUMNS: String(process.stdout.columns) } : {};

export async function forward(argv: readonly string[], at: number, cwd: string, env: Env): Promise<number | null> {
  const verbose = argv.includes("--verbose") || argv.includes("-v");
  const cold = (why: string) => {
    if (verbose) note(`session: ${why}; running cold`);
    return null;
  };
  const path = findSocket(argv, cwd, env);
  if (path === null) return null;
  const tty = isTerminal(1);
  const request: Request = {
    t: "call",
    v: VERSION,
    argv: [...argv],
    cwd,
    env: {
      ...Object.fromEntries(FORWARDED_VARS.flatMap((k) => (env[k] !== undefined ? [[k, env[k]]] : []))),
      ...tableWidth(argv[at], tty),
    },
    tty,
    prompt: couldPrompt(argv, env),
  };
  const answered = await exchange(path, request, {
    onStdin: () => {
      if (isTerminal(0) && !argv.includes("--quiet") && !argv.includes("-q")) raw(READING_STDIN);
      return Bun.stdin.text();
    },
    out: (d) => writeStdout(d),
    err: (d) => raw(d),
  });
  if (answered === "stale") {
    // Nobody listens: a session that was killed left its socket. Remove it, once.
    try {
      unlinkSync(path);
    } catch {
      // someone else did
    }
    return cold("the session is gone (stale socket removed)");
  }
  if (typeof answered === "object") return cold(answered.why);
  return answered;
}

export interface ExchangeIo {
  onStdin(): Promise<string>;
  /** Asks a question of the session's at this client's terminal (default: /dev/tty). */
  onQuestion?(q: Question): Promise<string | null>;
  out(d: string): void;
  err(d: string): void;
}

/**
 * One request over the socket. A call's exit code; {why} when the session says "run it cold";
 * "stale" when nothing listens. Ctrl-C (SIGINT/SIGTERM) is passed on as a cancel of this call only.
 */
export async function exchange(
  path: string,
  request: Request,
  io: ExchangeIo,
  onStatus?: (s: unknown) => void,
): Promise<number | { why: string } | "stale"> {
  const creds = await peerChecks();
  // A listener that cannot be checked is never connected to (nothing is sent, nothing accepted).
  const blind = peerChecksUnavailable(creds);
  if (blind !== null) return { why: blind };
  return await new Promise((done) => {
    let finished = false;
    let sock: { end(): void } | undefined;
    let box: Outbox | undefined;
    const finish = (v: number | { why: string } | "stale") => {
      if (finished) return;
      finished = true;
      process.off("SIGINT", onInt).off("SIGTERM", onTerm);
      sock?.end();
      done(v);
    };
    const onInt = () => box?.send({ t: "cancel", s: "SIGINT" });
    const onTerm = () => box?.send({ t: "cancel", s: "SIGTERM" });
    const read = lineReader((frame) => {
      const a = frame as Answer;
      if (a.t === "o") io.out(a.d);
      else if (a.t === "e") io.err(a.d);
      else if (a.t === "i") void io.onStdin().then((d) => box?.send({ t: "stdin", d }));
      else if (a.t === "q")
        void (io.onQuestion ?? askHere)(a.q).then((answer) => box?.send({ t: "answer", a: answer }));
      else if (a.t === "x") finish(a.code);
      else if (a.t === "c") finish({ why: a.why });
      else if (a.t === "s") {
        onStatus?.(a.status);
        finish(0);
      }
    });
    Bun.connect({
      unix: path,
      socket: {
        data: (_s, chunk) => read(chunk),
        drain: () => box?.drain(),
        close: () => {
          if (finished) return;
          // The session ended mid-call: the call may or may not have run; never run it again cold.
          io.err(
            "toolgate: the session ended before the call finished: it may or may not have run (toolgate " +
              "log shows it)\n",
          );
          finish(3);
        },
        error: () => undefined,
      },
    }).then(
      (s) => {
        // Nothing is sent before the listener is known to run as this user (its peer credentials).
        const why = creds ? listenerNotOurs(creds, s) : null;
        if (why !== null) {
          finish({ why });
          s.end();
          return;
        }
        sock = s;
        box = new Outbox(s);
        process.on("SIGINT", onInt).on("SIGTERM", onTerm);
        box.send(request);
      },
      () => finish("stale"),
    );
  });
}

/** Why the process listening at the other end of `sock` is not this user's session, or null. */
function listenerNotOurs(checks: PeerChecks, sock: unknown): string | null {
  const fd = checks.socketFd(sock);
  const peer = fd === null ? null : checks.read(fd);
  if (peer === null) return "cannot tell who listens on the session's socket";
  if (peer.pidfd >= 0) closeSync(peer.pidfd);
  const uid = process.getuid?.();
  return uid === undefined || peer.uid === uid
    ? null
    : `the session's socket is served by uid ${peer.uid}, not by this user (uid ${uid})`;
}
