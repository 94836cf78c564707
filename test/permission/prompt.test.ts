// Full suite only: the prompter in a child on a pseudo-terminal (util-linux script).
import { expect, test } from "bun:test";
import { join } from "node:path";
import { escapeControl } from "../../src/result/escape.ts";
import { askTty, noPrompter, promptText, ttyPrompter, type PromptRequest } from "../../src/permission/prompt.ts";

const req: PromptRequest = { kind: "read", value: "/x", reason: "file_read", flag: "--allow-read=/x" };

test.each([
  ["plain/path", "plain/path"],
  ["a\x1b[31mred", "a\\u{1b}[31mred"],
  ["line\nbreak\r", "line\\u{a}break\\u{d}"],
  ["nul\0del\x7f", "nul\\u{0}del\\u{7f}"],
  ["c1\u009b", "c1\\u{9b}"],
  ["bidi\u202eTXT", "bidi\\u{202e}TXT"],
  ["ünïcödé ✅", "ünïcödé ✅"],
])("escapeControl(%j)", (input, expected) => {
  expect(escapeControl(input)).toBe(expected);
});

test("the prompt is worded like Deno's", () => {
  expect(promptText(req)).toBe(
    `┏ ⚠️  toolgate requests read access to "/x".\n` +
      "┠─ Requested by tool `file_read`.\n" +
      "┠─ Run again with --allow-read=/x to bypass this prompt.\n" +
      "┗ Allow? [y/n/A] (y = yes, allow; n = no, deny; A = allow all read permissions) > ",
  );
});

test("noPrompter says no", () => {
  expect(noPrompter(req)).toBe("n");
});

test("without a terminal, askTty gives no answer and ttyPrompter says no", () => {
  expect(askTty("/nonexistent/tty", "?", ["y"])).toBeNull();
  expect(ttyPrompter("/nonexistent/tty")(req)).toBe("n");
});

// Runs the prompter in a child whose controlling terminal is a pty made by util-linux
// `script`; what is fed on script's stdin is what the person types.
async function underPty(request: PromptRequest, typed: string): Promise<string> {
  const child = join(import.meta.dir, "fixtures", "tty-child.ts");
  const b64 = Buffer.from(JSON.stringify(request)).toString("base64");
  const cmd = `'${process.execPath}' '${child}' ${b64}`;
  const proc = Bun.spawn(["script", "-qec", cmd, "/dev/null"], {
    stdin: Buffer.from(typed),
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: "/usr/bin:/bin", SHELL: "/bin/sh", TERM: "dumb" },
    timeout: 15_000,
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`script exited ${code}: ${err}${out}`);
  return out.replaceAll("\r\n", "\n");
}

test("ttyPrompter asks on the terminal and honours y", async () => {
  const out = await underPty(req, "y\n");
  expect(out).toContain(promptText(req));
  expect(out).toContain(`✅ Granted read access to "/x".`);
  expect(out).toContain("ANSWER=y");
}, 20_000);

test("ttyPrompter honours n", async () => {
  const out = await underPty(req, "n\n");
  expect(out).toContain(`❌ Denied read access to "/x".`);
  expect(out).toContain("ANSWER=n");
}, 20_000);

test("ttyPrompter re-asks on an unrecognized answer, then honours A", async () => {
  const out = await underPty(req, "maybe\nA\n");
  expect(out).toContain("┗ Unrecognized option. Allow? [y/n/A]");
  expect(out).toContain("✅ Granted all read access.");
  expect(out).toContain("ANSWER=A");
}, 20_000);

test("ttyPrompter gives up after three unrecognized answers", async () => {
  const out = await underPty(req, "a\nyes\nno\ny\n");
  expect(out.split("Unrecognized option").length - 1).toBe(2);
  expect(out).toContain("ANSWER=n");
}, 20_000);

test("ttyPrompter shows an escape character in the reason and value made visible", async () => {
  const evil = { ...req, value: "/x\x1b[2J", reason: "tool\x1b]0;pwned\x07" };
  const out = await underPty(evil, "n\n");
  expect(out).toContain("Requested by tool `tool\\u{1b}]0;pwned\\u{7}`.");
  expect(out).toContain(`read access to "/x\\u{1b}[2J"`);
  expect(out).not.toContain("\x1b");
  expect(out).toContain("ANSWER=n");
}, 20_000);
