// file_edit: an exact-string replace bound to the digest file_read returned. Stale, missing,
// ambiguous and unmatched edits are refusals; the write is atomic (atomic-write.ts) and read back
// before success is reported, with a unified diff and the new digest.
import { defineTool } from "../../catalog/declare.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { atomicWrite, digestOf, readRegular } from "./atomic-write.ts";
import { refuseProtected, type WriteScope } from "./protected.ts";
import { unifiedDiff } from "./unified-diff.ts";
import { resolveInside, targetInside } from "./workspace.ts";
import description from "./file-edit.txt" with { type: "text" };

export interface EditArgs {
  readonly path: string;
  readonly digest: string;
  readonly old_string: string;
  readonly new_string: string;
  readonly replace_all?: boolean;
}

/** A candidate line must be at least this similar (0..1, see nearest()) to be shown as "nearest". */
export const NEAREST_MIN_SIMILARITY = 0.5;
const SHOWN_CHARS = 200;
const MAX_LISTED_MATCHES = 20;

export default defineTool({
  name: "file_edit",
  description: description.trimEnd(),
  input: (type) =>
    type({
      "+": "reject",
      path: "string > 0",
      digest: /^sha256:[0-9a-f]{64}$/,
      old_string: "string > 0",
      new_string: "string",
      "replace_all?": "boolean",
    }),
  effect: "reversible",
  approval: "required",
  needs: (args, ctx) => {
    const r = resolveInside(ctx.workspace, args.path);
    return r.ok
      ? ok([
          { kind: "read", value: r.value.abs },
          { kind: "write", value: r.value.abs },
        ])
      : r;
  },
  handler: async (args, ctx) =>
    editFile(ctx.workspace, args, {
      stateDir: ctx.stateDir,
      ...(ctx.controlFiles ? { controlFiles: ctx.controlFiles } : {}),
      ...(ctx.checked ? { checked: ctx.checked.map((n) => n.value) } : {}),
    }),
});

// a BOM stays part of the text, so it is written back
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export async function editFile(workspace: string, args: EditArgs, scope: WriteScope = {}): Promise<Outcome<unknown>> {
  if (args.old_string === args.new_string)
    return refuse("file.no_change", "old_string and new_string are identical: the edit would change nothing");
  // Read and write were checked for one real path; two different ones mean the name moved in between.
  const [readPath, writePath] = scope.checked ?? [];
  if (readPath !== writePath)
    return refuse(
      "path.changed",
      `"${args.path}" changed while its permissions were being checked; nothing was written; call again`,
    );
  const r = targetInside(workspace, args.path, writePath);
  if (!r.ok) return r;
  const { abs, rel } = r.value;
  const protectedPath = refuseProtected(workspace, scope, rel);
  if (protectedPath) return protectedPath;
  const read = readRegular(abs, rel);
  if (!read.ok) return read;
  const { bytes, stat } = read.value;
  // The current digest is not shown: the fix for a stale edit is to read the file, not to cite a new number.
  if (digestOf(bytes) !== args.digest)
    return refuse(
      "file.stale",
      `"${rel}" has changed since the digest you cite was read; read it again with file_read and edit from ` +
        `what it shows now`,
    );
  let text: string;
  try {
    if (bytes.includes(0)) throw new Error("NUL");
    text = utf8.decode(bytes);
  } catch {
    return refuse("file.binary", `"${rel}" is binary (not UTF-8 text); file_edit only edits text`);
  }
  const found = locate(text, args.old_string, args.new_string);
  if (found === null) return noMatch(rel, text, args.old_string);
  const { needle, replacement, at } = found;
  if (needle === replacement)
    return refuse(
      "file.no_change",
      `in "${rel}" (CRLF line endings) old_string and new_string are the same text: the edit would change nothing`,
    );
  if (at.length > 1 && !args.replace_all) {
    const lines = at.slice(0, MAX_LISTED_MATCHES).map((i) => lineOf(text, i));
    return refuse(
      "file.ambiguous",
      `old_string occurs ${at.length} times in "${rel}" (lines ` +
        `${lines.join(", ")}${at.length > lines.length ? ", …" : ""}); add surrounding lines to make it unique, ` +
        `or pass replace_all: true`,
      { count: at.length, lines },
    );
  }
  const next = text.split(needle).join(replacement); // every occurrence is the one occurrence here, or replace_all
  // permission bits kept; setuid/setgid are dropped, as any write by another user would
  const mode = Number(stat.mode & 0o777n);
  const written = atomicWrite(abs, rel, Buffer.from(next, "utf8"), {
    publish: "replace",
    mode,
    owner: { uid: Number(stat.uid), gid: Number(stat.gid) },
    unchangedSince: stat,
    ...(scope.io ? { io: scope.io } : {}),
  });
  if (!written.ok) return written;
  const edits = at.map((i) => ({ at: i, oldLength: needle.length, newLength: replacement.length }));
  return ok({
    path: rel,
    digest: written.value.digest,
    replacements: at.length,
    ...unifiedDiff(rel, text, next, edits),
  });
}

type Eol = "lf" | "crlf" | "mixed";

function eolOf(text: string): Eol {
  const crlf = text.split("\r\n").length - 1;
  const lf = text.split("\n").length - 1;
  return crlf === 0 ? "lf" : crlf === lf ? "crlf" : "mixed";
}

const toCrlf = (s: string) => s.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n");

