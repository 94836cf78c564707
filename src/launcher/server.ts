// Long-lived children (MCP stdio servers, Las): started through the same scrubbed environment,
// new session and sandbox hook as every run, but with open pipes for a protocol. Shutdown is
// the seed's order: close stdin, wait the grace, then kill the whole tree; nothing survives.
import type { ChildEnv } from "./env.ts";
import { endTree, waitUntil } from "./end-tree.ts";
import { ProcessTree } from "./proc-tree.ts";
import { closeQuietly } from "./seccomp.ts";
import { ownChildren } from "./subreaper.ts";
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
}

export type StartOutcome = { readonly ok: true; readonly value: RunningServer } | { readonly ok: false; readonly refusal: { readonly code: "launch.spawn_failed"; readonly message: string } };

export function startServer(spec: ServerSpec): StartOutcome {
  const env = spec.env.vars;
  const argv = spec.sandbox ? [...spec.sandbox.wrap(spec.argv, { cwd: spec.cwd, env })] : [...spec.argv];
  let proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  let fds: readonly number[] = [];
  try {
    fds = spec.sandbox?.openFds?.() ?? [];
    // The wrapper's own descriptors (the seccomp program) follow stdin, stdout and stderr.
    proc = Bun.spawn(argv, { cwd: spec.cwd, env: { ...env }, detached: true, stdio: ["pipe", "pipe", "pipe", ...fds] }) as Bun.Subprocess<"pipe", "pipe", "pipe">;
  } catch (e) {
    spec.sandbox?.release?.();
    const errno = (e as { code?: string }).code ?? "EUNKNOWN";
    return { ok: false, refusal: { code: "launch.spawn_failed", message: `cannot start "${spec.argv[0]}" (${errno}) in ${spec.cwd}` } };
  } finally {
    fds.forEach(closeQuietly);
  }
  // Registered: a run's end never takes a server for one of its orphans.
  ownChildren.add(proc.pid);
  const tree = new ProcessTree(proc.pid);
  const redactor = spec.env.secrets.length > 0 ? spec.redactor(spec.env.secrets) : null;
  let tail = "";
  const drainErr = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) {
      const text = decoder.decode(chunk, { stream: true });
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
      stdout: proc.stdout,
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
    },
  };
}
