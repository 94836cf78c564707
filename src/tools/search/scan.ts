// file_search's per-file work, shared by the handler's thread and the search worker: read a
// file (never through a symlink), classify it (large, binary), find its matching lines.
// Bytes are searched for a required literal first; only candidate lines are decoded.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { isUtf8 } from "node:buffer";
import { noFTL } from "bun:jsc";
import type { OpenBeneath } from "../../platform/types.ts";
import { fdIsAt, O_DIR, openChecked } from "../../fs/opened.ts";
import { hasLookaround, type Needle } from "./literal.ts";

/** What a worker needs to search: plain data, so it crosses a thread as is. */
export interface ScanSpec {
  readonly source: string;
  readonly ignoreCase: boolean;
  /** A matching line holds one of these; null: every line is a candidate. */
  readonly needles: readonly Needle[] | null;
  /** Files above this many bytes are not read (`skippedLarge`). */
  readonly largeBytes: number;
  /** Characters of a line shown; a longer line shows a window around its first match. */
  readonly lineChars: number;
  /** Most matches kept per file: one page never needs more. */
  readonly perFile: number;
}

export const Status = { searched: 0, binary: 1, large: 2, unreadable: 3, link: 4 } as const;

/** One matching line: 1-based number, the (maybe clipped) text, whether it was clipped. */
export type LineMatch = [line: number, text: string, clipped: boolean];

export interface FileResult {
  readonly status: number;
  readonly bytes: number;
  readonly matches: LineMatch[];
}

export const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const NL = 10;

export class Scanner {
  private readonly line: RegExp;
  private readonly whole: RegExp | null;
  private buf = Buffer.allocUnsafe(1 << 16);

  /** The root's verified descriptor (-1: not opened yet, -2: could not be). */
  private rootFd = -1;

  /**
   * `root`: the workspace's real path, below which the walk verified every folder; with `beneath`
   * (openat2), files below it are opened with no symlink allowed on the way, in one call.
   */
  constructor(
    private readonly spec: ScanSpec,
    private readonly root?: string,
    private readonly beneath?: OpenBeneath | null,
  ) {
    if (beneath) noFTL(beneath); // called once per file too (see the end of this file)
    const flags = spec.ignoreCase ? "iu" : "u";
    this.line = new RegExp(spec.source, flags);
    // Across a whole text, `m` makes ^ and $ see lines; a lookaround could see past one.
    this.whole = hasLookaround(spec.source) ? null : new RegExp(spec.source, `g${flags}m`);
  }

  /** Ends the scanner's use of the root descriptor. */
  close(): void {
    if (this.rootFd >= 0) closeSync(this.rootFd);
    this.rootFd = -2;
  }

  /**
   * Opens `abs` as the walk saw it: never through a symlink (a folder above it swapped for one since
   * the walk included). A descriptor, or the status of a file not read.
   */
  private open(abs: string): number | { status: number } {
    const root = this.root;
    if (this.beneath && root !== undefined && abs.startsWith(`${root}/`)) {
      if (this.rootFd === -1) {
        const o = openChecked(root, O_DIR);
        this.rootFd = o.ok ? o.fd : -2;
      }
      if (this.rootFd >= 0) {
        const fd = this.beneath(this.rootFd, abs.slice(root.length + 1));
        return fd >= 0 ? fd : { status: isLink(abs) ? Status.link : Status.unreadable };
      }
    }
    let fd: number;
    try {
      fd = openSync(abs, OPEN_FLAGS);
    } catch (e) {
      return { status: (e as NodeJS.ErrnoException).code === "ELOOP" ? Status.link : Status.unreadable };
    }
    if (fdIsAt(fd, abs)) return fd;
    closeSync(fd); // the descriptor is elsewhere: not read
    return { status: Status.unreadable };
  }

