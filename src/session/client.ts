// The client side of a session: find the workspace's socket, send the argv, print what comes back
// (byte for byte), exit with its code. Loads no catalog, arktype, SDK or SQLite: null = run cold.
import { closeSync, lstatSync, openSync, unlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { isCI } from "../config/ci.ts";
import { VERSION } from "../version.ts";
import { lineReader, Outbox, SOCKET_NAME, STATE_FOLDER, type Answer, type Request } from "./protocol.ts";
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
 * The socket of the session that may serve this workspace: looked for from --workspace, else from
 * where toolgate runs (a config named by --config never moves the workspace), upwards; owned by this user.
 */
export function findSocket(argv: readonly string[], cwd: string): string | null {
  const ws = flagValue(argv, "workspace");
  let dir = ws !== undefined ? resolve(cwd, ws) : cwd;
  const uid = process.getuid?.();
  for (let i = 0; i < 64; i++) {
    const path = join(dir, STATE_FOLDER, SOCKET_NAME);
    try {
      const st = lstatSync(path);
      if (st.isSocket() && (uid === undefined || st.uid === uid)) return path;
    } catch {
      // none here
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
export async function forward(argv: readonly string[], _at: number, cwd: string, env: Env): Promise<number | null> {
  const verbose = argv.includes("--verbose") || argv.includes("-v");
  const cold = (why: string) => {
    if (verbose) process.stderr.write(`toolgate: session: ${why}; running cold\n`);
    return null;
  };
  const path = findSocket(argv, cwd);
  if (path === null) return null;
  const request: Request = {
    t: "call",
    v: VERSION,
    argv: [...argv],
    cwd,
    env: { ...(env.TOOLGATE_CONFIG !== undefined ? { TOOLGATE_CONFIG: env.TOOLGATE_CONFIG } : {}), ...(env.CI !== undefined ? { CI: env.CI } : {}) },
    tty: process.stdout.isTTY === true,
    prompt: couldPrompt(argv, env),
  };
  const answered = await exchange(path, request, {
    onStdin: () => Bun.stdin.text(),
    out: (d) => void process.stdout.write(d),
    err: (d) => void process.stderr.write(d),
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
export async function exchange(path: string, request: Request, io: ExchangeIo, onStatus?: (s: unknown) => void): Promise<number | { why: string } | "stale"> {
  return await new Promise((done) => {
    let finished = false;
    let sock: { end(): void } | undefined;
    let box: Outbox | undefined;
    const finish = (v: number | { why: string } | "stale") => {
      if (finished) return;
      finished = true;
      process.off("SIGINT", cancel).off("SIGTERM", cancel);
      sock?.end();
      done(v);
    };
    const cancel = () => box?.send({ t: "cancel" });
    const read = lineReader((frame) => {
      const a = frame as Answer;
      if (a.t === "o") io.out(a.d);
      else if (a.t === "e") io.err(a.d);
      else if (a.t === "i") void io.onStdin().then((d) => box?.send({ t: "stdin", d }));
      else if (a.t === "q") void (io.onQuestion ?? askHere)(a.q).then((answer) => box?.send({ t: "answer", a: answer }));
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
          io.err("toolgate: the session ended before the call finished: it may or may not have run (toolgate log shows it)\n");
          finish(3);
        },
        error: () => undefined,
      },
    }).then(
      (s) => {
        sock = s;
        box = new Outbox(s);
        process.on("SIGINT", cancel).on("SIGTERM", cancel);
        box.send(request);
      },
      () => finish("stale"),
    );
  });
}
