// file_search's prefilter: byte strings of which every matching line must contain one,
// read off a JavaScript RegExp source (u flag). Sound, not complete: anything it does not
// understand ends a literal run, and a pattern it cannot bound gets no prefilter (null).

/** Bytes a line must contain; `ci`: ASCII case-insensitively (then bytes are lowercase ASCII). */
export interface Needle {
  readonly bytes: Uint8Array;
  readonly ci: boolean;
}

const SYNTAX = new Set("^$\\.*+?()[]{}|/-");
// `\n` is left out: no line holds one, so it ends a run.
const CONTROL: Record<string, string> = { t: "\t", r: "\r", v: "\v", f: "\f" };
/** Shortest needle worth the prefilter: shorter ones hit nearly every line. */
const MIN_NEEDLE = 2;

export const escapeRegExp = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");

/** One needle per top-level alternative (a line matches only if it holds one), or null. */
export function requiredNeedles(source: string, ignoreCase: boolean): Needle[] | null {
  const needles: Needle[] = [];
  for (const alt of topLevelAlternatives(source)) {
    let best: Needle | null = null;
    for (const run of literalRuns(alt)) {
      for (const n of ignoreCase ? caseFreeNeedles(run) : [{ bytes: Buffer.from(run, "utf8"), ci: false }]) {
        if (!best || n.bytes.length > best.bytes.length) best = n;
      }
    }
    if (!best || best.bytes.length < MIN_NEEDLE) return null;
    needles.push(best);
  }
  return needles;
}

/** True when the source has a lookaround, which can look past the end of a line. */
export const hasLookaround = (source: string): boolean => /\(\?<?[=!]/.test(source);

function topLevelAlternatives(src: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") i++;
    else if (c === "[") i = classEnd(src, i);
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      out.push(src.slice(start, i));
      start = i + 1;
    }
  }
  out.push(src.slice(start));
  return out;
}

/** Index of the `]` closing the class opened at `i` (u flag: no nested classes). */
function classEnd(src: string, i: number): number {
  for (let j = i + 1; j < src.length; j++) {
    if (src[j] === "\\") j++;
    else if (src[j] === "]") return j;
  }
  return src.length;
}

/** Index just past the group opened at `i`. */
function groupEnd(src: string, i: number): number {
  let depth = 0;
  for (let j = i; j < src.length; j++) {
    const c = src[j];
    if (c === "\\") j++;
    else if (c === "[") j = classEnd(src, j);
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return j + 1;
  }
  return src.length;
}

/** Runs of characters that every match of this alternative contains, each contiguous. */
function literalRuns(alt: string): string[] {
  const runs: string[] = [];
  let cur = "";
  let last = 0; // code units the last atom added to `cur` (0: the last atom was not a literal)
  const flush = () => {
    if (cur) runs.push(cur);
    cur = "";
    last = 0;
  };
  const add = (s: string) => {
    cur += s;
    last = s.length;
  };
  let i = 0;
  while (i < alt.length) {
    const c = alt[i]!;
    if (c === "\\") {
      const e = alt[i + 1] ?? "";
      if (SYNTAX.has(e)) add(e), (i += 2);
      else if (CONTROL[e]) add(CONTROL[e]), (i += 2);
      else if (e === "x" && /^[0-9a-fA-F]{2}$/.test(alt.slice(i + 2, i + 4)))
        add(String.fromCharCode(parseInt(alt.slice(i + 2, i + 4), 16))), (i += 4);
      else if (e === "u" && alt[i + 2] === "{") {
        const end = alt.indexOf("}", i);
        add(String.fromCodePoint(parseInt(alt.slice(i + 3, end), 16)));
        i = end + 1;
      } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(alt.slice(i + 2, i + 6)))
        add(String.fromCharCode(parseInt(alt.slice(i + 2, i + 6), 16))), (i += 6);
      else {
        flush();
        if ((e === "p" || e === "P") && alt[i + 2] === "{") i = alt.indexOf("}", i) + 1;
        else if (e === "k" && alt[i + 2] === "<") i = alt.indexOf(">", i) + 1;
        else if (e === "c") i += 3;
        else if (/[0-9]/.test(e)) for (i += 1; /[0-9]/.test(alt[i] ?? ""); i++);
        else i += 2;
      }
    } else if (c === "[") flush(), (i = classEnd(alt, i) + 1);
    else if (c === "(") flush(), (i = groupEnd(alt, i));
    else if (c === "*" || c === "?" || c === "{") {
      // Quantifiers: zero repetitions drop the atom; more keep it but end the run.
      let min = 0;
      if (c === "{") {
        const end = alt.indexOf("}", i);
        min = parseInt(alt.slice(i + 1), 10) || 0;
        i = end < 0 ? alt.length : end + 1;
      } else i++;
      if (alt[i] === "?") i++; // lazy
      if (min === 0 && last > 0) cur = cur.slice(0, cur.length - last);
      flush();
    } else if (c === "+") {
      i++;
      if (alt[i] === "?") i++;
      flush();
    } else if (c === "." || c === "^" || c === "$" || c === "\n") flush(), i++;
    else {
      const ch = String.fromCodePoint(alt.codePointAt(i)!);
      add(ch);
      i += ch.length;
    }
  }
  flush();
  return runs;
}

/**
 * Under the i and u flags a letter also matches its other case, and `k`/`s` also match
 * U+212A/U+017F: a case-free needle keeps ASCII only, splitting the run at anything else.
 */
function caseFreeNeedles(run: string): Needle[] {
  return run
    .split(/[^\x00-\x7f]|[ksKS]/)
    .filter((p) => p.length > 0)
    .map((p) => ({ bytes: Buffer.from(p.toLowerCase(), "latin1"), ci: true }));
}
