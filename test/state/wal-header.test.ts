// A cold process's first row costs no disk sync. The last connection to close removes the WAL, so
// every cold `toolgate call` finds none, and SQLite syncs a new WAL's header (and its folder) at the
// first commit: before the write-ahead row, so before the effect and the result. openState writes
// that header itself, unsynced, and the syncs come with the close's checkpoint, after the result.
// What a row must survive (a crash, kill -9) it still does, and the connection ends up NORMAL.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openState, openUserState } from "../../src/state/db.ts";
import { makeStateFolder } from "../../src/state/folder.ts";
import { MIGRATIONS } from "../../src/state/migrations.ts";
import { BIN, ROOT, tempDir } from "../helpers.ts";

describe("the WAL's header at open", () => {
  test("opening a state folder with no WAL writes the header; the connection is synchronous=NORMAL", async () => {
    await using dir = tempDir();
    const state = join(dir.path, "state");
    const db = openState(state);
    try {
      expect(statSync(join(state, "toolgate.db-wal")).size).toBeGreaterThanOrEqual(32);
      expect((db.query("PRAGMA synchronous").get() as { synchronous: number }).synchronous).toBe(1);
    } finally {
      db.close();
    }
    // The last close checkpointed and removed it: the next open writes it again.
    expect(existsSync(join(state, "toolgate.db-wal"))).toBe(false);
    const again = openState(state);
    expect(statSync(join(state, "toolgate.db-wal")).size).toBeGreaterThanOrEqual(32);
    again.close();
  });

  test("a connection that only reads (openUserState, `log`) commits nothing: its WAL stays empty, so its close has nothing to sync", async () => {
    await using dir = tempDir();
    const state = join(dir.path, "state");
    openState(state).close(); // made, and its WAL removed by the close
    const reader = openState(state, false);
    try {
      expect(existsSync(join(state, "toolgate.db-wal")) ? statSync(join(state, "toolgate.db-wal")).size : 0).toBe(0);
    } finally {
      reader.close();
    }
    const user = join(dir.path, "user");
    openUserState(user).close();
    const approvals = openUserState(user);
    try {
      expect(existsSync(join(user, "approvals.db-wal")) ? statSync(join(user, "approvals.db-wal")).size : 0).toBe(0);
    } finally {
      approvals.close();
    }
  });

  test("a row written after such an open survives kill -9 of its process", async () => {
    await using dir = tempDir();
    const state = join(dir.path, "state");
    const script = join(dir.path, "writer.ts");
    writeFileSync(
      script,
      `import { openState } from ${JSON.stringify(join(ROOT, "src/state/db.ts"))};
import { callJournal, selfMark } from ${JSON.stringify(join(ROOT, "src/state/journal.ts"))};
const db = openState(process.argv[2]);
callJournal(() => db, selfMark).started({ time_ms: 1, tool: "plan", origin: "builtin", digest: "d", effect: "idempotent-write", status: "started", error_code: null, duration_ms: 0, args_preview: "{}", result_bytes: 0, detail: null });
process.kill(process.pid, "SIGKILL");
`,
    );
    const p = Bun.spawn([process.execPath, script, state], { stdout: "ignore", stderr: "pipe" });
    expect(await p.exited).not.toBe(0);
    expect(p.signalCode).toBe("SIGKILL");
    const db = new Database(join(state, "toolgate.db"), { readonly: true });
    try {
      expect(db.query("SELECT tool, event FROM journal").all()).toEqual([{ tool: "plan", event: "tool_started" }]);
    } finally {
      db.close();
    }
  });
});

