// file_search's worker thread: claims chunks of one search's file list and posts their results.
// Built as its own entry point of the binary (scripts/build.ts); see pool.ts.
import { loadBeneath } from "../../fs/beneath.ts";
import { claimChunks, OPEN_FLAGS, Scanner, type ChunkResult, type JobMessage } from "./scan.ts";

declare const self: Worker;

// Scanning is all this thread does: its loops get the normal JIT policy, whatever the binary started with.
Bun.unsafe.setJITPolicy(1);

// Loaded while the other thread walks the tree, before this worker's job arrives.
const beneath = loadBeneath(OPEN_FLAGS);

self.onmessage = async (e: MessageEvent<JobMessage>) => {
  const job = { ...e.data, files: e.data.files.split("\0") };
  const scanner = new Scanner(job.spec, job.base, await beneath);
  await claimChunks(job, scanner, (r: ChunkResult) => self.postMessage(r));
  scanner.close();
  self.postMessage("done");
};
