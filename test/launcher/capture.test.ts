// Output capture: tails and totals, redaction across reads in tails and artifacts, and a
// failing artifact that fails the run while the child is still drained and reaped.
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REDACTED, StreamRedactor } from "../../src/boundary/redact.ts";
import { fileSink } from "../../src/launcher/artifacts.ts";
import { countChars, lastChars, StreamCapture, TAIL_CHARS } from "../../src/launcher/capture.ts";
import type { ArtifactSink } from "../../src/launcher/types.ts";
import { tempDir } from "../helpers.ts";
import { BUN, env, FIXTURES, gone, launcherWith, waitFor } from "./support.ts";

describe("tails and totals", () => {
  // 8 bytes, 4 characters, 5 UTF-16 units: ASCII, 2-byte, 4-byte (a surrogate pair), newline.
  const UNIT = "aé😀\n";
  const REPEAT = 131_072; // 1 MiB

  test.each([
    ["raw", {}],
    ["redacting", { secrets: { UNUSED_TOKEN: "never-printed-value" } }],
  ])("1 MiB of multibyte output keeps a %s 12,000-character tail and exact totals", async (_name, input) => {
    await using dir = tempDir();
    const r = await launcherWith().launch({
      argv: [BUN, join(FIXTURES, "emit.ts"), String(REPEAT), UNIT],
      env: env(input),
      cwd: dir.path,
      deadlineMs: 30_000,
      artifactsDir: join(dir.path, "artifacts"),
    });
    if (!r.ok) throw new Error(r.refusal.message);
    expect(r.value.stdout).toEqual({
      tail: UNIT.repeat(TAIL_CHARS / 4),
      bytes: 8 * REPEAT,
      chars: 4 * REPEAT,
      truncated: true,
    });
    expect(readFileSync(r.value.artifacts.stdout!, "utf8")).toBe(UNIT.repeat(REPEAT));
  });

  test("a character split across two reads is counted once", () => {
    const capture = new StreamCapture(null, null);
    const bytes = new TextEncoder().encode("x😀y");
    capture.push(bytes.subarray(0, 3));
    capture.push(bytes.subarray(3));
    expect(capture.end()).toEqual({ tail: "x😀y", bytes: 6, chars: 3, truncated: false });
  });

  test("invalid UTF-8 counts as replacement characters; the artifact keeps the raw bytes", async () => {
    await using dir = tempDir();
    const path = join(dir.path, "out.log");
    const capture = new StreamCapture(() => fileSink(path), null);
    capture.push(new Uint8Array([0x61, 0xff, 0x62, 0xe2, 0x82]));
    expect(capture.end()).toEqual({ tail: "a\ufffdb\ufffd", bytes: 5, chars: 4, truncated: false });
    expect([...readFileSync(path)]).toEqual([0x61, 0xff, 0x62, 0xe2, 0x82]);
  });

  test.each([
    ["short text", "abc", 5, "abc", false],
    ["ASCII", "abcdef", 3, "def", true],
    ["a surrogate pair is never split", "a😀b😀", 3, "😀b😀", true],
    ["the cut lands before a pair", "ab😀", 1, "😀", true],
  ] as const)("lastChars: %s", (_name, text, max, kept, cut) => {
    expect(lastChars(text, max)).toEqual({ text: kept, cut });
  });

  test("countChars counts code points", () => {
    expect([countChars(""), countChars("abc"), countChars("😀é")]).toEqual([0, 3, 2]);
  });
});

describe("redaction", () => {
  test("a secret split across two reads is redacted in the tail and the artifact", async () => {
    await using dir = tempDir();
    const [head, rest] = ["sk-live-", "4f9a0c7e1b"];
    const go = join(dir.path, "go");
    const pushed: string[] = [];
    const launcher = launcherWith({
      redactor: (secrets) => {
        const inner = new StreamRedactor(secrets);
        return { push: (chunk) => (pushed.push(chunk), inner.push(chunk)), flush: () => inner.flush() };
      },
    });
    const running = launcher.launch({
      argv: ["/bin/sh", join(FIXTURES, "split.sh"), head, rest, go],
      env: env({ secrets: { API_TOKEN: head + rest } }),
      cwd: dir.path,
      deadlineMs: 30_000,
      artifactsDir: join(dir.path, "artifacts"),
    });
    // The first half has been read before the second half is written: two reads, one secret.
    await waitFor("the first half to be read", () => pushed.join("").includes(head));
    writeFileSync(go, "");
    const r = await running;
    if (!r.ok) throw new Error(r.refusal.message);
    expect(pushed.some((chunk) => chunk.includes(head + rest))).toBe(false);
    expect(r.value.stdout.tail).toBe(`token=${REDACTED} end\n`);
    expect(readFileSync(r.value.artifacts.stdout!, "utf8")).toBe(`token=${REDACTED} end\n`);
    // Totals describe what the child wrote, not the redacted view.
    expect(r.value.stdout.bytes).toBe(`token=${head}${rest} end\n`.length);
  });

  test("secrets are redacted from stderr too", async () => {
    await using dir = tempDir();
    const r = await launcherWith().launch({
      argv: ["/bin/sh", "-c", 'echo "key=$API_TOKEN" >&2'],
      env: env({ secrets: { API_TOKEN: "tok-abcdef-123" } }),
      cwd: dir.path,
      deadlineMs: 30_000,
      artifactsDir: join(dir.path, "artifacts"),
    });
    if (!r.ok) throw new Error(r.refusal.message);
    expect(r.value.stderr.tail).toBe(`key=${REDACTED}\n`);
    expect(readFileSync(r.value.artifacts.stderr!, "utf8")).toBe(`key=${REDACTED}\n`);
  });
});

