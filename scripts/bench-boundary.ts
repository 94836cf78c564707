// Bench for the output boundary: the worst accepted result it must pass (close to 64 KiB, 8
// levels, many keys and strings) timed against a plain recursive walk of the same object, the
// floor any checker pays. Target: at most 400 µs per check. Last line is JSON for scripts.
import { checkBoundary, MAX_OUTPUT_BYTES } from "../src/boundary/boundary.ts";

const WORDS = ["alpha", "beta", "gamma", "delta", "ratio", "a/b", "https://h/x", "(note)", "v1.2", "état"];

/** A binary tree of objects, `depth` levels, each node carrying strings, numbers and a short array (one level more). */
function tree(depth: number, seed: { n: number }): Record<string, unknown> {
  const n = seed.n++;
  const words = (k: number) => Array.from({ length: k }, (_, i) => WORDS[(n + i) % WORDS.length]).join(" ");
  const node: Record<string, unknown> = {
    id: `node-${n}`,
    title: words(4),
    token_count: n * 7,
    "Content-Type": "text/plain",
    description: words(9),
    status: n % 3 === 0 ? "ok" : "pending",
    tokens: [words(2), words(3)],
  };
  if (n % 8 === 0) node.summary = JSON.stringify({ ok: true, n, note: words(3) });
  if (n % 16 === 0) node.body = words(30);
  if (depth > 1) {
    node.left = tree(depth - 1, seed);
    node.right = tree(depth - 1, seed);
  }
  return node;
}

function worstAccepted(): { value: unknown; bytes: number } {
  const value = tree(7, { n: 0 }) as Record<string, unknown>;
  const padding: string[] = [];
  value.padding = padding;
  const size = () => Buffer.byteLength(JSON.stringify(value));
  if (size() > MAX_OUTPUT_BYTES) throw new Error(`bench tree alone is ${size()} bytes`);
  while (size() < MAX_OUTPUT_BYTES - 80) padding.push(`pad ${padding.length} x`);
  return { value, bytes: size() };
}

/** The floor: visit every key and value once, doing nothing but counting. */
function plainWalk(v: unknown): number {
  if (typeof v === "string") return v.length;
  if (typeof v !== "object" || v === null) return 1;
  let n = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) n += plainWalk(v[i]);
    return n;
  }
  const record = v as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) n += keys[i]!.length + plainWalk(record[keys[i]!]);
  return n;
}

function depthOf(v: unknown): number {
  if (typeof v !== "object" || v === null) return 0;
  return 1 + Math.max(0, ...Object.values(v).map(depthOf));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const { value, bytes } = worstAccepted();
const verdict = checkBoundary(value, { localPaths: true });
if (verdict !== null) throw new Error(`bench value is rejected: ${JSON.stringify(verdict)}`);
const depth = depthOf(value);
if (depth !== 8) throw new Error(`bench value is ${depth} levels deep, expected 8`);

/**
 * The same value with the first two chars of every key replaced by a code for the run: same
 * size, and keys the boundary's key memo has not seen lately (it holds 4096, codes repeat after 1296).
 */
function freshKeys(v: unknown, run: number): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) return v.map((x) => freshKeys(x, run));
  const code = (run % 1296).toString(36).padStart(2, "0");
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [code + k.slice(2), freshKeys(x, run)]));
}

if (checkBoundary(freshKeys(value, 0), { localPaths: true }) !== null)
  throw new Error("renamed bench value is rejected");

const WARMUP = 300;
const RUNS = 2000;
const boundaryTimes: number[] = [];
const walkTimes: number[] = [];
const freshTimes: number[] = [];
let sink = 0;
for (let i = 0; i < WARMUP + RUNS; i++) {
  const fresh = freshKeys(value, i);
  const t0 = Bun.nanoseconds();
  sink += checkBoundary(value, { localPaths: true }) === null ? 1 : 0;
  const t1 = Bun.nanoseconds();
  sink += plainWalk(value);
  const t2 = Bun.nanoseconds();
  sink += checkBoundary(fresh, { localPaths: true }) === null ? 1 : 0;
  const t3 = Bun.nanoseconds();
  if (i >= WARMUP) {
    boundaryTimes.push((t1 - t0) / 1000);
    walkTimes.push((t2 - t1) / 1000);
    freshTimes.push((t3 - t2) / 1000);
  }
}

const round = (us: number) => Math.round(us * 10) / 10;
const boundaryUs = round(median(boundaryTimes));
const walkUs = round(median(walkTimes));
const freshUs = round(median(freshTimes));
console.log(`value: ${bytes} bytes, ${depth} levels; ${RUNS} runs after ${WARMUP} warmup (sink ${sink % 7})`);
console.log(`checkBoundary median ${boundaryUs} µs (never-seen keys: ${freshUs} µs); plain walk median ${walkUs} µs`);
console.log(
  JSON.stringify({
    boundary_us: boundaryUs,
    walk_us: walkUs,
    boundary_fresh_keys_us: freshUs,
    bytes,
    depth,
    runs: RUNS,
  }),
);
