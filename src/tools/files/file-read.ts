// file_read: a bounded, line-numbered read of one workspace file, with the whole file's digest.
import { closeSync, fstatSync, readSync } from "node:fs";
import { defineTool } from "../../catalog/declare.ts";
import { sha256Hex } from "../../catalog/canonical.ts";
import { refuse, type Outcome } from "../../result/result.ts";
import { CHANGED, changedMessage, O_FILE, openChecked } from "../../fs/opened.ts";
import { resolveInside, targetInside } from "./workspace.ts";
import description from "./file-read.txt" with { type: "text" };

/** Files above this are refused whole: the digest covers the whole file. */
export const READ_BOUND_BYTES = 8 * 1024 * 1024;
/**
 * One answer's numbered text, measured as the output boundary measures it (UTF-8 bytes once
 * JSON-serialized, so quotes, control characters and non-ASCII count for what they cost),
 * stays within this: well under the 64 KiB boundary with the rest of the payload.
 */
export const ANSWER_BOUND_CHARS = 40_000;
export const LINE_BOUND_CHARS = 2_000;
const DEFAULT_LIMIT = 2_000;

export default defineTool({
  name: "file_read",
  description: description.trimEnd(),
  input: (type) =>
    type({
      "+": "reject",
      path: "string > 0",
      "offset?": "number.integer >= 1",
      "limit?": "1 <= number.integer <= 10000",
    }),
  effect: "read",
  approval: "required",
  needs: (args, ctx) => {
    const r = resolveInside(ctx.workspace, args.path);
    return r.ok ? { ok: true, value: [{ kind: "read", value: r.value.abs }] } : r;
  },
  handler: async (args, ctx) =>
    readFile(ctx.workspace, args.path, args.offset ?? 1, args.limit ?? DEFAULT_LIMIT, ctx.checked?.[0]?.value),
});

function readWhole(abs: string, rel: string): Outcome<Buffer> {
  // The checked path itself, never through a symlink, and only if the descriptor is that object.
  const opened = openChecked(abs, O_FILE);
  if (!opened.ok) {
    const code = opened.code;
    if (code === CHANGED) return refuse("path.changed", changedMessage(rel, "nothing was read"));
    if (code === "ENOENT" || code === "ENOTDIR")
      return refuse("file.missing", `"${rel}" does not exist; file_find lists what does`);
    if (code === "EISDIR")
      return refuse("file.not_a_file", `"${rel}" is a directory, not a file; use file_find to list it`);
    return refuse("file.unreadable", `"${rel}" cannot be read (${code})`);
  }
  const fd = opened.fd;
  try {
    const st = fstatSync(fd);
    if (st.isDirectory())
      return refuse("file.not_a_file", `"${rel}" is a directory, not a file; use file_find to list it`);
    if (!st.isFile()) return refuse("file.not_a_file", `"${rel}" is not a regular file`);
    if (st.size > READ_BOUND_BYTES) {
      return refuse(
        "file.too_large",
        `"${rel}" is ${st.size} bytes, above the read bound of ${READ_BOUND_BYTES}; use file_search to find ` +
          `the lines you need`,
        { size: st.size, bound: READ_BOUND_BYTES },
      );
    }
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return { ok: true, value: buf.subarray(0, off) };
  } finally {
    closeSync(fd);
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** `checked`: the real path the permission stage checked (the pipeline passes it); absent, `path` is resolved now. */
export function readFile(
  workspace: string,
  path: string,
  offset: number,
  limit: number,
  checked?: string,
): Outcome<unknown> {
  const r = targetInside(workspace, path, checked);
  if (!r.ok) return r;
  const { abs, rel } = r.value;
  const whole = readWhole(abs, rel);
  if (!whole.ok) return whole;
  const buf = whole.value;
  let text: string;
  try {
    if (buf.includes(0)) throw new Error("NUL"); // the whole file: a NUL anywhere makes it binary
    text = utf8.decode(buf);
  } catch {
    return refuse("file.binary", `"${rel}" is binary (not UTF-8 text); file_read only reads text`);
  }
  const digest = `sha256:${sha256Hex(buf)}`;
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  const totalLines = text === "" ? 0 : lines.length;
  const out: string[] = [];
  let bytes = 0;
  let clippedLines = 0;
  let next = offset;
  const width = String(Math.min(totalLines, offset + limit - 1)).length;
  for (let i = offset - 1; i < totalLines && i < offset - 1 + limit; i++) {
    const line = lines[i]!;
    const long = line.length > LINE_BOUND_CHARS;
    const shown = long ? `${clip(line, LINE_BOUND_CHARS)}… [line clipped: ${line.length} chars]` : line;
    const numbered = `${String(i + 1).padStart(width)}\t${shown}`;
    const cost = serializedBytes(numbered) + (out.length > 0 ? 2 : 0); // the "\n" joining it is 2 bytes serialized
    if (bytes + cost > ANSWER_BOUND_CHARS && out.length > 0) break;
    out.push(numbered);
    bytes += cost;
    if (long) clippedLines++; // counted only once shown: a line held back for the next page is not
    next = i + 2;
  }
  const truncated = next <= totalLines;
  return {
    ok: true,
    value: {
      path: rel,
      digest,
      totalLines,
      offset,
      lineCount: out.length,
      content: out.join("\n"),
      clippedLines,
      truncated,
      ...(truncated ? { nextCursor: next } : {}),
    },
  };
}

/** UTF-8 bytes of `s` inside a JSON string (without the quotes): what the output boundary counts. */
const serializedBytes = (s: string): number => Buffer.byteLength(JSON.stringify(s), "utf8") - 2;

/** The first `n` UTF-16 units of `s`, one fewer if the cut would split a surrogate pair. */
function clip(s: string, n: number): string {
  const c = s.charCodeAt(n - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n);
}
