// Long-lived children (MCP stdio servers, Las): started (spawn.ts) with the same scrubbed environment,
// new session and sandbox hook as every run, but with open pipes for a protocol. Shutdown is
// the shutdown order: close stdin, wait the grace, then kill the whole tree; nothing survives.
import { closeQuietly } from "../fs/opened.ts";
import type { ChildEnv } from "./env.ts";
import { endTree, waitUntil } from "./end-tree.ts";
import { ProcessTree } from "./proc-tree.ts";
import { spawnChild } from "./spawn.ts";
import { ownChildren } from "./subreaper.ts";
import type { ReapOrder } from "./reaper.ts";
import type { Redactor, Sandbox } from "./types.ts";

const STDERR_TAIL_CHARS = 4_000;

export interface ServerSpec {
  readonly argv: readonly string[];
  readonly env: ChildEnv;
  readonly cwd: string;
  readonly sandbox?: Sandbox;
  /** Redactor for the bound secrets (stderr tail); the boundary stage's StreamRedactor. */
  readonly redactor: (secrets: readonly string[]) => Redactor;
}

export interface RunningServer {
  readonly pid: number;
  /** Write to the child's stdin. */
  write(data: string): Promise<void>;
  readonly stdout: ReadableStream<Uint8Array>;
  /** Close the child's stdin (the first step of a shutdown). */
  endInput(): void;
  /** The last few thousand characters of stderr, bound secrets redacted (shown when a start fails). */
  stderrTail(): string;
  /** Resolves with the exit code (null when signalled) once the leader is reaped. */
  readonly exited: Promise<number | null>;
  /**
   * Close stdin, wait up to `graceMs` for the child to leave, then kill what is left of its tree.
   * `killed` tells whether the grace ran out.
   */
  shutdown(graceMs: number): Promise<{ readonly killed: boolean }>;
  /**
   * The same shutdown, left to a process that outlives this one (reaper.ts): stdin closed now, this
   * process lets go of the child (its pipes, its handle), and the order says what to end after
   * `graceMs`. Null when nothing is left to end. Not for a sandboxed child: bwrap ends it with
   * this process (--die-with-parent), grace or not, so it is shut down here (shutdown()).
   */
  handOff(graceMs: number): ReapOrder | null;
}

export type StartOutcome =
  | { readonly ok: true; readonly value: RunningServer }
  | { readonly ok: false; readonly refusal: { readonly code: "launch.spawn_failed"; readonly message: string } };

export function startServer(spec: ServerSpec): StartOutcome {
  const env = spec.env.vars;
  const argv = spec.sandbox ? [...spec.sandbox.wrap(spec.argv, { cwd: spec.cwd, env })] : [...spec.argv];
  let proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  let fds: readonly number[] = [];
  try {
    fds = spec.sandbox?.openFds?.() ?? [];
    // The wrapper's own descriptors (the seccomp program) follow stdin, stdout and stderr.
    proc = spawnChild({ argv, cwd: spec.cwd, env, stdio: ["pipe", "pipe", "pipe", ...fds], session: "new" });
  } catch (e) {
    spec.sandbox?.release?.();
    const errno = (e as { code?: string }).code ?? "EUNKNOWN";
    return {
      ok: false,
      refusal: { code: "launch.spawn_failed", message: `cannot start "${spec.argv[0]}" (${errno}) in ${spec.cwd}` },
    };
  } finally {
    fds.forEach(closeQuietly);
  }
  // Registered: a run's end never takes a server for one of its orphans.
  ownChildren.add(proc.pid);
  const tree = new ProcessTree(proc.pid);
  const redactor = spec.env.secrets.length > 0 ? spec.redactor(spec.env.secrets) : null;
  let tail = "";
  // Readers held here, so that a hand-over can let go of the pipes (a pending read keeps a process alive).
  const errReader = proc.stderr.getReader();
  const outReader = proc.stdout.getReader();
  const stdout = new ReadableStream<Uint8Array>({
    async pull(c) {
      const r = await outReader.read().catch(() => ({ done: true as const, value: undefined }));
      if (r.done) c.close();
      else c.enqueue(r.value);
    },
    cancel: (why) => outReader.cancel(why),
  });
  const drainErr = (async () => {
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await errReader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      tail = (tail + (redactor ? redactor.push(text) : text)).slice(-STDERR_TAIL_CHARS);
    }
    if (redactor) tail = (tail + redactor.flush()).slice(-STDERR_TAIL_CHARS);
  })().catch(() => {});
  let inputOpen = true;
  const endInput = () => {
    if (!inputOpen) return;
    inputOpen = false;
    try {
      proc.stdin.end();
    } catch {
      // already closed by the child's exit
    }
  };
  const exited = proc.exited.then((code) => (proc.signalCode ? null : code));
  // The wrapper leads the sandbox's PID namespace: once it is gone, so is every process inside.
  if (spec.sandbox?.release) void exited.then(() => spec.sandbox!.release!());
  let done = false;
  void exited.then(() => {
    done = true;
    ownChildren.delete(proc.pid);
  });
  return {
    ok: true,
    value: {
      pid: proc.pid,
      async write(data) {
        if (!inputOpen) throw new Error("the server's stdin is closed");
        proc.stdin.write(data);
        await proc.stdin.flush();
      },
      stdout,
      endInput,
      stderrTail: () => tail,
      exited,
      async shutdown(graceMs) {
        tree.sample(); // remember the members while the leader is still there to find them by
        endInput();
        const left = await waitUntil(() => done && !tree.anyLive(), graceMs);
        if (!left) await endTree(tree, 0);
        await Promise.race([drainErr, Bun.sleep(100)]);
        return { killed: !left };
      },
      handOff(graceMs) {
        const snapshot = tree.snapshot(); // the members, seen while the leader is still there to find them by
        endInput();
        if (done && !tree.anyLive()) return null;
        void outReader.cancel().catch(() => {});
        void errReader.cancel().catch(() => {});
        proc.unref();
        return { tree: snapshot, until: Date.now() + graceMs };
      },
    },
  };
}
