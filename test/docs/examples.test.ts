// Every runnable example of README.md, docs/*.md and skills/*/SKILL.md runs against dist/toolgate
// in a scratch workspace (docs/development.md, "Examples in the documentation"), inside a network
// namespace holding only loopback. A failure names the Markdown file and line.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, ROOT, tempDir } from "../helpers.ts";
import { inLoopbackNamespace } from "../http/netns.ts";
import {
  consoleCommands,
  documentationFiles,
  matches,
  normalise,
  parseExamples,
  readDoc,
  type Example,
} from "./markdown.ts";

/** The workspace every example starts from: a git repository holding these files, committed. */
const WORKSPACE: Readonly<Record<string, string>> = {
  "README.md": "# demo\n\nThe project the documentation's examples run in.\n",
  "docs/guide.md": "# Guide\n\nHow to use the demo.\n",
  "notes.txt": "hello world\nbye\n",
  "a.txt": "hi\n",
  "src/main.ts": 'console.log("main");\n',
  "src/util.ts": "export const twice = (n: number) => n * 2;\n",
  "src/util.test.ts":
    'import { expect, test } from "bun:test";\nimport { twice } from "./util.ts";\n\ntest("twice", () => expect(twice(2)).toBe(4));\n',
  "script/check-types.sh": "echo types ok\n",
  ".gitignore": "reports/\n",
};

const BLOCK_MS = 60_000;
let scripts = 0;

interface Scratch extends AsyncDisposable {
  readonly workspace: string;
  readonly env: Record<string, string>;
  readonly places: { workspace: string; home: string; root: string };
}

async function scratch(ex: Example): Promise<Scratch> {
  const t = tempDir("toolgate-docs-");
  const [w, home, runtime] = ["w", "home", "run"].map((d) => join(t.path, d)) as [string, string, string];
  mkdirSync(w);
  mkdirSync(home);
  mkdirSync(runtime, { mode: 0o700 });
  for (const [path, text] of Object.entries(WORKSPACE)) write(w, path, text);
  const env: Record<string, string> = {
    PATH: [dirname(BIN), dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
    HOME: home,
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_RUNTIME_DIR: runtime,
    CI: "true",
    LANG: "C.UTF-8",
    TERM: "dumb",
    GIT_AUTHOR_NAME: "docs",
    GIT_AUTHOR_EMAIL: "docs@example.invalid",
    GIT_COMMITTER_NAME: "docs",
    GIT_COMMITTER_EMAIL: "docs@example.invalid",
  };
  await sh("git init -q -b main && git add -A && git commit -qm workspace", w, env);
  for (const f of ex.files) write(w, f.path, f.text);
  return {
    workspace: realpathSync(w),
    env,
    places: { workspace: realpathSync(w), home, root: t.path },
    [Symbol.asyncDispose]: t[Symbol.asyncDispose],
  };
}

function write(root: string, path: string, text: string): void {
  const p = join(root, path);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
  if (text.startsWith("#!")) chmodSync(p, 0o755);
}

interface Ran {
  readonly code: number;
  readonly output: string;
}

/**
 * Runs `script` with bash in its own process group, stdout and stderr together (on a pseudo-terminal
 * with `tty`, through util-linux `script`); the group is ended afterwards.
 */
async function sh(
  script: string,
  cwd: string,
  env: Record<string, string>,
  tty = false,
  later?: number[],
): Promise<Ran> {
  const file = join(dirname(cwd), `example-${++scripts}.sh`);
  writeFileSync(file, `exec 2>&1\n${script}\n`);
  const argv = tty ? ["script", "-qec", `bash ${file}`, "/dev/null"] : ["bash", file];
  const proc = Bun.spawn(["setsid", ...argv], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => process.kill(-proc.pid, "SIGKILL"), BLOCK_MS);
  const [output, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  clearTimeout(timer);
  if (later) later.push(proc.pid);
  else endGroup(proc.pid);
  return { code, output: tty ? output.replaceAll("\r\n", "\n") : output };
}

function endGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // The group is gone already.
  }
}

async function runExample(ex: Example): Promise<void> {
  await using s = await scratch(ex);
  // What a setup leaves running (a server the example reaches) lives until the example ends.
  const setups: number[] = [];
  try {
    await runIn(ex, s, setups);
  } finally {
    for (const pgid of setups) endGroup(pgid);
    // A session an example started and, failing, did not stop would wait out its idle time.
    if (ex.body.some((l) => l.text.includes("session start")))
      await sh("toolgate session stop >/dev/null 2>&1 || true", s.workspace, s.env);
  }
}

async function runIn(ex: Example, s: Scratch, setups: number[]): Promise<void> {
  const where = `${ex.file}:${ex.line}`;
  for (const setup of ex.setup) {
    const r = await sh(`set -e\n${setup}`, s.workspace, { ...s.env, TOOLGATE_CHECKOUT: ROOT }, false, setups);
    if (r.code !== 0) throw new Error(`${where}: its setup failed (exit ${r.code}):\n${r.output}`);
  }
  if (ex.lang === "console") {
    for (const c of consoleCommands(ex)) {
      const r = await sh(c.command, s.workspace, s.env, true);
      const at = `${ex.file}:${c.at}`;
      const actual = normalise(r.output, s.places);
      if (c.expected.length === 0 && r.code !== 0)
        throw new Error(`${at}: exit ${r.code} (a command shown without output must succeed)\n${r.output}`);
      if (c.expected.length > 0 && !matches(c.expected, actual)) {
        throw new Error(
          `${at}: the output differs from the page (exit ${r.code})\n--- the page\n${c.expected.join("\n")}\n--- the run\n${actual.join("\n")}`,
        );
      }
    }
    return;
  }
  // The block's lines follow sh()'s exec line and the two below: line $LINENO is body[$LINENO - 4].
  const header = `set -eo pipefail\ntrap 'echo "docs-example-failed-at $LINENO" >&2' ERR`;
  const r = await sh(`${header}\n${ex.body.map((l) => l.text).join("\n")}`, s.workspace, s.env);
  if (r.code !== 0) {
    const m = /docs-example-failed-at (\d+)\s*$/.exec(r.output);
    const line = m ? (ex.body[Number(m[1]) - 4]?.at ?? ex.line) : ex.line;
    throw new Error(`${ex.file}:${line}: exit ${r.code}\n${r.output}`);
  }
}

const all = documentationFiles(ROOT).flatMap((f) => parseExamples(f, readDoc(ROOT, f)));

test("more of the examples run than are marked no-run (each with its reason)", () => {
  const skipped = all.filter((e) => e.noRun !== null).map((e) => `${e.file}:${e.line}: ${e.noRun}`);
  expect(all.length - skipped.length).toBeGreaterThan(skipped.length);
  // Each reason says why the block cannot run here, in words (the parser refuses an empty one).
  for (const s of skipped) expect(s).toMatch(/: \S.{9,}$/);
});

inLoopbackNamespace(import.meta.path, () => {
  describe("the documentation's examples", () => {
    for (const ex of all) {
      const name = `${ex.file}:${ex.line} (${ex.lang})`;
      // A no-run block is counted above, its reason required by the parser: no skipped test stands for it.
      if (ex.noRun === null) test(name, () => runExample(ex), BLOCK_MS + 10_000);
    }
  });
});