  /** Searches one file (`abs`: the real path its folder was verified at); `after`: only lines past it (the cursor). */
  scan(abs: string, after = 0): FileResult {
    const fd = this.open(abs);
    if (typeof fd !== "number") return { status: fd.status, bytes: 0, matches: [] };
    let size = 0;
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) return { status: Status.unreadable, bytes: 0, matches: [] };
      if (st.size > this.spec.largeBytes) return { status: Status.large, bytes: 0, matches: [] };
      if (st.size > this.buf.length) this.buf = Buffer.allocUnsafe(Math.max(st.size, this.buf.length * 2));
      while (size < st.size) {
        const n = readSync(fd, this.buf, size, st.size - size, size);
        if (n === 0) break;
        size += n;
      }
    } catch {
      return { status: Status.unreadable, bytes: size, matches: [] };
    } finally {
      closeSync(fd);
    }
    const b = this.buf.subarray(0, size);
    // A NUL anywhere (not only early): a shown line must never carry one.
    if (b.indexOf(0) >= 0 || !isUtf8(b)) return { status: Status.binary, bytes: size, matches: [] };
    const from = size >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0; // a UTF-8 BOM is not text
    const matches = this.spec.needles ? this.byNeedles(b, from, after) : this.byText(b.toString("utf8", from), after);
    return { status: Status.searched, bytes: size, matches };
  }

  /** Candidate lines are those holding a needle; each is decoded alone and tested. */
  private byNeedles(b: Buffer, from: number, after: number): LineMatch[] {
    const out: LineMatch[] = [];
    const needles = this.spec.needles!;
    const next: number[] = []; // cached next hit of each needle (-2: not looked up yet)
    for (let k = 0; k < needles.length; k++) next.push(-2);
    let pos = from;
    let lineNo = 1;
    let counted = from; // lines are counted up to here
    while (pos < b.length && out.length < this.spec.perFile) {
      let hit = -1;
      for (let k = 0; k < needles.length; k++) {
        if (next[k]! !== -1 && next[k]! < pos) next[k] = findNeedle(b, needles[k]!, pos);
        if (next[k]! >= 0 && (hit < 0 || next[k]! < hit)) hit = next[k]!;
      }
      if (hit < 0) break;
      const start = Math.max(from, b.lastIndexOf(NL, hit) + 1);
      let end = b.indexOf(NL, hit);
      if (end < 0) end = b.length;
      for (let i = b.indexOf(NL, counted); i >= 0 && i < start; i = b.indexOf(NL, i + 1)) lineNo++;
      counted = start;
      if (lineNo > after)
        this.test(b.toString("utf8", start, end > start && b[end - 1] === 13 ? end - 1 : end), lineNo, out);
      pos = end + 1;
    }
    return out;
  }

  /** No needle: search the decoded text, confirming each hit on its own line. */
  private byText(text: string, after: number): LineMatch[] {
    const out: LineMatch[] = [];
    const re = this.whole;
    let lineNo = 1;
    let counted = 0;
    if (!re) {
      // A lookaround: line by line.
      for (let start = 0; start < text.length && out.length < this.spec.perFile; lineNo++) {
        let end = text.indexOf("\n", start);
        if (end < 0) end = text.length;
        if (lineNo > after) this.test(stripCr(text.slice(start, end)), lineNo, out);
        start = end + 1;
      }
      return out;
    }
    re.lastIndex = 0;
    while (out.length < this.spec.perFile) {
      const m = re.exec(text);
      if (!m) break;
      const start = m.index === 0 ? 0 : text.lastIndexOf("\n", m.index - 1) + 1;
      if (start >= text.length) break; // past the last line (the text ended with a newline)
      let end = text.indexOf("\n", m.index);
      if (end < 0) end = text.length;
      for (let i = text.indexOf("\n", counted); i >= 0 && i < start; i = text.indexOf("\n", i + 1)) lineNo++;
      counted = start;
      if (lineNo > after) this.test(stripCr(text.slice(start, end)), lineNo, out);
      if (end >= text.length) break;
      re.lastIndex = end + 1;
    }
    return out;
  }

  private test(line: string, lineNo: number, out: LineMatch[]): void {
    const m = this.line.exec(line);
    if (!m) return;
    const bound = this.spec.lineChars;
    if (line.length <= bound) {
      out.push([lineNo, line, false]);
      return;
    }
    // A window of `bound` characters around the first match, never splitting a surrogate pair.
    let from = Math.max(0, Math.min(m.index - (bound >> 2), line.length - bound));
    if (isLowSurrogate(line.charCodeAt(from))) from++;
    let to = Math.min(line.length, from + bound);
    if (isLowSurrogate(line.charCodeAt(to))) to--;
    out.push([lineNo, `${from > 0 ? "…" : ""}${line.slice(from, to)}${to < line.length ? "…" : ""}`, true]);
  }
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

const stripCr = (s: string): string => (s.endsWith("\r") ? s.slice(0, -1) : s);
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** Byte position of the next occurrence of `n` at or after `pos`, or -1. */
export function findNeedle(b: Buffer, n: Needle, pos: number): number {
  if (!n.ci) return b.indexOf(n.bytes, pos);
  // ASCII case-insensitive: look for the rarest byte in both cases, then compare around it.
  const bytes = n.bytes;
  const at = anchorOf(bytes);
  const lo = bytes[at]!;
  const up = lo >= 97 && lo <= 122 ? lo - 32 : -1;
  let p = pos + at;
  let nextLo = -2;
  let nextUp = up < 0 ? -1 : -2;
  for (;;) {
    if (nextLo !== -1 && nextLo < p) nextLo = b.indexOf(lo, p);
    if (nextUp !== -1 && nextUp < p) nextUp = b.indexOf(up, p);
    const c = nextLo < 0 ? nextUp : nextUp < 0 ? nextLo : Math.min(nextLo, nextUp);
    if (c < 0) return -1;
    const start = c - at;
    if (start + bytes.length <= b.length && equalsFolded(b, start, bytes)) return start;
    p = c + 1;
  }
}

