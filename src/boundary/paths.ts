// The local-path reading of the output boundary (docs/boundary.md): a `/`
// after a boundary, whose first segment names a top-level folder of this machine or a well-known
// root, and a second segment after it. Pure but for one read of this machine's `/`, at the first
// candidate that needs it. Text reaches these functions already cleaned (format.ts).
import { readdirSync } from "node:fs";
import { isSpace } from "./format.ts";

/** The well-known roots of any system, compared case-sensitively: `GET /users/42` is a route, `/Users/me/x` a path. */
export const WELL_KNOWN_ROOTS: readonly string[] = [
  "home",
  "root",
  "Users",
  "Volumes",
  "private",
  "etc",
  "var",
  "tmp",
  "opt",
  "usr",
  "srv",
  "mnt",
  "media",
  "proc",
  "sys",
  "dev",
  "run",
  "boot",
  "bin",
  "sbin",
  "lib",
  "lib32",
  "lib64",
  "nix",
  "snap",
  "Library",
  "System",
  "Applications",
  "workspace",
];

/**
 * Which first segments make a local path: the well-known roots and a machine's top-level names,
 * indexed by first char code so a candidate is looked up in place (no slice per candidate).
 * `more` is read at the first lookup (this machine's `/`).
 */
export class Roots {
  private readonly byFirst = new Map<number, string[]>();
  constructor(
    names: Iterable<string>,
    private more?: () => Iterable<string>,
  ) {
    this.add(names);
  }

  private add(names: Iterable<string>): void {
    for (const name of names) {
      if (name === "") continue;
      const c = name.charCodeAt(0);
      const list = this.byFirst.get(c);
      if (list === undefined) this.byFirst.set(c, [name]);
      else if (!list.includes(name)) list.push(name);
    }
  }

  /** Does t[start, end) name a root? */
  hasAt(t: string, start: number, end: number): boolean {
    if (this.more !== undefined) {
      this.add(this.more());
      this.more = undefined;
    }
    const list = this.byFirst.get(t.charCodeAt(start));
    if (list === undefined) return false;
    for (const name of list) if (name.length === end - start && t.startsWith(name, start)) return true;
    return false;
  }
}

/** The folders (and links) at the top of this machine's `/`; none when `/` cannot be read. */
function topLevelNames(): string[] {
  try {
    return readdirSync("/", { withFileTypes: true })
      .filter((e) => e.isDirectory() || e.isSymbolicLink())
      .map((e) => e.name);
  } catch {
    return []; // an unreadable `/` leaves the well-known roots
  }
}

/** This machine: the well-known roots and (read once, at the first lookup) the top of `/`. */
export const MACHINE_ROOTS = new Roots(WELL_KNOWN_ROOTS, topLevelNames);

/** The well-known roots and the given top-level names, for another machine (tests). */
export const rootsOf = (names: Iterable<string>): Roots => new Roots([...WELL_KNOWN_ROOTS, ...names]);

/** 1 for the ASCII characters a candidate may follow: whitespace and `= : , ; ( [ { < > " ' \` \ |`. */
const BEFORE = new Uint8Array(128);
for (const c of "\t\n\v\f\r =:,;([{<>\"'`\\|") BEFORE[c.charCodeAt(0)] = 1;

/** 1 for ASCII path characters: letters, digits, `.`, `_`, `~`, `-`, `$`, `@`, `%`, `+`. */
const PATH_ASCII = new Uint8Array(128);
for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._~-$@%+")
  PATH_ASCII[c.charCodeAt(0)] = 1;
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

/** Whether the character c may stand right before a candidate `/` or `file:`. */
export const isBefore = (c: number): boolean => (c < 128 ? BEFORE[c] === 1 : isSpace(c));

/** Does a candidate start at p: the start of the text, or a boundary character right before it? */
const startsAt = (t: string, p: number): boolean => p === 0 || isBefore(t.charCodeAt(p - 1));

