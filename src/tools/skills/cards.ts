// Skill cards (shared by skill_list and skill_load): a card is a folder holding SKILL.md with
// `name` and `description` front matter. Sources: the configured skill folders, in order, then
// the cards bundled in the binary. The first card of a name wins, so the workspace's own cards
// shadow bundled ones (the user controls them); the losers are reported, never silently dropped.
// Reads never leave a configured folder, and configured folders never leave the workspace
// (results speak in workspace-relative paths, like the file tools, whatever the grants).
import { closeSync, fstatSync, readdirSync, readSync, statSync } from "node:fs";
import { CHANGED, inDir, O_DIR, O_FILE, openChecked } from "../../fs/opened.ts";
import { relative, sep } from "node:path";
import type { NeedsContext } from "../../catalog/declare.ts";
import { resolveReal } from "../../fs/real-path.ts";
import type { Need } from "../../permission/types.ts";
import { isInside } from "../files/workspace.ts";

/** A card's whole text, JSON-serialized in UTF-8, stays within this (skill_load returns it whole). */
export const CARD_BOUND_BYTES = 48_000;
/** Entries looked at per configured folder; past it the answer says `scanCapped`. */
export const FOLDER_SCAN_BOUND = 500;
/** The agent-skills bound on a description; longer ones are clipped (and counted) in listings. */
export const DESCRIPTION_BOUND_CHARS = 1024;
/** Lenient on purpose (the agent-skills format asks for lowercase and hyphens; others exist). */
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export type CardSource = "workspace" | "bundled";
export interface Card {
  readonly name: string;
  readonly description: string;
  readonly source: CardSource;
  /** Workspace-relative (`skills/x/SKILL.md`) or `bundled:NAME`. */
  readonly path: string;
  readonly text: string;
}
export interface Skipped {
  readonly path: string;
  readonly reason: string;
}
export interface FolderReport {
  /** Workspace-relative; null for a folder outside the workspace (its path is not shown). */
  readonly path: string | null;
  readonly status: "read" | "missing" | "not a folder" | "outside the workspace";
}
export interface Discovery {
  /** The winners, sorted by name (UTF-16 code units, not locale). */
  readonly cards: Card[];
  readonly shadowed: { name: string; path: string; by: string }[];
  readonly skipped: Skipped[];
  readonly folders: FolderReport[];
  readonly scanCapped: boolean;
}
export interface BundledCard {
  readonly folder: string;
  readonly text: string;
}

export type Parsed = { ok: true; name: string; description: string } | { ok: false; reason: string };
const bad = (reason: string): Parsed => ({ ok: false, reason });

/**
 * Reads `name` and `description` from the front matter without a YAML library: plain, single-
 * and double-quoted scalars (one line or folded over several), and `|` / `>` block scalars.
 * Every other key is skipped with its indented lines.
 */
export function parseFrontMatter(text: string): Parsed {
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\n|\r/);
  if (lines[0]?.trimEnd() !== "---") return bad("no front matter: the file must start with a --- line");
  const end = lines.findIndex((l, i) => i > 0 && (l.trimEnd() === "---" || l.trimEnd() === "..."));
  if (end < 0) return bad("the front matter has no closing --- line");
  const found = new Map<string, string>();
  for (let i = 1; i < end; ) {
    const m = /^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$/.exec(lines[i]!);
    let j = ++i;
    while (j < end && (/^[ \t]/.test(lines[j]!) || lines[j]!.trim() === "")) j++; // the key's indented lines
    const key = m?.[1];
    if (key === "name" || key === "description") {
      if (found.has(key)) return bad(`the front matter gives "${key}" twice`);
      const value = scalar((m![2] ?? "").trimEnd(), lines.slice(i, j));
      if (value === null) return bad(`"${key}" is not a plain or quoted string`);
      found.set(key, value.trim());
    }
    i = j;
  }
  const name = found.get("name");
  const description = found.get("description");
  if (!name) return bad('missing "name" in the front matter');
  if (!description) return bad('missing "description" in the front matter');
  if (!NAME_RE.test(name))
    return bad(
      `the name ${JSON.stringify(name.slice(0, 80))} is not 1-64 letters, digits, ".", "_" or "-" starting ` +
        `with a letter or digit`,
    );
  return { ok: true, name, description };
}

