// Runs one file_search job on this thread and, for large jobs, on worker threads too: every
// thread claims chunks of the sorted file list from a shared counter, so a worker that starts
// late (or never: a binary built without the worker entry) only means this thread does more.
// Chunks complete in order form a prefix; once it holds enough, everyone stops claiming.
import { loadBeneath } from "../../fs/beneath.ts";
import { claimChunks, NEXT, OPEN_FLAGS, Scanner, scanChunk, STOP, type ChunkResult, type Job, type JobMessage, type ScanSpec } from "./scan.ts";

export const CHUNK_FILES = 64;
/** Below this many files the job stays on this thread: handing it over costs more than it saves. */
const WORKER_MIN_FILES = 4 * CHUNK_FILES;
/** This thread yields this often, so worker results and the deadline get their turn. */
const YIELD_MS = 4;

export interface PoolInput {
  readonly base: string;
  readonly files: readonly string[];
  readonly spec: ScanSpec;
  readonly firstAfter: number;
  /** Stop once the completed prefix holds more than this many matches... */
  readonly enoughMatches: number;
  /** ...or more than this many bytes read. */
  readonly enoughBytes: number;
  readonly signal: AbortSignal;
}

/** Completed chunks, in order from the first: everything past them was not searched. */
export type Prefix = readonly ChunkResult[];

// In the compiled binary the worker is its own entry point at the root of the embedded
// file system (`tools/search/worker.ts` below `src/`); from source it sits beside this file.
const workerUrl = (): string =>
  import.meta.url.startsWith("file:///$bunfs/") ? "./tools/search/worker.ts" : new URL("./worker.ts", import.meta.url).href;

/** A worker thread started ahead of its job (its start-up overlaps the walk). */
export class Helper {
  private onResult: (r: ChunkResult) => void = () => {};
  private finish: () => void = () => {};
  private ended = false;
  /** Resolves when the worker has no more results: its job is done, or it failed or ended. */
  readonly settled: Promise<void>;

  private constructor(private readonly worker: Worker) {
    this.settled = new Promise((resolve) => (this.finish = resolve));
    const end = () => {
      this.ended = true;
      this.finish();
    };
    worker.onmessage = (e: MessageEvent<ChunkResult | "done">) => (e.data === "done" ? this.finish() : this.onResult(e.data));
    worker.onerror = end; // e.g. a binary built without the worker entry point
    worker.addEventListener("close", end);
  }

  /** One helper per spare core (at most 3); none when threads cannot be had. `url`: tests only. */
  static start(url = workerUrl(), count = Math.min(3, (navigator.hardwareConcurrency ?? 1) - 1)): Helper[] {
    const out: Helper[] = [];
    for (let i = 0; i < count; i++) {
      try {
        out.push(new Helper(new Worker(url)));
      } catch {
        break;
      }
    }
    return out;
  }

  give(message: JobMessage, onResult: (r: ChunkResult) => void): void {
    if (this.ended) return;
    this.onResult = onResult;
    this.worker.postMessage(message);
  }

  stop(): void {
    this.worker.terminate();
    this.ended = true;
    this.finish();
  }
}

/** Runs the job; `helpers` join in when it is large enough, and are always stopped by the end. */
export async function runPool(input: PoolInput, helpers: readonly Helper[]): Promise<Prefix> {
  const chunks = Math.ceil(input.files.length / CHUNK_FILES);
  const control = new Int32Array(new SharedArrayBuffer(8));
  const job: Job = { base: input.base, files: input.files, spec: input.spec, firstAfter: input.firstAfter, chunkSize: CHUNK_FILES, control };
  const done: (ChunkResult | undefined)[] = new Array(chunks);
  let prefix = 0;
  let matches = 0;
  let bytes = 0;
  const record = (r: ChunkResult) => {
    done[r.chunk] = r;
    while (prefix < chunks && done[prefix]) {
      matches += done[prefix]!.matches.length;
      for (const b of done[prefix]!.bytes) bytes += b;
      prefix++;
    }
    if (matches > input.enoughMatches || bytes > input.enoughBytes) Atomics.store(control, STOP, 1);
  };

  const workers = input.files.length >= WORKER_MIN_FILES ? helpers : [];
  for (const h of helpers) if (!workers.includes(h)) h.stop();
  let onAbort = () => {};
  const aborted = new Promise<void>((res) => (onAbort = res));
  const abort = () => {
    Atomics.store(control, STOP, 1);
    for (const h of workers) h.stop(); // also ends a pathological pattern mid-line
    onAbort();
  };
  if (input.signal.aborted) abort();
  input.signal.addEventListener("abort", abort);
  const scanners: Scanner[] = [];
  try {
    if (workers.length > 0) {
      // One string crosses a thread far faster than an array of many (NUL never occurs in a path).
      const message: JobMessage = { ...job, files: job.files.join("\0") };
      for (const h of workers) h.give(message, record);
    }
    // Many files: each is opened by openat2 below the root (no symlink on the way), worth loading bun:ffi for.
    const scanner = new Scanner(input.spec, input.base, input.files.length >= WORKER_MIN_FILES ? await loadBeneath(OPEN_FLAGS) : null);
    scanners.push(scanner);
    let yielded = performance.now();
    await claimChunks(job, scanner, (r) => {
      record(r);
      if (workers.length === 0 || performance.now() - yielded < YIELD_MS) return;
      return new Promise<void>((res) => setImmediate(res)).then(() => void (yielded = performance.now()));
    });
    await Promise.race([Promise.all(workers.map((h) => h.settled)), aborted]);
    if (input.signal.aborted) return [];
    // A chunk a worker claimed but never reported (it failed): search it here.
    const claimed = Math.min(chunks, Atomics.load(control, NEXT));
    for (let c = prefix; c < claimed; c++) if (!done[c]) record(scanChunk(scanner, job, c));
    return done.slice(0, prefix) as ChunkResult[];
  } finally {
    input.signal.removeEventListener("abort", abort);
    for (const h of workers) h.stop();
    for (const sc of scanners) sc.close();
  }
}