/** UTF-16 units of the path character at i: 0 (none), 1, or 2 (a letter or digit outside the BMP). */
function pathCharLength(t: string, i: number): number {
  if (i >= t.length) return 0;
  const c = t.charCodeAt(i);
  if (c < 128) return PATH_ASCII[c]!;
  const p = t.codePointAt(i)!;
  return LETTER_OR_DIGIT.test(String.fromCodePoint(p)) ? (p > 0xffff ? 2 : 1) : 0;
}

/** Where the run of path characters starting at i ends (ASCII settled in place; past the end reads NaN). */
function segmentEnd(t: string, i: number): number {
  for (;;) {
    const c = t.charCodeAt(i);
    if (c < 128) {
      if (PATH_ASCII[c] === 0) return i;
      i++;
    } else {
      const n = pathCharLength(t, i);
      if (n === 0) return i;
      i += n;
    }
  }
}

/** Past a run of slashes starting at i. */
function skipSlashes(t: string, i: number): number {
  while (t.charCodeAt(i) === 47) i++;
  return i;
}

/** Device names that say nothing about the machine: `/dev/<one of these>`, and `/dev/fd/<n>`. */
const DEVICES: ReadonlySet<string> = new Set([
  "null",
  "tty",
  "stdin",
  "stdout",
  "stderr",
  "zero",
  "random",
  "urandom",
  "fd",
]);

/** Does the segment [from, to) end the path (no further segment), so that the path is exactly what was read? */
const endsPath = (t: string, to: number): boolean => {
  const next = skipSlashes(t, to);
  return next === to || pathCharLength(t, next) === 0;
};

/** A segment with its trailing dots dropped (a sentence ending in `/dev/null.`). */
const undotted = (t: string, from: number, to: number): string => {
  while (to > from && t.charCodeAt(to - 1) === 46) to--;
  return t.slice(from, to);
};

/** `/dev/null`, `/dev/tty`, …, `/dev/fd` and `/dev/fd/3`: the second segment is [from, to). */
function isDevice(t: string, from: number, to: number): boolean {
  const name = undotted(t, from, to);
  if (!DEVICES.has(name)) return false;
  if (endsPath(t, to)) return true;
  if (name !== "fd" || t.charCodeAt(to) !== 47 || t.charCodeAt(to + 1) === 47) return false;
  const end = segmentEnd(t, to + 1);
  return /^[0-9]+$/.test(undotted(t, to + 1, end)) && endsPath(t, end);
}

/**
 * Is the candidate `/` at p a local path? Its leading slashes are skipped; then a root, a slash and a second segment.
 */
export function localPathAt(t: string, p: number, roots: Roots): boolean {
  const start = skipSlashes(t, p);
  const end = segmentEnd(t, start);
  if (end === start || t.charCodeAt(end) !== 47 || !roots.hasAt(t, start, end)) return false;
  const second = skipSlashes(t, end);
  if (pathCharLength(t, second) === 0) return false;
  const dev = end - start === 3 && t.startsWith("dev", start);
  return !dev || !isDevice(t, second, segmentEnd(t, second));
}

/** `file:` (any letter case) ending at the colon p, itself at a candidate's start. */
export function fileSchemeBefore(t: string, p: number): boolean {
  const s = p - 4;
  if (s < 0) return false;
  return (
    (t.charCodeAt(s) | 32) === 102 &&
    (t.charCodeAt(s + 1) | 32) === 105 &&
    (t.charCodeAt(s + 2) | 32) === 108 &&
    (t.charCodeAt(s + 3) | 32) === 101 &&
    startsAt(t, s)
  );
}

/** Does the (cleaned) text hold a local path or a `file:` URL? The caller may know it has no `/` or no `:`. */
export function hasLocalPath(t: string, roots: Roots, slash = true, colon = true): boolean {
  if (slash) {
    for (let p = t.indexOf("/"); p !== -1; p = t.indexOf("/", p + 1)) {
      if (startsAt(t, p) && localPathAt(t, p, roots)) return true;
    }
  }
  if (colon) {
    for (let p = t.indexOf(":", 4); p !== -1; p = t.indexOf(":", p + 1)) {
      if (fileSchemeBefore(t, p)) return true;
    }
  }
  return false;
}
