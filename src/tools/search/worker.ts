// file_search's worker thread: claims chunks of one search's file list and posts their results.
// The list comes in pieces while the other thread walks; whole chunks are searched as they come.
// Built as its own entry point of the binary (scripts/build.ts); see pool.ts.
import { hostPlatform } from "../../platform/host.ts";
import {
  claimKnown,
  OPEN_FLAGS,
  Scanner,
  type ChunkResult,
  type Job,
  type JobMessage,
  type MoreFiles,
} from "./scan.ts";

declare const self: Worker;

// Scanning is all this thread does: its loops get the normal JIT policy, whatever the binary started with.
Bun.unsafe.setJITPolicy(1);

// Loaded while the other thread walks the tree, before this worker's job arrives.
const beneath = hostPlatform().openBeneath(OPEN_FLAGS);

let job: (Job & { files: string[] }) | null = null;
let scanner: Scanner | null = null;
const post = (r: ChunkResult) => self.postMessage(r);

/** One message at a time, in order (the first waits for bun:ffi). */
async function take(m: JobMessage | MoreFiles): Promise<void> {
  if (job === null) {
    const first = m as JobMessage;
    job = { ...first, files: [] };
    scanner = new Scanner(first.spec, first.base, await beneath);
  }
  if (m.files !== "") for (const f of m.files.split("\0")) job.files.push(f);
  claimKnown(job, scanner!, m.end, post);
  if (m.end) {
    scanner!.close();
    self.postMessage("done");
  }
}

let queue = Promise.resolve();
self.onmessage = (e: MessageEvent<JobMessage | MoreFiles>) => void (queue = queue.then(() => take(e.data)));
