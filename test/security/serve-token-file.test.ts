// `serve --token-file` took a group-readable file and a one-character token. Now the
// file must carry no group or other bits and the token at least 32 characters: otherwise serve
// refuses at start (exit 2, the file, its mode or length, and how to fix it) and listens on nothing.
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, tempDir } from "../helpers.ts";
import { inLoopbackNamespace } from "../http/netns.ts";

const GOOD = "Zq3v9Kx0LmT7pW2rY5sB8nD1fH4jC6aE";

/** serve --http with this token file: its exit code and stderr, or "listening" (killed) if it started serving. */
async function serveWith(file: string, cwd: string): Promise<{ code: number | "listening"; stderr: string }> {
  const proc = Bun.spawn([BIN, "serve", "--http", "127.0.0.1:0", "--token-file", file], {
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: cwd },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  let stderr = "";
  const reading = (async () => {
    for await (const chunk of proc.stderr) {
      stderr += new TextDecoder().decode(chunk);
      if (stderr.includes("serving MCP at")) return "listening" as const;
    }
    return "ended" as const;
  })();
  const timer = setTimeout(() => proc.kill(), 20_000);
  try {
    if ((await reading) === "listening") {
      proc.kill("SIGTERM");
      await proc.exited;
      return { code: "listening", stderr };
    }
    return { code: await proc.exited, stderr };
  } finally {
    clearTimeout(timer);
  }
}

inLoopbackNamespace(import.meta.path, () => {
  describe("serve --token-file", () => {
    test.each([
      [
        "0640 (group-readable)",
        GOOD,
        0o640,
        (f: string) =>
          `toolgate: --token-file ${f} has mode 0640: its group may read or change it\n  hint: make it private to you: chmod 600 ${f}\n`,
      ],
      [
        "0660 (group-writable)",
        GOOD,
        0o660,
        (f: string) =>
          `toolgate: --token-file ${f} has mode 0660: its group may read or change it\n  hint: make it private to you: chmod 600 ${f}\n`,
      ],
      [
        "0604 (world-readable)",
        GOOD,
        0o604,
        (f: string) =>
          `toolgate: --token-file ${f} has mode 0604: every user on this machine may read or change it\n  hint: make it private to you: chmod 600 ${f}\n`,
      ],
      [
        "0600 with a one-character token",
        "x\n",
        0o600,
        (f: string) =>
          `toolgate: --token-file ${f}: the token is 1 character long; at least 32 are required\n  hint: write a longer random token, e.g. openssl rand -hex 32 > ${f} (or leave --token-file out to have one generated)\n`,
      ],
      [
        "0600 with a 31-character token",
        GOOD.slice(1),
        0o600,
        (f: string) =>
          `toolgate: --token-file ${f}: the token is 31 characters long; at least 32 are required\n  hint: write a longer random token, e.g. openssl rand -hex 32 > ${f} (or leave --token-file out to have one generated)\n`,
      ],
    ])("%s: refused at start, exit 2, nothing served", async (_, content, mode, message) => {
      await using dir = tempDir();
      const f = join(dir.path, "token");
      writeFileSync(f, content);
      chmodSync(f, mode);
      expect(await serveWith(f, dir.path)).toEqual({ code: 2, stderr: message(f) });
    });

    test("0600 (and 0400) with 32 characters: it serves", async () => {
      await using dir = tempDir();
      const f = join(dir.path, "token");
      writeFileSync(f, `${GOOD}\n`, { mode: 0o600 });
      expect((await serveWith(f, dir.path)).code).toBe("listening");
      chmodSync(f, 0o400);
      expect((await serveWith(f, dir.path)).code).toBe("listening");
    });
  });
});