/** One scalar from its first line's text and its indented continuation lines; null if unsupported. */
function scalar(first: string, more: string[]): string | null {
  if (first.startsWith('"') || first.startsWith("'")) return quoted([first, ...more]);
  const block = /^([|>])([+-]?)[1-9]?([+-]?)[ \t]*(?:#.*)?$/.exec(first);
  if (block) return blockScalar(block[1] === ">", more);
  if (/^[[{&*!%@`]/.test(first)) return null; // collections, anchors, aliases, tags
  const head = first.replace(/(^|[ \t])#.*$/, "");
  return fold([head, ...more].map((l) => l.trim()));
}

/** Plain-scalar folding: a line break is a space, an empty line is a newline. */
function fold(lines: readonly string[]): string {
  let out = "";
  let pending = "";
  for (const l of lines) {
    if (l === "") pending += out === "" ? "" : "\n";
    else {
      out += out === "" ? l : (pending || " ") + l;
      pending = "";
    }
  }
  return out;
}

function blockScalar(folded: boolean, body: readonly string[]): string {
  const firstText = body.find((l) => l.trim() !== "");
  if (firstText === undefined) return "";
  const indent = /^[ \t]*/.exec(firstText)![0].length;
  const lines = body.map((l) => (l.trim() === "" ? "" : l.slice(Math.min(indent, /^[ \t]*/.exec(l)![0].length))));
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return folded ? fold(lines) : lines.join("\n");
}

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  '"': '"',
  "\\": "\\",
  "/": "/",
  "0": "\0",
  " ": " ",
  b: "\b",
  f: "\f",
  e: "\x1b",
  a: "\x07",
  v: "\v",
};

/** A single- or double-quoted scalar over one or more lines; nothing but a comment may follow it. */
function quoted(lines: readonly string[]): string | null {
  const q = lines[0]![0]!;
  const src = lines.map((l, i) => (i === 0 ? l.slice(1) : l.trim())).join("\n");
  let out = "";
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === q) {
      if (q === "'" && src[i + 1] === "'") {
        out += "'";
        i++;
        continue;
      }
      return /^[ \t]*(#.*)?$/.test(src.slice(i + 1).replace(/\n/g, "")) ? out : null;
    }
    if (c === "\n") {
      out = out.trimEnd();
      let blank = 0;
      while (src[i + 1] === "\n") blank++, i++;
      out += blank > 0 ? "\n".repeat(blank) : " ";
    } else if (c === "\\" && q === '"') {
      const e = src[++i];
      const hex = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
      if (hex > 0) {
        const digits = src.slice(i + 1, i + 1 + hex);
        if (!/^[0-9A-Fa-f]+$/.test(digits) || digits.length !== hex) return null;
        out += String.fromCodePoint(Number.parseInt(digits, 16));
        i += hex;
      } else if (e === "\n") {
        // an escaped line break joins the lines with nothing between them
      } else if (e !== undefined && ESCAPES[e] !== undefined) out += ESCAPES[e];
      else return null;
    } else out += c;
  }
  return null; // no closing quote
}

/** A description as one listing line: whitespace collapsed, clipped to the bound. */
export function oneLine(description: string): { text: string; clipped: boolean } {
  const flat = description.replace(/\s+/g, " ").trim();
  const clipped = flat.length > DESCRIPTION_BOUND_CHARS;
  return { text: clipped ? `${flat.slice(0, DESCRIPTION_BOUND_CHARS)}…` : flat, clipped };
}

/** The permissions a card read needs: read of each configured folder's real path that exists. */
export function skillNeeds(ctx: NeedsContext): Need[] {
  const root = resolveReal(ctx.workspace, "/");
  if (root === null) return [];
  const existing = (dir: string): Need[] => {
    const f = folderOf(root, dir);
    return f.status === "read" ? [{ kind: "read", value: f.real, recursive: true }] : [];
  };
  return ctx.skillDirs.flatMap(existing);
}

function folderOf(root: string, dir: string): FolderReport & { real: string } {
  const real = resolveReal(dir, root) ?? "";
  if (real === "" || !isInside(root, real)) return { path: null, status: "outside the workspace", real };
  const path = relative(root, real).split(sep).join("/") || ".";
  try {
    return { path, status: statSync(real).isDirectory() ? "read" : "not a folder", real };
  } catch {
    return { path, status: "missing", real };
  }
}

/** Every card from the configured folders (in order), then the bundled ones. */
export function discoverCards(
  workspace: string,
  skillDirs: readonly string[],
  bundled: readonly BundledCard[],
): Discovery {
  const root = resolveReal(workspace, "/");
  const found: Card[] = [];
  const skipped: Skipped[] = [];
  const folders: FolderReport[] = [];
  let scanCapped = false;
  /** `where` is the path shown for a skipped card; a bundled card's path comes from its name. */
  const take = (text: string, source: CardSource, where: string): void => {
    const parsed = parseFrontMatter(text);
    if (!parsed.ok) skipped.push({ path: where, reason: parsed.reason });
    else if (serializedBytes(text) > CARD_BOUND_BYTES) skipped.push({ path: where, reason: TOO_LARGE });
    else
      found.push({
        name: parsed.name,
        description: parsed.description,
        source,
        path: source === "bundled" ? `bundled:${parsed.name}` : where,
        text,
      });
  };
  for (const dir of root === null ? [] : skillDirs) {
    const f = folderOf(root!, dir);
    folders.push({ path: f.path, status: f.status });
    if (f.status !== "read") continue;
    let entries: string[];
    // Listed through a verified descriptor: a folder swapped for a symlink is not listed.
    const opened = openChecked(f.real, O_DIR);
    try {
      if (!opened.ok)
        throw Object.assign(new Error(opened.code), {
          code: opened.code === CHANGED ? "a symlink was swapped in" : opened.code,
        });
      entries = readdirSync(inDir(opened.fd, "."))
        .filter((e) => !e.startsWith("."))
        .sort(byCodeUnit);
    } catch (e) {
      skipped.push({ path: f.path!, reason: `the folder cannot be listed (${(e as NodeJS.ErrnoException).code})` });
      continue;
    } finally {
      if (opened.ok) closeSync(opened.fd);
    }
    if (entries.length > FOLDER_SCAN_BOUND) {
      scanCapped = true;
      entries = entries.slice(0, FOLDER_SCAN_BOUND);
    }
    for (const entry of entries) {
      const shown = `${f.path === "." ? "" : `${f.path}/`}${entry}/SKILL.md`;
      const card = resolveReal(`${entry}/SKILL.md`, f.real);
      if (card === null || !isInside(f.real, card)) {
        skipped.push({ path: shown, reason: "it leaves the skill folder (a symlink)" });
        continue;
      }
      const read = readCard(card);
      if (read === "absent") continue; // a folder without SKILL.md (or a plain file) is not a card
      if (typeof read === "object") skipped.push({ path: shown, reason: read.reason });
      else take(read, "workspace", shown);
    }
  }
  for (const b of bundled) take(b.text, "bundled", `bundled:${b.folder}`);
  const winners = new Map<string, Card>();
  const shadowed: Discovery["shadowed"] = [];
  for (const c of found) {
    const first = winners.get(c.name);
    if (first) shadowed.push({ name: c.name, path: c.path, by: first.path });
    else winners.set(c.name, c);
  }
  const cards = [...winners.values()].sort((a, b) => byCodeUnit(a.name, b.name));
  return { cards, shadowed, skipped, folders, scanCapped };
}

const TOO_LARGE = `larger than the card bound (${CARD_BOUND_BYTES} bytes serialized)`;
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const serializedBytes = (s: string) => Buffer.byteLength(JSON.stringify(s), "utf8") - 2;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The card's text; "absent" when there is no SKILL.md file; a reason when it cannot be a card. */
function readCard(abs: string): string | "absent" | { reason: string } {
  // The resolved path itself (src/fs/opened.ts): a symlink swapped in since, at the card or a folder above it, is
  // refused.
  const opened = openChecked(abs, O_FILE);
  if (!opened.ok) {
    const code = opened.code;
    if (code === CHANGED) return { reason: "SKILL.md changed while it was being read (a symlink was swapped in)" };
    return code === "ENOENT" || code === "ENOTDIR" ? "absent" : { reason: `SKILL.md cannot be read (${code})` };
  }
  const fd = opened.fd;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { reason: "SKILL.md is not a regular file" };
    if (st.size > CARD_BOUND_BYTES) return { reason: TOO_LARGE }; // serialized is never smaller than raw
    const buf = Buffer.alloc(st.size);
    let off = 0;
    for (let n = 1; off < st.size && n > 0; off += n) n = readSync(fd, buf, off, st.size - off, off);
    if (buf.includes(0)) return { reason: "SKILL.md is binary (it holds a NUL byte)" };
    try {
      return utf8.decode(buf.subarray(0, off));
    } catch {
      return { reason: "SKILL.md is not UTF-8 text" };
    }
  } finally {
    closeSync(fd);
  }
}