describe("artifact failures", () => {
  test("a write failure fails the run while the child is drained to its end and reaped", async () => {
    await using dir = tempDir();
    let writes = 0;
    const failing = (path: string): ArtifactSink => {
      const real = fileSink(path);
      return {
        path,
        write(data) {
          if (path.endsWith(".stdout.log") && ++writes > 1)
            throw new Error("ENOSPC: no space left on device (injected)");
          real.write(data);
        },
        close: () => real.close(),
      };
    };
    const bytes = 2 * 1024 * 1024; // far more than a socket buffer: the child blocks unless drained
    const r = await launcherWith({ openSink: failing }).launch({
      argv: ["/bin/sh", "-c", `head -c ${bytes} /dev/zero | tr '\\0' x; echo done >&2`],
      env: env(),
      cwd: dir.path,
      deadlineMs: 30_000,
      artifactsDir: join(dir.path, "artifacts"),
    });
    if (r.ok || r.refusal.code !== "launch.artifact_error")
      throw new Error(`expected an artifact error, got ${JSON.stringify(r)}`);
    expect(r.refusal.details).toMatchObject({
      stream: "stdout",
      error: "ENOSPC: no space left on device (injected)",
      execution: { ended: "exited", code: 0 },
    });
    const execution = r.refusal.details.execution!;
    expect(execution.stdout.bytes).toBe(bytes);
    expect(execution.stderr.tail).toBe("done\n");
    expect(statSync(execution.artifacts.stdout!).size).toBeLessThan(bytes);
    expect(gone(execution.pid)).toBe(true);
  });
});

describe("the artifact cap", () => {
  test.each([
    ["raw", null],
    ["redacting", new StreamRedactor(["never-printed-value"])],
  ])(
    "%s: the artifact keeps the first bytes and a note; the tail and totals cover the whole stream",
    async (_name, redactor) => {
      await using dir = tempDir();
      const path = join(dir.path, "out.log");
      const capture = new StreamCapture(() => fileSink(path), redactor, 10);
      capture.push(new TextEncoder().encode("0123456"));
      capture.push(new TextEncoder().encode("789abcdef"));
      expect(capture.end()).toEqual({
        tail: "0123456789abcdef",
        bytes: 16,
        chars: 16,
        truncated: false,
        artifactCut: true,
      });
      expect(readFileSync(path, "utf8")).toBe(
        "0123456789\n[toolgate: this artifact holds the first 10 bytes of the stream (the cap per stream); the stream had 16 bytes in all, and the result's tail shows its end]\n",
      );
    },
  );

  test("a stream exactly at the cap is not cut", async () => {
    await using dir = tempDir();
    const path = join(dir.path, "out.log");
    const capture = new StreamCapture(() => fileSink(path), null, 4);
    capture.push(new TextEncoder().encode("abcd"));
    expect(capture.end()).toEqual({ tail: "abcd", bytes: 4, chars: 4, truncated: false });
    expect(readFileSync(path, "utf8")).toBe("abcd");
  });
});

describe("the output listener (a task's live log)", () => {
  test("hears each redacted piece as it comes; a secret split across reads is in no piece", () => {
    const heard: string[] = [];
    const capture = new StreamCapture(null, new StreamRedactor(["s3cret-value"]), undefined, (t) => heard.push(t));
    const enc = new TextEncoder();
    const before = "one ".repeat(12);
    for (const part of [`${before}s3c`, "ret-va"]) capture.push(enc.encode(part));
    // What might still be the start of the secret (or of its longest encoded form) is held back.
    expect(before.startsWith(heard.join("")) && heard.length > 0).toBe(true);
    for (const part of ["lue two\n", "three"]) capture.push(enc.encode(part));
    const report = capture.end();
    expect(heard.join("")).toBe(`${before}${REDACTED} two\nthree`);
    expect(heard.every((p) => !p.includes("s3c") || p.includes(REDACTED))).toBe(true);
    expect(report.tail).toBe(heard.join(""));
  });

  test("without a redactor it hears the decoded text, a character split across reads whole", async () => {
    const heard: string[] = [];
    const capture = new StreamCapture(null, null, undefined, (t) => heard.push(t));
    const bytes = new TextEncoder().encode("aé");
    capture.push(bytes.subarray(0, 2));
    capture.push(bytes.subarray(2));
    capture.end();
    expect(heard).toEqual(["a", "é"]);
  });
});
