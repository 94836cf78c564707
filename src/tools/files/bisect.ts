// Binary search over sorted (code-unit order) paths: the cursors of file_find and file_search.

/** First index whose entry sorts after `value` (`after: true`) or not before it (`after: false`). */
export function bisect(sorted: readonly string[], value: string, after: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (after ? sorted[mid]! <= value : sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
