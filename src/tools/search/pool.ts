// Runs one file_search job on this thread and, for large jobs, on worker threads too: every
// thread claims chunks of the sorted file list from a shared counter, so a worker that starts
// late (or never: a binary built without the worker entry) only means this thread does more.
// The workers get the list in pieces while this thread is still walking the tree, and search
// the chunks they have whole meanwhile. Chunks complete in order form a prefix; once it holds
// enough, everyone stops claiming.
import { hostPlatform } from "../../platform/host.ts";
import {
  claimChunks,
  NEXT,
  OPEN_FLAGS,
  Scanner,
  scanChunk,
  STOP,
  type ChunkResult,
  type Job,
  type JobMessage,
  type MoreFiles,
  type ScanSpec,
} from "./scan.ts";

export const CHUNK_FILES = 64;
/** Below this many files the job stays on this thread: handing it over costs more than it saves. */
const WORKER_MIN_FILES = 4 * CHUNK_FILES;
/** While the walk runs, files go to the helpers in batches of at least this many. */
const POST_FILES = 2 * CHUNK_FILES;
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
  import.meta.url.startsWith("file:///$bunfs/")
    ? "./tools/search/worker.ts"
    : new URL("./worker.ts", import.meta.url).href;

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
    worker.onmessage = (e: MessageEvent<ChunkResult | "done">) =>
      e.data === "done" ? this.finish() : this.onResult(e.data);
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

  /** More files of the job given, in order. */
  more(message: MoreFiles): void {
    if (!this.ended) this.worker.postMessage(message);
  }

  stop(): void {
    this.worker.terminate();
    this.ended = true;
    this.finish();
  }
}

/** Runs the job; `helpers` join in when it is large enough, and are always stopped by the end. */
export function runPool(input: PoolInput, helpers: readonly Helper[]): Promise<Prefix> {
  const pool = new Pool({ ...input, firstAfter: () => input.firstAfter }, helpers);
  for (const f of input.files) pool.files.push(f);
  return pool.finish();
}

/** A pool's job before its file list is whole: where the first file's earlier lines were shown. */
export type PoolSetup = Omit<PoolInput, "files" | "firstAfter"> & { readonly firstAfter: (first: string) => number };

/**
 * A job whose sorted file list grows while the walk runs (`files`, then `offer`): once it is large
 * enough for the helpers, whole chunks go to them as they come, so they search while this thread
 * walks; `finish` hands over the rest, joins in, and answers the completed prefix.
 */
export class Pool {
  readonly files: string[] = [];
  /** Files handed to the helpers so far (-1: none yet). */
  private posted = -1;
  /** Shared with the helpers: [next chunk to claim, stop flag] (scan.ts NEXT, STOP). */
  readonly control = new Int32Array(new SharedArrayBuffer(8));
  private readonly done: (ChunkResult | undefined)[] = [];
  private prefix = 0;
  private matches = 0;
  private bytes = 0;
  private readonly aborted: Promise<void>;
  private readonly abort: () => void;

  constructor(
    private readonly input: PoolSetup,
    private readonly helpers: readonly Helper[],
  ) {
    let onAbort = () => {};
    this.aborted = new Promise<void>((res) => (onAbort = res));
    this.abort = () => {
      Atomics.store(this.control, STOP, 1);
      for (const h of helpers) h.stop(); // also ends a pathological pattern mid-line
      onAbort();
    };
    if (input.signal.aborted) this.abort();
    input.signal.addEventListener("abort", this.abort);
  }

  private record = (r: ChunkResult) => {
    this.done[r.chunk] = r;
    for (let d = this.done[this.prefix]; d !== undefined; d = this.done[++this.prefix]) {
      this.matches += d.matches.length;
      for (const b of d.bytes) this.bytes += b;
    }
    if (this.matches > this.input.enoughMatches || this.bytes > this.input.enoughBytes)
      Atomics.store(this.control, STOP, 1);
  };

  /** Hands the helpers the whole chunks found since the last time (and, with `end`, the rest). */
  offer(end = false): void {
    const n = this.files.length;
    if (this.posted < 0) {
      if (n < WORKER_MIN_FILES || this.helpers.length === 0) return;
      const first: JobMessage = {
        base: this.input.base,
        files: "",
        spec: this.input.spec,
        firstAfter: this.input.firstAfter(this.files[0]!),
        chunkSize: CHUNK_FILES,
        control: this.control,
        end: false,
      };
      for (const h of this.helpers) h.give(first, this.record);
      this.posted = 0;
    }
    const upTo = end ? n : n - (n % CHUNK_FILES);
    if (!end && upTo - this.posted < POST_FILES) return;
    // One string crosses a thread far faster than an array of many (NUL never occurs in a path).
    const more: MoreFiles = { files: this.files.slice(this.posted, upTo).join("\0"), end };
    for (const h of this.helpers) h.more(more);
    this.posted = upTo;
  }

  /** The walk is over: the helpers get the rest, this thread joins in; the completed prefix. */
  async finish(): Promise<Prefix> {
    const { files, input, control } = this;
    const chunks = Math.ceil(files.length / CHUNK_FILES);
    const job: Job = {
      base: input.base,
      files,
      spec: input.spec,
      firstAfter: files.length > 0 ? input.firstAfter(files[0]!) : 0,
      chunkSize: CHUNK_FILES,
      control,
    };
    this.offer(true);
    const workers = this.posted >= 0 ? this.helpers : [];
    for (const h of this.helpers) if (!workers.includes(h)) h.stop();
    const scanners: Scanner[] = [];
    try {
      // Many files: each is opened by openat2 below the root (no symlink on the way), worth loading bun:ffi for.
      const scanner = new Scanner(
        input.spec,
        input.base,
        files.length >= WORKER_MIN_FILES ? await hostPlatform().openBeneath(OPEN_FLAGS) : null,
      );
      scanners.push(scanner);
      let yielded = performance.now();
      await claimChunks(job, scanner, (r) => {
        this.record(r);
        if (workers.length === 0 || performance.now() - yielded < YIELD_MS) return;
        return new Promise<void>((res) => setImmediate(res)).then(() => void (yielded = performance.now()));
      });
      await Promise.race([Promise.all(workers.map((h) => h.settled)), this.aborted]);
      if (input.signal.aborted) return [];
      // A chunk a worker claimed but never reported (it failed): search it here.
      const claimed = Math.min(chunks, Atomics.load(control, NEXT));
      for (let c = this.prefix; c < claimed; c++) if (!this.done[c]) this.record(scanChunk(scanner, job, c));
      return this.done.slice(0, this.prefix) as ChunkResult[];
    } finally {
      input.signal.removeEventListener("abort", this.abort);
      for (const h of workers) h.stop();
      for (const sc of scanners) sc.close();
    }
  }
}
