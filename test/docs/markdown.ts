// The documentation's runnable examples, read from the Markdown (the convention is in
// docs/development.md, "Examples in the documentation"): every ```sh, ```bash and ```console
// block runs unless its fence says `no-run: REASON`; `<!-- file: PATH -->` before a block writes
// that block into the workspace of the next runnable block, `<!-- setup: ... -->` runs shell
// there first; a console block's output lines are compared, `…` standing for any text.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const RUNNABLE = new Set(["sh", "bash", "console"]);

export interface Line {
  /** 1-based line number in the Markdown file. */
  readonly at: number;
  readonly text: string;
}

export interface Example {
  /** Relative to the repository root. */
  readonly file: string;
  /** The fence's line. */
  readonly line: number;
  readonly lang: "sh" | "bash" | "console";
  readonly body: readonly Line[];
  /** Why it does not run; null when it runs. */
  readonly noRun: string | null;
  /** `<!-- setup: -->` shell, in the order written. */
  readonly setup: readonly string[];
  /** `<!-- file: PATH -->` blocks since the last runnable block. */
  readonly files: readonly { readonly path: string; readonly text: string }[];
}

/** README.md, docs/*.md and skills/* /SKILL.md, in that order. */
export function documentationFiles(root: string): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  const skills = readdirSync(join(root, "skills"))
    .sort()
    .map((d) => `skills/${d}/SKILL.md`);
  return ["README.md", ...docs, ...skills];
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)\s*(.*)$/;
const COMMENT = /^\s*<!--\s*(file|setup|no-run):\s*([\s\S]*?)\s*-->\s*$/;

/** The runnable blocks of one Markdown text; throws (naming file:line) on a malformed directive. */
export function parseExamples(file: string, markdown: string): Example[] {
  const lines = markdown.split("\n");
  const out: Example[] = [];
  let setup: string[] = [];
  let files: { path: string; text: string }[] = [];
  let nextFile: string | null = null;
  let nextNoRun: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    if (text.trimStart().startsWith("<!--")) {
      // A directive may span lines up to its -->.
      let j = i;
      while (!lines[j]!.includes("-->") && j < lines.length - 1) j++;
      const comment = lines.slice(i, j + 1).join("\n");
      const m = COMMENT.exec(comment);
      if (m?.[1] === "setup") setup.push(m[2]!);
      if (m?.[1] === "file") nextFile = m[2]!;
      // `<!-- no-run: REASON -->` before a block: the same as on its fence, for a block whose fence stays plain (the README's two commands).
      if (m?.[1] === "no-run") nextNoRun = m[2]!.trim();
      i = j;
      continue;
    }
    const fence = FENCE.exec(text);
    if (fence === null) continue;
    const [, indent, marks, lang, info] = fence as unknown as [string, string, string, string, string];
    const body: Line[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      if (l.trim().startsWith(marks) && l.trim().replace(/[`~]/g, "") === "") break;
      body.push({ at: j + 1, text: l.startsWith(indent) ? l.slice(indent.length) : l.trimStart() });
    }
    if (j === lines.length) throw new Error(`${file}:${i + 1}: a fence that is never closed`);
    if (nextFile !== null) {
      files.push({ path: nextFile, text: body.map((l) => `${l.text}\n`).join("") });
      nextFile = null;
    } else if (RUNNABLE.has(lang)) {
      const noRun = nextNoRun !== null && info === "" ? ["", nextNoRun] : /^no-run\b:?\s*(.*)$/.exec(info);
      nextNoRun = null;
      if (info !== "" && noRun === null)
        throw new Error(`${file}:${i + 1}: "${info}" after the language: only "no-run: REASON" is read there`);
      if (noRun !== null && noRun[1]!.trim() === "")
        throw new Error(`${file}:${i + 1}: no-run needs a reason (no-run: REASON)`);
      out.push({
        file,
        line: i + 1,
        lang: lang as Example["lang"],
        body,
        noRun: noRun ? noRun[1]!.trim() : null,
        setup,
        files,
      });
      setup = [];
      files = [];
    }
    i = j;
  }
  if (nextFile !== null || setup.length > 0 || files.length > 0)
    throw new Error(`${file}: a file: or setup: directive with no runnable block after it`);
  return out;
}

export interface ConsoleCommand {
  readonly at: number;
  readonly command: string;
  readonly expected: readonly string[];
}

/** A console block's `$ ` commands (a line ending in \ continues one), each with the lines shown after it. */
export function consoleCommands(ex: Example): ConsoleCommand[] {
  const out: { at: number; command: string; expected: string[] }[] = [];
  let open = false;
  for (const l of ex.body) {
    if (open) {
      const last = out.at(-1)!;
      last.command += `\n${l.text}`;
      open = l.text.endsWith("\\");
    } else if (l.text.startsWith("$ ")) {
      out.push({ at: l.at, command: l.text.slice(2), expected: [] });
      open = l.text.endsWith("\\");
    } else if (out.length === 0) {
      throw new Error(`${ex.file}:${l.at}: a console block starts with a command ("$ ...")`);
    } else {
      out.at(-1)!.expected.push(l.text);
    }
  }
  return out;
}

const ANY = "…";

/**
 * Whether `actual` lines match `expected`: `…` in a line is any text; a line that is only `…` is any
 * number of lines; a run of spaces is a run of spaces, whatever its length (a table's padding
 * follows the length of the paths normalise() shortened).
 */
export function matches(expected: readonly string[], actual: readonly string[]): boolean {
  const padding = (l: string) => l.replace(/ {2,}/g, "  ");
  const patterns = expected.map((e) =>
    e.trim() === ANY ? null : new RegExp(`^${padding(e).split(ANY).map(escapeRegExp).join(".*")}$`),
  );
  actual = actual.map(padding);
  const memo = new Map<string, boolean>();
  const go = (p: number, a: number): boolean => {
    const key = `${p},${a}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let r: boolean;
    if (p === patterns.length) r = a === actual.length;
    else if (patterns[p] === null) r = go(p + 1, a) || (a < actual.length && go(p, a + 1));
    else r = a < actual.length && patterns[p]!.test(actual[a]!) && go(p + 1, a + 1);
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** What varies from run to run, made what the pages write: the workspace is /w, the home ~. */
export function normalise(output: string, places: { workspace: string; home: string; root: string }): string[] {
  const text = output
    .replaceAll(places.workspace, "/w")
    .replaceAll(places.home, "~")
    .replaceAll(places.root, "/tmp/…")
    .replace(/\n+$/, "");
  return text === "" ? [] : text.split("\n");
}

export const readDoc = (root: string, file: string): string => readFileSync(join(root, file), "utf8");
