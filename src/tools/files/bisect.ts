// Binary search over sorted (code-unit order) paths: file_find's cursor (file_search filters its
// walk, already in path order, by comparison).

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
