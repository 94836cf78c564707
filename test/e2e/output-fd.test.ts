// A one-shot command writes its stdout and stderr descriptors directly (src/result/io.ts), not
// through Node's streams: its output is whole and in order when stdout is a small non-blocking pipe
// that is read late, a closed reader fails the command (as a stream's write did), and a terminal
// is still told apart from a pipe. Through dist/toolgate.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, run, tempDir } from "../helpers.ts";

const env = (home: string) => ({ PATH: "/usr/bin:/bin", HOME: home, XDG_STATE_HOME: join(home, ".state"), CI: "true" });

// Runs argv with its stdout made non-blocking and 4 KiB deep (a pipe's file status flags are
// shared by both ends' users, as when a parent set O_NONBLOCK on it), then exec's toolgate.
const NONBLOCKING = `import fcntl, os, sys
fcntl.fcntl(1, 1031, 4096)  # F_SETPIPE_SZ
fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_NONBLOCK)
os.execv(sys.argv[1], sys.argv[1:])
`;

describe("output written to the descriptors", () => {
  test("a full non-blocking stdout pipe read late gets the whole output, in order", async () => {
    await using dir = tempDir();
    const wrapper = join(dir.path, "nonblocking.py");
    writeFileSync(wrapper, NONBLOCKING);
    const plain = await run(["tools", "--json"], { cwd: dir.path, env: env(dir.path) });
    expect(plain.code).toBe(0);
    expect(plain.stdout.length).toBeGreaterThan(4096 * 2);
    // A pipe (bash's, not the test runner's socket), read only once the command has filled it and waits.
    const r = Bun.spawnSync(
      ["bash", "-c", `python3 ${wrapper} ${BIN} tools --json | (sleep 0.3; cat); echo "exit \${PIPESTATUS[0]}" >&2`],
      { cwd: dir.path, env: env(dir.path) },
    );
    expect(r.stderr.toString()).toContain("exit 0");
    expect(r.stdout.toString()).toBe(plain.stdout);
  });

  test("a reader that went away fails the command, which stops writing", async () => {
    await using dir = tempDir();
    const wrapper = join(dir.path, "small.py");
    writeFileSync(wrapper, NONBLOCKING.replace(/^fcntl\.fcntl\(1, fcntl\.F_SETFL.*$/m, ""));
    // head takes 10 bytes and exits; the 4 KiB pipe is full long before the listing is written.
    const r = Bun.spawnSync(
      ["bash", "-c", `python3 ${wrapper} ${BIN} tools --json | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}"`],
      { cwd: dir.path, env: env(dir.path) },
    );
    expect(r.stdout.toString().trim()).toBe("1");
  });

  test("on a terminal the listing is a table, through a pipe it is JSON lines", async () => {
    await using dir = tempDir();
    const tty = Bun.spawnSync(["script", "-qc", `${BIN} tools`, "/dev/null"], { cwd: dir.path, env: env(dir.path) });
    expect(tty.stdout.toString()).toContain("NAME");
    expect(tty.stdout.toString()).not.toContain('{"name"');
    const piped = await run(["tools"], { cwd: dir.path, env: env(dir.path) });
    expect(piped.stdout.split("\n")[0]).toStartWith('{"name"');
  });
});
