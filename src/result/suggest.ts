// Suggestions, never corrections: the nearest valid name to one that is not known, for a refusal's
// words (its message, `details.did_you_mean`). Nothing here decides what runs, and it is called
// only once a refusal is being worded, never on a path that succeeds.

/** Optimal string alignment distance: Levenshtein's edits plus a swap of two neighbours ("raed" → "read" is 1). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
    }
    [before, prev] = [prev, row];
  }
  return prev[b.length]!;
}

/** The same words in another order ("read_file" for "file_read"): a name of one word has none. */
const wordKey = (s: string): string | undefined => {
  const words = s
    .toLowerCase()
    .split(/[-_.\s]+/)
    .filter(Boolean);
  return words.length > 1 ? words.sort().join(" ") : undefined;
};

/**
 * The candidate `name` most likely misspells, or undefined when none is close: the same name in
 * another case; else the fewest edits, at most a third of the name's length (at least one; as
 * rustc and cargo do), never all of it; else the same words in another order. Ties: the first given.
 */
export function nearest(name: string, candidates: Iterable<string>): string | undefined {
  const all = [...candidates].filter((c) => c !== name);
  const lower = name.toLowerCase();
  const sameCase = all.find((c) => c.toLowerCase() === lower);
  if (sameCase !== undefined) return sameCase;
  const budget = Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = budget + 1;
  for (const c of all) {
    if (Math.abs(c.length - name.length) >= bestDistance) continue;
    const d = editDistance(lower, c.toLowerCase());
    if (d < bestDistance && d < name.length && d < c.length) [best, bestDistance] = [c, d];
  }
  if (best !== undefined) return best;
  const key = wordKey(name);
  return key === undefined ? undefined : all.find((c) => wordKey(c) === key);
}

/** The words a refusal adds for a suggestion: `; did you mean "file_read"?`, or nothing. */
export const didYouMean = (
  suggestion: string | undefined,
  show: (s: string) => string = (s) => JSON.stringify(s),
): string => (suggestion === undefined ? "" : `; did you mean ${show(suggestion)}?`);
