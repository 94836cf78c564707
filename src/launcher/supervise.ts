// A spawned child from start to reaping: both streams drained concurrently into their captures,
// the deadline and the cancel signal end the whole tree, the tree is sampled while it runs (to
// keep hold of members that leave the group), and what outlives the leader is ended too.
import type { Subprocess } from "bun";
import { StreamCapture } from "./capture.ts";
import { endTree, type TreeEnded } from "./end-tree.ts";
import { holdersOf, outputIds, ProcessTree } from "./proc-tree.ts";
import { reap } from "./subreaper.ts";
import type { ArtifactSink, Ending, Execution, LaunchOutcome, Redactor, StreamName } from "./types.ts";

/** After the tree is gone, how long the streams may take to reach their end before looking for holders. */
const DRAIN_WAIT_MS = 250;
/** Tree samples start this soon and back off to SAMPLE_MAX_MS: early daemonizing is the usual escape. */
const SAMPLE_FIRST_MS = 10;
const SAMPLE_MAX_MS = 1_000;

export interface Supervised {
  readonly proc: Subprocess<"ignore" | "pipe" | Uint8Array, "pipe", "pipe">;
  /** Opens a stream's artifact (called at its first output). */
  readonly artifact: (stream: StreamName) => () => ArtifactSink;
  readonly redactor: () => Redactor | null;
  readonly deadlineMs: number;
  readonly graceMs: number;
  readonly signal: AbortSignal | undefined;
  readonly startedAt: number;
  readonly now: () => number;
  /** Redacted output as it is drained (LaunchWatch.output). */
  readonly output?: (stream: StreamName, text: string) => void;
}

export async function supervise(run: Supervised): Promise<LaunchOutcome> {
  const { proc } = run;
  const tree = new ProcessTree(proc.pid);
  // What the child's stdout and stderr are, to find who still holds them after it ended; learnt
  // once it runs (first output or first sample), never at spawn, where reading would wait on exec.
  let ids: string[] = [];
  let leaderDone = false;
  const learnIds = () => {
    if (ids.length === 0 && !leaderDone) ids = outputIds(proc.pid);
  };
  const heard = (stream: StreamName) => (run.output ? (text: string) => run.output!(stream, text) : undefined);
  const out = new StreamCapture(run.artifact("stdout"), run.redactor(), undefined, heard("stdout"));
  const err = new StreamCapture(run.artifact("stderr"), run.redactor(), undefined, heard("stderr"));
  const drains = [drain(proc.stdout, out, learnIds), drain(proc.stderr, err, learnIds)];
  let drainedNow = false;
  const drained = Promise.all(drains.map((d) => d.done)).then(() => void (drainedNow = true));

  // Set once, by whichever of deadline and cancel comes first while the leader runs.
  const stopped: { reason: "timeout" | "cancelled"; ending: Promise<TreeEnded> }[] = [];
  const stop = (reason: "timeout" | "cancelled") => {
    if (stopped.length > 0 || leaderDone) return;
    stopped.push({ reason, ending: endTree(tree, run.graceMs) });
  };
  const timer = Number.isFinite(run.deadlineMs) ? setTimeout(() => stop("timeout"), run.deadlineMs) : undefined;
  const onAbort = () => stop("cancelled");
  run.signal?.addEventListener("abort", onAbort, { once: true });
  const stopSampling = sampleWhileRunning(tree, learnIds);

  try {
    await proc.exited;
  } finally {
    leaderDone = true;
    clearTimeout(timer);
    run.signal?.removeEventListener("abort", onAbort);
    stopSampling();
  }

  let survivors: readonly number[] = [];
  let leftovers = 0;
  const stop0 = stopped[0];
  if (stop0) survivors = (await stop0.ending).survivors;
  else if (tree.anyLive()) ({ signalled: leftovers, survivors } = await endTree(tree, run.graceMs));

  let outputAbandoned = false;
  if (!drainedNow && !(await within(drained, DRAIN_WAIT_MS))) {
    // Something still holds the child's stdout or stderr: it inherited them, so it is of the tree.
    const holders = holdersOf(ids).filter((pid) => tree.adopt(pid));
    if (holders.length > 0) {
      const ended = await endTree(tree, run.graceMs);
      leftovers += ended.signalled;
      survivors = [...new Set([...survivors, ...ended.survivors])];
    }
    if (!drainedNow && !(await within(drained, DRAIN_WAIT_MS))) {
      outputAbandoned = true;
      for (const d of drains) d.cancel();
      await drained;
    }
  }

  // Ended orphans are toolgate's zombies now (it is their subreaper): collect them.
  if (tree.orphans.length > 0) await reap(tree.orphans);

  const stdout = out.end();
  const stderr = err.end();
  const execution: Execution = {
    ...endingOf(proc, stop0?.reason ?? null),
    pid: proc.pid,
    durationMs: run.now() - run.startedAt,
    stdout,
    stderr,
    artifacts: { stdout: out.path, stderr: err.path },
    leftovers,
    survivors,
    outputAbandoned,
  };
  const failed =
    out.error !== null
      ? ({ stream: "stdout", error: out.error } as const)
      : err.error !== null
        ? ({ stream: "stderr", error: err.error } as const)
        : null;
  if (failed) {
    return {
      ok: false,
      refusal: {
        code: "launch.artifact_error",
        message:
          `the ${failed.stream} artifact could not be written (${failed.error}), so the run's full output is ` +
          `not on record; check the state folder's permissions and free space`,
        details: { ...failed, execution },
      },
    };
  }
  return { ok: true, value: execution };
}

function endingOf(proc: Subprocess, reason: "timeout" | "cancelled" | null): Ending {
  if (reason !== null) return { ended: reason };
  if (proc.signalCode !== null) return { ended: "signalled", signal: String(proc.signalCode) };
  return { ended: "exited", code: proc.exitCode ?? -1 };
}

interface Drain {
  readonly done: Promise<void>;
  cancel(): void;
}

function drain(stream: ReadableStream<Uint8Array>, capture: StreamCapture, onFirstChunk: () => void): Drain {
  const reader = stream.getReader();
  const done = (async () => {
    for (let first = true; ; first = false) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch {
        return; // cancelled or broken: what was read is kept
      }
      if (chunk.done) return;
      if (first) onFirstChunk();
      capture.push(chunk.value);
    }
  })();
  return { done, cancel: () => void reader.cancel().catch(() => {}) };
}

/** Samples the tree with a backing-off timer; a child that ends first costs nothing. */
function sampleWhileRunning(tree: ProcessTree, beforeEach: () => void): () => void {
  let delay = SAMPLE_FIRST_MS;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    if (stopped) return;
    beforeEach();
    tree.sample();
    delay = Math.min(delay * 2, SAMPLE_MAX_MS);
    timer = setTimeout(tick, delay);
  };
  timer = setTimeout(tick, delay);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([p.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
