// file_search's answer from the searched prefix: matches in order up to the limit and the byte
// bound, the counts of the files this page passed, and the cursor to the next page. Only what
// the sorted order decides goes in, so the answer never depends on which thread was faster.
import { CHUNK_FILES, type Prefix } from "./pool.ts";
import { Status } from "./scan.ts";

export interface Page {
  readonly matches: { path: string; line: number; text: string }[];
  readonly filesSearched: number;
  readonly skippedBinary: number;
  readonly skippedLarge: number;
  readonly skippedUnreadable: number;
  readonly clippedLines: number;
  /** Set when there is more: the last match shown as `path:line`, or `path:0` of the next unread file. */
  readonly nextCursor?: string;
}

export function assemblePage(
  prefix: Prefix,
  files: readonly string[],
  limit: number,
  boundBytes: number,
  readBudget: number,
): Page {
  const matches: Page["matches"] = [];
  // Per status: files up to the last match shown (committed), and those after it (pending):
  // a page cut short leaves the pending ones to the next page, which searches them again.
  const committed = [0, 0, 0, 0, 0];
  const pending = [0, 0, 0, 0, 0];
  const commit = () => {
    for (let s = 0; s < pending.length; s++) (committed[s]! += pending[s]!), (pending[s] = 0);
  };
  let clippedLines = 0;
  let cost = 0;
  let read = 0;
  let nextCursor: string | undefined;
  fill: for (const chunk of prefix) {
    let m = 0;
    for (let k = 0; k < chunk.status.length; k++) {
      const i = chunk.chunk * CHUNK_FILES + k;
      if (read + chunk.bytes[k]! > readBudget && read > 0) {
        commit();
        nextCursor = `${files[i]}:0`;
        break fill;
      }
      read += chunk.bytes[k]!;
      pending[chunk.status[k]!]!++;
      for (; m < chunk.matches.length && chunk.matches[m]![0] === i; m++) {
        const [, line, text, clipped] = chunk.matches[m]!;
        const match = { path: files[i]!, line, text };
        const c = Buffer.byteLength(JSON.stringify(match)) + 1; // and a comma
        if (matches.length >= limit || (cost + c > boundBytes && matches.length > 0)) {
          const last = matches[matches.length - 1]!;
          nextCursor = `${last.path}:${last.line}`;
          break fill;
        }
        commit();
        matches.push(match);
        cost += c;
        if (clipped) clippedLines++;
      }
    }
  }
  if (nextCursor === undefined) commit();
  return {
    matches,
    filesSearched: committed[Status.searched]!,
    skippedBinary: committed[Status.binary]!,
    skippedLarge: committed[Status.large]!,
    skippedUnreadable: committed[Status.unreadable]!,
    clippedLines,
    ...(nextCursor === undefined ? {} : { nextCursor }),
  };
}
