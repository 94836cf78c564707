// The refusal registry against the source: tsc refuses an unregistered code where the types reach;
// this reads src/ for the codes written where they may not (a field still typed string, a journal
// row), and for registered codes nothing gives any more.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { CODES, isCode, type CodeOutcome } from "../../src/result/codes.ts";

const SRC = join(import.meta.dir, "..", "..", "src");
const REGISTRY = join("result", "codes.ts");

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

const sources = files(SRC)
  .map((f) => ({ rel: relative(SRC, f), text: readFileSync(f, "utf8") }))
  .filter((s) => s.rel !== REGISTRY && !s.rel.startsWith("generated/"));

/** An errno (ENOENT, EEXIST, ...) is a code too, of the system's: never a refusal's. */
const errno = (s: string) => /^E[A-Z0-9]+$/.test(s);

/** What `typeof` answers: a comparison with one of these is not about a code's value. */
const TYPEOF = new Set(["string", "number", "boolean", "object", "undefined", "function", "bigint", "symbol"]);

/** The text of a call's first argument, from just after its "(". */
function firstArgument(text: string, from: number): string {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) {
      if (depth === 0) return text.slice(from, i);
      depth--;
    } else if (c === "," && depth === 0) return text.slice(from, i);
  }
  return text.slice(from);
}

/**
 * Where a refusal code is written in `text`, as [code, where] pairs: the first argument of
 * result.ts's refuse() (each branch of a choice; an operand compared is not one), a `code` or
 * `error_code` field or literal type, a comparison with one, a constant or table checked against
 * Code, the Most and rail words. `dynamic` gets each refuse() whose code is built at run time.
 */
function codesWritten(rel: string, text: string, dynamic: string[] = []): [string, string][] {
  const out: [string, string][] = [];
  const at = (i: number) => `${rel}:${text.slice(0, i).split("\n").length}`;
  if (/import[^;]*\brefuse\b[^;]*result\/result\.ts"/.test(text)) {
    for (const m of text.matchAll(/\brefuse\(/g)) {
      const arg = firstArgument(text, m.index + m[0].length);
      if (arg.includes("`")) dynamic.push(at(m.index));
      for (const l of arg.replace(/(?:===|!==)\s*"[^"]*"/g, "").matchAll(/"([^"]*)"/g)) out.push([l[1]!, at(m.index)]);
    }
  }
  for (const m of text.matchAll(/\b(?:error_code|code)\??\s*:\s*"([^"]+)"/g))
    if (!errno(m[1]!)) out.push([m[1]!, at(m.index)]);
  // Compared: any value with a refusal's or a result's code; with another `code`, one shaped like a refusal code (not a schema issue's).
  for (const m of text.matchAll(/\b(refusal\.code|error_code|code)\s*[!=]==\s*"([^"]+)"/g)) {
    if (m[1] === "code" ? /^[a-z_]+\.[a-z_]+$/.test(m[2]!) : !TYPEOF.has(m[2]!)) out.push([m[2]!, at(m.index)]);
  }
  for (const m of text.matchAll(/"([^"]+)"\s+satisfies\s+Code\b/g)) out.push([m[1]!, at(m.index)]);
  for (const m of text.matchAll(
    /(?:\bcodes:\s*)?\{([^{}]*)\}(?:\s*as const)?(?:\s*satisfies\s+Record<[^;]*,\s*Code>)?/g,
  )) {
    if (!m[0].startsWith("codes:") && !/satisfies\s+Record</.test(m[0])) continue;
    for (const l of m[1]!.matchAll(/:\s*"([^"]+)"/g)) out.push([l[1]!, at(m.index)]);
  }
  for (const m of text.matchAll(/\bjournalExit\([^,]+,\s*"([^"]+)"/g)) out.push([m[1]!, at(m.index)]);
  return out;
}

describe("refusal codes", () => {
  const written = sources.flatMap((s) => codesWritten(s.rel, s.text));

  test("the scan finds codes in each place one is written", () => {
    const sample = [
      'import { refuse } from "../result/result.ts";',
      'refuse("a.one", `x ${y}`);',
      'refuse(k === "no" ? "a.two" : "a.three", "m");',
      'return { ok: false, refusal: { code: "a.four", message } };',
      'if (r.error_code === "a.five" || typeof e.code === "string" || e.code === "ENOENT" || i.code === "invalid_type") {}',
      'const U = "a.six" satisfies Code;',
      'const T = { x: "a.seven" } as const satisfies Record<K, Code>;',
      'words({ who, codes: { status: "a.eight", tooLarge: "a.nine" } });',
      'this.remote.journalExit(spec, "a.ten", why);',
      'refuse(`a.${kind}`, "m");',
    ].join("\n");
    const dynamic: string[] = [];
    expect(
      codesWritten("x.ts", sample, dynamic)
        .map(([c]) => c)
        .sort(),
    ).toEqual(["a.eight", "a.five", "a.four", "a.nine", "a.one", "a.seven", "a.six", "a.ten", "a.three", "a.two"]);
    expect(dynamic).toEqual(["x.ts:10"]);
  });

  test("every code written in src/ is registered", () => {
    expect(written.length).toBeGreaterThan(200);
    expect(written.filter(([c]) => !isCode(c)).map(([c, where]) => `${c} (${where})`)).toEqual([]);
  });

  test("no refuse() builds its code at run time: each value is written out, so it can be found", () => {
    const dynamic: string[] = [];
    for (const s of sources) codesWritten(s.rel, s.text, dynamic);
    expect(dynamic).toEqual([]);
  });

  test("every registered code is given somewhere in src/ (a comment naming it is not a use)", () => {
    const all = sources.map((s) => s.text.replace(/^\s*(?:\/\/|\/?\*).*$/gm, "")).join("\n");
    expect(Object.keys(CODES).filter((c) => !all.includes(`"${c}"`))).toEqual([]);
  });

  test("a refusal marked indeterminate carries a code registered as such", () => {
    const marked: string[] = [];
    for (const s of sources) {
      for (const m of s.text.matchAll(/\bindeterminate: true\b/g)) {
        const before = [...s.text.slice(Math.max(0, m.index - 300), m.index).matchAll(/\bcode: "([^"]+)"/g)].at(
          -1,
        )?.[1];
        marked.push(before ?? `no code before ${s.rel}:${s.text.slice(0, m.index).split("\n").length}`);
      }
    }
    expect(marked.length).toBeGreaterThan(0);
    expect(marked.filter((c) => !isCode(c) || !["indeterminate", "either"].includes(CODES[c].outcome))).toEqual([]);
  });

  // An outcome and its exit code say the same thing twice: they must agree.
  const EXITS: Record<CodeOutcome, readonly (number | null)[]> = {
    failed: [1, 4, 5, 130],
    indeterminate: [3, 130],
    either: [1],
    stderr: [2, 5],
    journal: [null],
  };
  test("each code's exit agrees with its outcome, and its meaning is one line", () => {
    const off = Object.entries(CODES).filter(
      ([, c]) => !EXITS[c.outcome].includes(c.exit) || !/^[^\n]{10,200}$/.test(c.meaning),
    );
    expect(off.map(([code]) => code)).toEqual([]);
  });
});
