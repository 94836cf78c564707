// toolgate.json's text as jsonc-parser reads it (comments, trailing commas): its tree, a value's
// node and position, and the refusal of a key given twice in one object. jsonc-parser is required on first use.
import type { Node, ParseError } from "jsonc-parser";
import { bootError } from "../result/result.ts";
import { findDuplicateKey } from "../schema/duplicate-key.ts";
import { offsetAt } from "./locate.ts";

/** jsonc-parser, loaded on first use (synchronously: line numbers are asked for lazily). */
// The ESM build: the UMD main resolves its parts at run time, which a compiled binary cannot.
const jsonc = (): typeof import("jsonc-parser") => require("jsonc-parser/lib/esm/main.js");
/**
 * Its parser alone (a tree, a node at a path), without the main module's formatter, whose tables
 * it builds as it loads: a line number (a server start's journal row, before the spawn) needs no more.
 */
export const jsoncParser = (): Pick<typeof import("jsonc-parser"), "parseTree" | "findNodeAtLocation"> =>
  require("jsonc-parser/lib/esm/impl/parser.js");

export function parseJsonc(path: string, text: string): Node;
export function parseJsonc(path: string, text: string, quiet: true): Node | undefined;
export function parseJsonc(path: string, text: string, quiet?: true): Node | undefined {
  const errors: ParseError[] = [];
  const tree = jsoncParser().parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || tree === undefined) {
    if (quiet) return undefined;
    const e = errors[0];
    const at = e ? position(lineStarts(text), e.offset) : { line: 1, column: 1 };
    const what = e ? jsonc().printParseErrorCode(e.error) : "empty file";
    throw bootError(
      `${path}:${at.line}:${at.column}: invalid JSON (${what})`,
      "fix the syntax there; comments and trailing commas are allowed",
    );
  }
  return tree;
}

/** For an unknown key the property's own node (so the column points at the key), else the value's. */
export function nodeAt(tree: Node, path: readonly (string | number)[], atKey: boolean): Node | undefined {
  const n = jsoncParser().findNodeAtLocation(tree, [...path]);
  return atKey && n?.parent?.type === "property" ? n.parent : n;
}

/**
 * A key given twice in one object: JSON.parse keeps the last, a line shown to the reviewer (the
 * start prompt's file:line) would be the first's, and another reader may take either; a hostile
 * config could show a harmless decoy. Refused, naming the key and the first copy. `tree`: the
 * file's jsonc tree when it is not plain JSON.
 */
export function refuseDuplicateKey(path: string, text: string, tree: Node | undefined): void {
  const twice = tree ? duplicateInTree(tree) : duplicateInText(text);
  if (!twice) return;
  const at = position(lineStarts(text), twice.offset);
  const where = twice.path.map(String).join(".");
  throw bootError(
    `${path}:${at.line}:${at.column}: ${JSON.stringify(where)} is given twice in one object: JSON readers ` +
      `disagree on which one counts, so toolgate reads neither`,
    `keep one "${String(twice.path[twice.path.length - 1])}" in that object and remove the other`,
  );
}

/** The first key given twice in one object, in plain JSON text: its path and where its first copy is (its value). */
function duplicateInText(text: string): { path: (string | number)[]; offset: number } | null {
  const segments = findDuplicateKey(text);
  if (segments === null) return null;
  const path = segments.map((s) => (typeof s === "number" ? s : s.key));
  return { path, offset: offsetAt(text, path) ?? 0 };
}

/** The same in a JSONC tree (comments may hold quotes and braces: the tree, not the text); the first copy's key. */
function duplicateInTree(
  n: Node,
  path: (string | number)[] = [],
): { path: (string | number)[]; offset: number } | null {
  const seen = new Map<string, number>();
  for (const [i, c] of (n.children ?? []).entries()) {
    const [k, v] = n.type === "object" ? (c.children ?? []) : [undefined, c];
    if (n.type === "object") {
      if (!k) continue;
      const key = k.value as string;
      const first = seen.get(key);
      if (first !== undefined) return { path: [...path, key], offset: first };
      seen.set(key, k.offset);
    }
    const inner =
      v && (v.type === "object" || v.type === "array")
        ? duplicateInTree(v, [...path, n.type === "object" ? (k!.value as string) : i])
        : null;
    if (inner) return inner;
  }
  return null;
}

export function treeValue(n: Node): unknown {
  switch (n.type) {
    case "object": {
      const o: Record<string, unknown> = {};
      for (const p of n.children ?? []) {
        const [k, v] = p.children ?? [];
        if (k && v) o[k.value as string] = treeValue(v);
      }
      return o;
    }
    case "array":
      return (n.children ?? []).map(treeValue);
    default:
      return n.value;
  }
}

export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

export function position(starts: readonly number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo]! + 1 };
}
