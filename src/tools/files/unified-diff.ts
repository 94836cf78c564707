// The unified diff file_edit returns, built from the spans the edit replaced (not by re-diffing
// the whole file: jsdiff took 0.3 s for one changed line in 100k and 4 s for 4,000 replacements;
// this is linear). Headers a/<path> and b/<path> are workspace-relative; 3 lines of context;
// bounded well under the output boundary's 64 KiB, and a clipped diff says so.

/** Serialized (JSON string, UTF-8) bytes one diff may take. */
export const DIFF_BOUND_BYTES = 32_000;
const CONTEXT = 3;

export interface DiffView {
  readonly diff: string;
  /** True when the diff was clipped to the bound. */
  readonly diffTruncated: boolean;
  /** Lines of the whole diff (headers included); present only when clipped. */
  readonly diffTotalLines?: number;
}

/** One replacement: `oldLength` characters at `at` (an offset in the old text) became `newLength` characters. */
export interface Replacement {
  readonly at: number;
  readonly oldLength: number;
  readonly newLength: number;
}

/** A run of whole lines that differs: old lines [oldLine, oldLine + removed.length) became `added` (1-based). */
interface Change {
  oldLine: number;
  removed: string[];
  added: string[];
}

/** Lines with their terminators ("\r" stays in the line, as diff(1) and patch(1) see it). */
const splitLines = (s: string): string[] => s.match(/[^\n]*\n|[^\n]+$/g) ?? [];

/** Offsets where each line starts (line k, 1-based, starts at starts[k - 1]). */
function lineStarts(s: string): number[] {
  const starts = [0];
  for (let i = s.indexOf("\n"); i !== -1 && i + 1 < s.length; i = s.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** The 1-based line holding offset `at` (the line after the last one when `at` is the end of a text ending in "\n"). */
function lineOf(starts: readonly number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Whole-line changes for sorted, non-overlapping replacements; lines common to both ends of a change are dropped. */
function changesOf(before: string, starts: readonly number[], after: string, edits: readonly Replacement[]): Change[] {
  const endOfLineAt = (at: number) => {
    const nl = before.indexOf("\n", at);
    return nl === -1 ? before.length : nl + 1;
  };
  const regions: { oldStart: number; oldEnd: number; newStart: number; newEnd: number }[] = [];
  let shift = 0;
  for (const e of edits) {
    // Whole lines around the span, through the line holding its end (the text after the span joins that line).
    const oldStart = starts[lineOf(starts, e.at) - 1]!;
    const oldEnd = endOfLineAt(e.at + e.oldLength);
    const newStart = oldStart + shift;
    shift += e.newLength - e.oldLength;
    const last = regions[regions.length - 1];
    if (last && last.oldEnd >= oldStart) Object.assign(last, { oldEnd, newEnd: oldEnd + shift });
    else regions.push({ oldStart, oldEnd, newStart, newEnd: oldEnd + shift });
  }
  const changes: Change[] = [];
  for (const r of regions) {
    const removed = splitLines(before.slice(r.oldStart, r.oldEnd));
    const added = splitLines(after.slice(r.newStart, r.newEnd));
    let head = 0;
    while (head < removed.length && head < added.length && removed[head] === added[head]) head++;
    let tail = 0;
    while (
      tail < removed.length - head &&
      tail < added.length - head &&
      removed[removed.length - 1 - tail] === added[added.length - 1 - tail]
    )
      tail++;
    const change = {
      oldLine: lineOf(starts, r.oldStart) + head,
      removed: removed.slice(head, removed.length - tail),
      added: added.slice(head, added.length - tail),
    };
    if (change.removed.length > 0 || change.added.length > 0) changes.push(change);
  }
  return changes;
}

const range = (start: number, count: number) => (count === 0 ? `${start - 1},0` : `${start},${count}`);

/** The old text's lines, fetched one at a time: a hunk needs only the few around its changes. */
interface OldLines {
  readonly count: number;
  line(n: number): string;
}

function* hunkLines(oldLines: OldLines, changes: readonly Change[]): Generator<string> {
  const show = (mark: string, line: string) =>
    line.endsWith("\n") ? [`${mark}${line.slice(0, -1)}`] : [`${mark}${line}`, "\\ No newline at end of file"];
  let shift = 0; // new line number minus old line number before the current change
  for (let i = 0; i < changes.length; ) {
    let j = i; // changes[i..j] share one hunk: their gaps are at most two contexts wide
    while (
      j + 1 < changes.length &&
      changes[j + 1]!.oldLine - (changes[j]!.oldLine + changes[j]!.removed.length) <= 2 * CONTEXT
    )
      j++;
    const first = changes[i]!;
    const lastChange = changes[j]!;
    const from = Math.max(1, first.oldLine - CONTEXT);
    const to = Math.min(oldLines.count, lastChange.oldLine + lastChange.removed.length - 1 + CONTEXT); // inclusive
    const body: string[] = [];
    let cursor = from;
    let grow = 0;
    for (let k = i; k <= j; k++) {
      const c = changes[k]!;
      for (; cursor < c.oldLine; cursor++) body.push(...show(" ", oldLines.line(cursor)));
      for (const l of c.removed) body.push(...show("-", l));
      for (const l of c.added) body.push(...show("+", l));
      cursor += c.removed.length;
      grow += c.added.length - c.removed.length;
    }
    for (; cursor <= to; cursor++) body.push(...show(" ", oldLines.line(cursor)));
    const oldCount = to - from + 1;
    yield `@@ -${range(from, oldCount)} +${range(from + shift, oldCount + grow)} @@`;
    yield* body;
    shift += grow;
    i = j + 1;
  }
}

const serializedBytes = (s: string): number => Buffer.byteLength(JSON.stringify(s), "utf8") - 2;

/** The unified diff of `before` → `after`, where `after` is `before` with `edits` (sorted, non-overlapping) applied. */
export function unifiedDiff(
  rel: string,
  before: string,
  after: string,
  edits: readonly Replacement[],
  bound = DIFF_BOUND_BYTES,
): DiffView {
  const starts = lineStarts(before);
  const changes = changesOf(before, starts, after, edits);
  if (changes.length === 0) return { diff: "", diffTruncated: false };
  const lines = [`--- a/${rel}`, `+++ b/${rel}`];
  let bytes = serializedBytes(lines.join("\n")) + 2;
  let total = 2;
  let clipped = false;
  const oldLines: OldLines = {
    count: before === "" ? 0 : starts.length,
    line: (n) => before.slice(starts[n - 1], starts[n] ?? before.length),
  };
  for (const line of hunkLines(oldLines, changes)) {
    total++;
    const cost = serializedBytes(line) + 2; // the "\n" after it serializes as two bytes
    if (clipped || bytes + cost > bound) {
      clipped = true;
      continue;
    }
    lines.push(line);
    bytes += cost;
  }
  const diff = lines.map((l) => `${l}\n`).join("");
  return clipped ? { diff, diffTruncated: true, diffTotalLines: total } : { diff, diffTruncated: false };
}