test("a migration at open runs under NORMAL: a checkpoint it triggers syncs the WAL before it writes the database file (strace)", async () => {
  await using dir = tempDir();
  const state = join(dir.path, "state");
  // A state folder one migration behind, its journal large enough that the last migration (which
  // copies the journal) passes SQLite's 1,000-page autocheckpoint; no WAL left, as after any close.
  makeStateFolder(state);
  const db = new Database(join(state, "toolgate.db"), { create: true });
  db.run("PRAGMA journal_mode = WAL");
  for (let v = 0; v < MIGRATIONS.length - 1; v++) db.run(MIGRATIONS[v]!);
  db.run(`PRAGMA user_version = ${MIGRATIONS.length - 1}`);
  const insert = db.prepare(
    "INSERT INTO journal (time_ms, tool, status, duration_ms, args_preview, result_bytes) VALUES (1, 'plan', 'success', 1, ?, 10)",
  );
  db.transaction(() => {
    for (let i = 0; i < 20_000; i++) insert.run("x".repeat(200));
  })();
  insert.finalize();
  db.close();
  expect(existsSync(join(state, "toolgate.db-wal"))).toBe(false);
  const script = join(dir.path, "open.ts");
  writeFileSync(
    script,
    `import { openState } from ${JSON.stringify(join(ROOT, "src/state/db.ts"))};\nopenState(process.argv[2]).close();\n`,
  );
  const trace = join(dir.path, "trace.txt");
  const p = Bun.spawn(
    ["strace", "-f", "-y", "-o", trace, "-e", "trace=fsync,fdatasync,pwrite64", process.execPath, script, state],
    { stdout: "ignore", stderr: "pipe" },
  );
  expect({ code: await p.exited, stderr: await new Response(p.stderr).text() }).toEqual({ code: 0, stderr: "" });
  const lines = readFileSync(trace, "utf8").split("\n");
  const dbWrite = lines.findIndex((l) => /pwrite64\(\d+<[^>]*\/toolgate\.db>/.test(l));
  const walSync = lines.findIndex((l) => /f(data)?sync\(\d+<[^>]*\/toolgate\.db-wal>/.test(l));
  expect(dbWrite).toBeGreaterThan(0); // the database file was written (a checkpoint ran)
  expect(walSync).toBeGreaterThanOrEqual(0);
  expect(walSync).toBeLessThan(dbWrite);
  const check = new Database(join(state, "toolgate.db"), { readonly: true });
  try {
    expect((check.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(MIGRATIONS.length);
    expect((check.query("SELECT count(*) AS n FROM journal").get() as { n: number }).n).toBe(20_000);
  } finally {
    check.close();
  }
}, 30_000);

test("`toolgate log` syncs nothing at all: it only reads (strace)", async () => {
  await using dir = tempDir();
  const trace = join(dir.path, "trace.txt");
  const env = { PATH: "/usr/bin:/bin", HOME: dir.path, CI: "true" };
  const made = Bun.spawnSync([BIN, "call", "plan", "{}"], { cwd: dir.path, env });
  expect(made.exitCode).toBe(0);
  const p = Bun.spawn(["strace", "-f", "-o", trace, "-e", "trace=fsync,fdatasync", BIN, "log", "--json"], {
    cwd: dir.path,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await p.exited).toBe(0);
  expect(
    (await new Response(p.stdout).text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).tool),
  ).toEqual(["plan"]);
  expect(
    readFileSync(trace, "utf8")
      .split("\n")
      .filter((l) => /\bf(data)?sync\(/.test(l)),
  ).toEqual([]);
});

test("a cold call of the binary syncs nothing before its result is written (strace)", async () => {
  await using dir = tempDir();
  const trace = join(dir.path, "trace.txt");
  const env = { PATH: "/usr/bin:/bin", HOME: dir.path, CI: "true" };
  // Twice: the first call makes the state folder, the second is the ordinary cold call (no WAL left by the first).
  for (let i = 0; i < 2; i++) {
    const p = Bun.spawn(["strace", "-f", "-o", trace, "-e", "trace=fsync,fdatasync,write", BIN, "call", "plan", "{}"], {
      cwd: dir.path,
      env,
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await p.exited).toBe(0);
    expect(JSON.parse(await new Response(p.stdout).text()).status).toBe("success");
  }
  const lines = readFileSync(trace, "utf8").split("\n");
  const result = lines.findIndex((l) => /write\(1, "\{\\"status\\":\\"success\\"/.test(l));
  expect(result).toBeGreaterThanOrEqual(0);
  expect(lines.slice(0, result).filter((l) => /\bf(data)?sync\(/.test(l))).toEqual([]);
  // The syncs still happen, after the result: the close's checkpoint.
  expect(lines.slice(result).some((l) => /\bfsync\(/.test(l))).toBe(true);
});
