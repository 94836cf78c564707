// file_search's worker thread: claims chunks of one search's file list and posts their results.
// Built as its own entry point of the binary (scripts/build.ts); see search-pool.ts.
import { claimChunks, Scanner, type ChunkResult, type JobMessage } from "./search-scan.ts";

declare const self: Worker;

self.onmessage = async (e: MessageEvent<JobMessage>) => {
  const job = { ...e.data, files: e.data.files.split("\0") };
  await claimChunks(job, new Scanner(job.spec), (r: ChunkResult) => self.postMessage(r));
  self.postMessage("done");
};