/**
 * Line endings: file_read shows lines without their endings, so a caller writes "\n". In a CRLF
 * file both strings are matched and written as CRLF. In a mixed file the strings are taken as
 * written first; only if that finds nothing are they tried as CRLF. An LF file takes them as written.
 */
function locate(
  text: string,
  oldString: string,
  newString: string,
): { needle: string; replacement: string; at: number[] } | null {
  const eol = eolOf(text);
  const tries: [string, string][] =
    eol === "crlf" ? [[toCrlf(oldString), toCrlf(newString)]] : [[oldString, newString]];
  if (eol === "mixed" && oldString.includes("\n")) tries.push([toCrlf(oldString), toCrlf(newString)]);
  for (const [needle, replacement] of tries) {
    const at: number[] = [];
    for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) at.push(i);
    if (at.length > 0) return { needle, replacement, at };
  }
  return null;
}

const lineOf = (text: string, index: number): number => text.slice(0, index).split("\n").length;

const clip = (s: string) => (s.length > SHOWN_CHARS ? `${s.slice(0, SHOWN_CHARS)}…` : s);

/** The refusal for an old_string that does not occur: the file line nearest its first non-blank line. */
function noMatch(rel: string, text: string, oldString: string): Outcome<never> {
  const wanted = oldString.split(/\r?\n/);
  const anchorAt = wanted.findIndex((l) => l.trim() !== "");
  const fileLines = text.split(/\r?\n/);
  // A first line followed by more of old_string must end its file line; a lone line may sit anywhere in one.
  const best = anchorAt === -1 ? null : nearest(wanted[anchorAt]!, fileLines, anchorAt < wanted.length - 1);
  const head = `old_string does not occur in "${rel}"`;
  const how = "copy the text exactly as file_read shows it, whitespace included";
  if (best === null)
    return refuse("file.no_match", `${head}, and no line resembles its first line; ${how}`, { candidate: null });
  const candidate = {
    line: best.index + 1,
    text: clip(fileLines[best.index]!),
    similarity: Math.round(best.score * 100) / 100,
  };
  if (best.exact) {
    // The first line is there: point at the first following line that differs (the last one may be a prefix).
    for (let k = anchorAt + 1; k < wanted.length; k++) {
      const fileLine = fileLines[best.index + k - anchorAt];
      const same =
        fileLine !== undefined && (k === wanted.length - 1 ? fileLine.startsWith(wanted[k]!) : fileLine === wanted[k]);
      if (!same) {
        const line = best.index + k - anchorAt + 1;
        const shown = fileLine === undefined ? "past the end of the file" : JSON.stringify(clip(fileLine));
        return refuse(
          "file.no_match",
          `${head}; its first line matches line ${candidate.line}, but the text differs at line ${line}, ` +
            `which is ${shown}; ${how}`,
          { candidate, differsAt: line },
        );
      }
    }
  }
  return refuse(
    "file.no_match",
    `${head}; the nearest candidate is line ${candidate.line} (similarity ${candidate.similarity}): ` +
      `${JSON.stringify(candidate.text)}; ${how}`,
    { candidate },
  );
}

const normalize = (s: string) => s.trim().replace(/\s+/g, " ").slice(0, 1000);

/**
 * The line most similar to `wanted`, whitespace runs ignored. Similarity is the mean of the bigram
 * Dice coefficient (both strings alike) and bigram containment (how much of `wanted` the line holds,
 * so a partial line still finds its line); ties go to the first line. Linear in the file.
 */
function nearest(
  wanted: string,
  lines: readonly string[],
  mustEnd: boolean,
): { index: number; score: number; exact: boolean } | null {
  const target = normalize(wanted);
  const grams = bigrams(target);
  const a = Math.max(target.length - 1, 0);
  let best: { index: number; score: number; exact: boolean } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = normalize(lines[i]!);
    if (mustEnd ? line.endsWith(target) : line.includes(target)) return { index: i, score: 1, exact: true };
    if (a === 0) continue; // a one-character line matches only by inclusion
    const b = Math.max(line.length - 1, 0);
    const cap = ((2 * Math.min(a, b)) / (a + b) + Math.min(a, b) / a) / 2; // the most this line could score
    if (cap <= (best?.score ?? 0)) continue;
    const shared = sharedBigrams(grams, line);
    const score = ((2 * shared) / (a + b) + shared / a) / 2;
    if (best === null || score > best.score) best = { index: i, score, exact: false };
  }
  return best !== null && best.score >= NEAREST_MIN_SIMILARITY ? best : null;
}

const gram = (s: string, i: number) => s.charCodeAt(i) * 65536 + s.charCodeAt(i + 1);

function bigrams(s: string): Map<number, number> {
  const m = new Map<number, number>();
  for (let i = 0; i + 1 < s.length; i++) m.set(gram(s, i), (m.get(gram(s, i)) ?? 0) + 1);
  return m;
}

/** Bigrams `s` shares with the multiset `grams` (each counted at most as often as it occurs in both). */
function sharedBigrams(grams: ReadonlyMap<number, number>, s: string): number {
  const used = new Map<number, number>();
  let shared = 0;
  for (let i = 0; i + 1 < s.length; i++) {
    const g = gram(s, i);
    const u = used.get(g) ?? 0;
    if (u < (grams.get(g) ?? 0)) {
      shared++;
      used.set(g, u + 1);
    }
  }
  return shared;
}
