// toolgate's own code as it runs on macOS, run here (test/fixtures/platform/as-darwin.ts: the
// platform layer hands out darwin's implementations): product and bench fail the boot naming the
// platform; with the sandbox off the file tools (descriptors verified by identity, no /proc),
// bash, scratch_read, the boundary, the journal and background tasks work, and a guardian without
// prctl still ends its command's group when toolgate is killed outright.
// Full suite only: toolgate's own code in child processes, a background task waited for.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../helpers.ts";
import { gone, pidsIn, waitFor } from "../launcher/support.ts";

const AS_DARWIN = join(ROOT, "test", "fixtures", "platform", "as-darwin.ts");

async function toolgate(cwd: string, args: readonly string[]) {
  const proc = Bun.spawn([process.execPath, AS_DARWIN, ...args], {
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: cwd, CI: "true" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

const call = (cwd: string, tool: string, args: unknown) =>
  toolgate(cwd, ["call", tool, JSON.stringify(args), "--approve", tool, "-A"]);

describe("as darwin", () => {
  test.each(["product", "bench"])(
    "sandbox %s: call and tools fail the boot (exit 5) naming darwin; nothing runs",
    async (mode) => {
      await using dir = tempDir();
      writeFileSync(join(dir.path, "toolgate.json"), JSON.stringify({ sandbox: mode }));
      for (const args of [
        ["call", "bash", '{"command":"touch ran"}', "--approve", "bash", "-A"],
        ["tools", "--json"],
      ]) {
        const r = await toolgate(dir.path, args);
        expect([r.code, r.stdout]).toEqual([5, ""]);
        expect(r.stderr).toContain(
          `toolgate: the sandbox mode "${mode}" needs Linux (bubblewrap); on darwin set "sandbox": "off" in toolgate.json`,
        );
      }
      expect(existsSync(join(dir.path, "ran"))).toBe(false);
    },
    30_000,
  );

  test("sandbox off: the file tools, bash, scratch_read and the journal work", async () => {
    await using dir = tempDir();
    const ws = dir.path;
    writeFileSync(join(ws, "toolgate.json"), JSON.stringify({ sandbox: "off" }));
    // Enough files that file_search opens them in chunks (the openat2 path on Linux: none here).
    for (let i = 0; i < 300; i++) writeFileSync(join(ws, `f${i}.txt`), i === 299 ? "needle\n" : "hay\n");
    const wrote = await call(ws, "file_write", { path: "deep/er/note.md", content: "one\ntwo\n" });
    expect([wrote.code, wrote.json().payload.created]).toEqual([0, true]);
    const read = await call(ws, "file_read", { path: "deep/er/note.md" });
    expect([read.code, read.json().payload.content]).toEqual([0, "1\tone\n2\ttwo"]);
    const edited = await call(ws, "file_edit", {
      path: "deep/er/note.md",
      digest: read.json().payload.digest,
      old_string: "two",
      new_string: "three",
    });
    expect(edited.code).toBe(0);
    expect(readFileSync(join(ws, "deep", "er", "note.md"), "utf8")).toBe("one\nthree\n");
    const found = await call(ws, "file_find", { pattern: "deep/**" });
    expect([found.code, found.json().payload.paths]).toEqual([0, ["deep/er/note.md"]]);
    const searched = await call(ws, "file_search", { pattern: "needle" });
    expect([searched.code, searched.json().payload.matches.map((m: { path: string }) => m.path)]).toEqual([
      0,
      ["f299.txt"],
    ]);
    const bash = await call(ws, "bash", { command: "cat deep/er/note.md; echo $HOME" });
    expect([bash.code, bash.json().payload.sandbox, bash.json().payload.stdout.tail.split("\n")[1]]).toEqual([
      0,
      "off",
      "three",
    ]);
    mkdirSync(join(ws, ".toolgate", "scratch"), { recursive: true });
    writeFileSync(join(ws, ".toolgate", "scratch", "s.txt"), "scratched\n");
    const scratch = await call(ws, "scratch_read", { argv: ["cat", "s.txt"] });
    expect([scratch.code, scratch.json().payload.stdout.tail]).toEqual([0, "scratched\n"]);
    const log = await toolgate(ws, ["log", "--json"]);
    const rows = log.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.filter((r) => r.event === "tool_finished").map((r) => [r.tool, r.status])).toEqual([
      ["file_write", "success"],
      ["file_read", "success"],
      ["file_edit", "success"],
      ["file_find", "success"],
      ["file_search", "success"],
      ["bash", "success"],
      ["scratch_read", "success"],
    ]);
  }, 60_000);

  test("a background task runs under its supervisor and is waited for: no process table says it is lost", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "toolgate.json"), "{}");
    const started = await toolgate(dir.path, [
      "call",
      "bash",
      '{"command":"sleep 0.5; echo done"}',
      "--background",
      "--approve",
      "bash",
      "-A",
    ]);
    expect(started.code).toBe(0);
    const waited = await toolgate(dir.path, ["tasks", "wait", started.json().task_id, "--timeout", "20"]);
    expect([waited.code, waited.json().status, waited.json().result.payload.stdout.tail]).toEqual([
      0,
      "succeeded",
      "done\n",
    ]);
  }, 40_000);

  test("a path through a link out of the workspace is refused as on Linux", async () => {
    await using dir = tempDir();
    const ws = join(dir.path, "ws");
    mkdirSync(join(dir.path, "out"), { recursive: true });
    mkdirSync(ws);
    writeFileSync(join(dir.path, "out", "secret"), "no\n");
    symlinkSync(join(dir.path, "out"), join(ws, "link"));
    writeFileSync(join(ws, "toolgate.json"), "{}");
    const r = await toolgate(ws, [
      "call",
      "file_read",
      '{"path":"link/secret"}',
      "--approve",
      "file_read",
      `--allow-read=${ws}`,
    ]);
    expect([r.code, r.json().error_code]).toEqual([1, "path.outside_workspace"]);
  }, 30_000);

  test("a guardian without prctl ends its command's group when toolgate is killed outright", async () => {
    await using dir = tempDir();
    const pids = join(dir.path, "pids");
    // The guardian's parent stands for toolgate: it starts it detached, as the launcher does, and waits.
    const command = ["/bin/sh", "-c", `sleep 300 & echo $! >> ${pids}; echo $$ >> ${pids}; wait`];
    const starter = `const p = Bun.spawn(${JSON.stringify([process.execPath, AS_DARWIN, "__guard"])}.concat([String(process.pid), "--"], ${JSON.stringify(command)}), { detached: true, stdio: ["ignore", "ignore", "inherit"] }); await p.exited;`;
    const parent = Bun.spawn([process.execPath, "-e", starter], {
      cwd: dir.path,
      env: { PATH: "/usr/bin:/bin" },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const [sleeper, shell] = await pidsIn(pids, 2);
    try {
      expect([gone(sleeper!), gone(shell!)]).toEqual([false, false]);
      parent.kill("SIGKILL");
      await waitFor("the command's tree to end", () => gone(sleeper!) && gone(shell!), 5_000);
    } finally {
      for (const pid of [sleeper!, shell!]) if (!gone(pid)) process.kill(pid, "SIGKILL");
    }
  }, 30_000);
});
