// The one spawn (src/launcher/spawn.ts): a real child sees exactly the environment it is given,
// runs in the folder it is given, and leads a new session or stays in toolgate's as asked.
import { expect, test } from "bun:test";
import { closeSync, openSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnChild } from "../../src/launcher/spawn.ts";
import { tempDir } from "../helpers.ts";

async function output(p: Bun.Subprocess<"ignore", "pipe", "pipe">): Promise<string> {
  const [text, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  expect(code).toBe(0);
  return text;
}

/** pid, ppid, process group and session of a /proc/PID/stat line (the name in parentheses may hold spaces). */
function ids(stat: string): { pid: number; ppid: number; pgrp: number; session: number } {
  const pid = Number(stat.slice(0, stat.indexOf(" ")));
  const [, ppid, pgrp, session] = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  return { pid, ppid: ppid!, pgrp: pgrp!, session: session! };
}

test("the child's environment is exactly the one given, nothing of this process's", async () => {
  process.env.TOOLGATE_SPAWN_TEST_PARENT_ONLY = "leak";
  try {
    const env = { ONE: "1", SPACED: "a b=c", EMPTY: "" };
    const p = spawnChild({ argv: ["/usr/bin/env"], cwd: "/", env, stdio: ["ignore", "pipe", "pipe"], session: "new" });
    expect((await output(p)).split("\n").filter((l) => l !== "")).toEqual(["ONE=1", "SPACED=a b=c", "EMPTY="]);
    const none = spawnChild({
      argv: ["/usr/bin/env"],
      cwd: "/",
      env: {},
      stdio: ["ignore", "pipe", "pipe"],
      session: "same",
    });
    expect(await output(none)).toBe("");
  } finally {
    delete process.env.TOOLGATE_SPAWN_TEST_PARENT_ONLY;
  }
});

test("the child runs in the folder it is given", async () => {
  await using dir = tempDir();
  const p = spawnChild({
    argv: ["/bin/pwd", "-P"],
    cwd: dir.path,
    env: {},
    stdio: ["ignore", "pipe", "pipe"],
    session: "new",
  });
  expect((await output(p)).trim()).toBe(realpathSync(dir.path));
});

test('"new" makes the child lead a new session and process group; "same" keeps it in this process\'s', async () => {
  const self = ids(readFileSync("/proc/self/stat", "utf8"));
  const spawn = (session: "new" | "same") =>
    spawnChild({
      argv: ["/bin/cat", "/proc/self/stat"],
      cwd: "/",
      env: {},
      stdio: ["ignore", "pipe", "pipe"],
      session,
    });
  const fresh = ids(await output(spawn("new")));
  expect(fresh.ppid).toBe(process.pid);
  expect(fresh.session).toBe(fresh.pid);
  expect(fresh.pgrp).toBe(fresh.pid);
  const same = ids(await output(spawn("same")));
  expect(same.ppid).toBe(process.pid);
  expect(same.session).toBe(self.session);
  expect(same.pgrp).toBe(self.pgrp);
});

test("stdin bytes, a file for stdout and a further descriptor reach the child", async () => {
  await using dir = tempDir();
  const extra = join(dir.path, "extra");
  writeFileSync(extra, "from fd 3");
  const out = join(dir.path, "out");
  const fd = openSync(extra, "r");
  try {
    const p = spawnChild({
      argv: ["/bin/sh", "-c", "cat; cat <&3"],
      cwd: "/",
      env: {},
      stdio: [new TextEncoder().encode("from stdin, "), Bun.file(out), "ignore", fd],
      session: "new",
    });
    expect(await p.exited).toBe(0);
  } finally {
    closeSync(fd);
  }
  expect(readFileSync(out, "utf8")).toBe("from stdin, from fd 3");
});

test("a missing or parent environment is refused before anything starts, whatever the types said", () => {
  const base = {
    argv: ["/bin/true"],
    cwd: "/",
    stdio: ["ignore", "ignore", "ignore"] as const,
    session: "new" as const,
  };
  // @ts-expect-error: the environment is required
  expect(() => spawnChild({ ...base })).toThrow(/environment must be given whole/);
  expect(() => spawnChild({ ...base, env: process.env as Record<string, string> })).toThrow(
    /never given this process's own environment/,
  );
  expect(() => spawnChild({ ...base, env: { A: undefined } as unknown as Record<string, string> })).toThrow(
    /A is not a string/,
  );
  expect(() => spawnChild({ ...base, env: {}, argv: [] })).toThrow(/argv/);
  expect(() => spawnChild({ ...base, env: {}, cwd: "" })).toThrow(/working folder/);
  // @ts-expect-error: the session is "new" or "same"
  expect(() => spawnChild({ ...base, env: {}, session: "detached" })).toThrow(/session/);
});