function equalsFolded(b: Buffer, start: number, lower: Uint8Array): boolean {
  for (let j = 0; j < lower.length; j++) {
    let x = b[start + j]!;
    if (x >= 65 && x <= 90) x += 32;
    if (x !== lower[j]) return false;
  }
  return true;
}

// Bytes from most to least common in source text and prose: the anchor is the rarest one.
const COMMON = " etaoinsrlcdu\n.hpm_()f,;=gby\"'v:w/-01k{}2>[]<3x5489674*j#q$!z&+@|?%\\^`~";
const RANK = new Uint8Array(256).fill(255);
for (let i = 0; i < COMMON.length; i++) RANK[COMMON.charCodeAt(i)] = i;
const anchors = new WeakMap<Uint8Array, number>();
function anchorOf(bytes: Uint8Array): number {
  let at = anchors.get(bytes);
  if (at === undefined) {
    at = 0;
    for (let j = 1; j < bytes.length; j++) if (RANK[bytes[j]!]! > RANK[bytes[at]!]!) at = j;
    anchors.set(bytes, at);
  }
  return at;
}

/** One search, as handed to every thread: the sorted files and a shared counter to claim chunks from. */
export interface Job {
  /** Real path of the workspace: files are workspace-relative below it. */
  readonly base: string;
  readonly files: readonly string[];
  readonly spec: ScanSpec;
  /** Lines up to this one in `files[0]` were shown on earlier pages. */
  readonly firstAfter: number;
  readonly chunkSize: number;
  /** Int32Array over a SharedArrayBuffer: [next chunk to claim, stop flag]. */
  readonly control: Int32Array;
}

/** A job as posted to a worker: the files joined by NUL (more may follow); `end`: they are all there. */
export type JobMessage = Omit<Job, "files"> & { readonly files: string; readonly end: boolean };

/** The next files of a job posted to a worker, in order. */
export interface MoreFiles {
  readonly files: string;
  readonly end: boolean;
}

export interface ChunkResult {
  readonly chunk: number;
  readonly status: number[];
  readonly bytes: number[];
  /** Matches of the chunk's files, in order: [index in `files`, line, text, clipped]. */
  readonly matches: [number, number, string, boolean][];
}

export const NEXT = 0;
export const STOP = 1;

export function scanChunk(scanner: Scanner, job: Job, chunk: number): ChunkResult {
  const status: number[] = [];
  const bytes: number[] = [];
  const matches: ChunkResult["matches"] = [];
  const end = Math.min(job.files.length, (chunk + 1) * job.chunkSize);
  for (let i = chunk * job.chunkSize; i < end; i++) {
    const r = scanner.scan(`${job.base}/${job.files[i]}`, i === 0 ? job.firstAfter : 0);
    status.push(r.status);
    bytes.push(r.bytes);
    for (const [line, text, clipped] of r.matches) matches.push([i, line, text, clipped]);
  }
  return { chunk, status, bytes, matches };
}

/**
 * Claims chunks whose files are all in `job.files` (which grows until `end`) until none are left
 * or the stop flag is set: a worker's loop, while the other thread may still be finding files.
 */
export function claimKnown(job: Job, scanner: Scanner, end: boolean, each: (r: ChunkResult) => void): void {
  const ready = end ? Math.ceil(job.files.length / job.chunkSize) : Math.floor(job.files.length / job.chunkSize);
  while (Atomics.load(job.control, STOP) === 0) {
    const c = Atomics.load(job.control, NEXT);
    if (c >= ready) return;
    if (Atomics.compareExchange(job.control, NEXT, c, c + 1) === c) each(scanChunk(scanner, job, c));
  }
}

/** Claims chunks until none are left or the stop flag is set; `each` runs after every chunk. */
export async function claimChunks(
  job: Job,
  scanner: Scanner,
  each: (r: ChunkResult) => void | Promise<void>,
): Promise<void> {
  const chunks = Math.ceil(job.files.length / job.chunkSize);
  while (Atomics.load(job.control, STOP) === 0) {
    const c = Atomics.add(job.control, NEXT, 1);
    if (c >= chunks) break;
    await each(scanChunk(scanner, job, c));
  }
}

// A search runs these once per file or chunk, thousands of times, once per process: JavaScriptCore's
// top tier (FTL) would spend more compiling them than it saves (scripts/bench-search.ts); the tiers
// below it stay.
const methods = Scanner.prototype as unknown as Record<string, () => void>;
for (const f of [
  methods.scan!,
  methods.open!,
  methods.byNeedles!,
  methods.byText!,
  methods.test!,
  findNeedle,
  scanChunk,
  claimKnown,
  claimChunks,
])
  noFTL(f);
