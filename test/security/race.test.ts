// The attacker races the file tools: a separate process swaps a checked name
// with a symlink leading out (renameat2 RENAME_EXCHANGE, swapper.ts) while each tool is called a
// bounded number of times, in process (many attempts per second) and through dist/toolgate.
// What is checked is what is opened. Zero escapes: no outside content, no file
// created or changed outside, no outside name listed, and a --deny-read never bypassed.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { digestOf } from "../../src/tools/files/atomic-write.ts";
import { tempDir } from "../helpers.ts";
import type { Envelope } from "../../src/result/result.ts";
import { EXTRA, inProcess, race, startSwapper, throughBinary, type Call, type Tally } from "./race-harness.ts";
import { makeStateFolder } from "../../src/state/folder.ts";

const IN_PROCESS = 300;
const BINARY = 40;
const SECRET = "SECRET-OUTSIDE-7f3a";
const DENIED = "DENIED-CONTENT-91c2";
const OUTSIDE_NAME = "outside-only-name.txt";

interface Site {
  readonly ws: string;
  readonly out: string;
  readonly home: string;
}

function site(root: string): Site {
  const s = { ws: join(root, "ws"), out: join(root, "out"), home: join(root, "home") };
  for (const d of Object.values(s)) mkdirSync(d);
  return s;
}

/** Both ways of calling, with the same grants: the in-process pipeline and the binary. */
function callers(
  s: Site,
  opts: { denyRead?: string; write?: boolean; attempts?: number } = {},
): [string, Call, number][] {
  const grants = {
    allow: { read: true as const, ...(opts.write ? { write: [s.ws] } : {}) },
    deny: opts.denyRead ? { read: [opts.denyRead] } : {},
  };
  const flags = [
    "--allow-read",
    ...(opts.write ? [`--allow-write=${s.ws}`] : []),
    ...(opts.denyRead ? [`--deny-read=${opts.denyRead}`] : []),
  ];
  return [
    ["in process", inProcess(s.ws, grants), opts.attempts ?? IN_PROCESS],
    ["dist/toolgate", throughBinary(s.ws, s.home, flags), BINARY],
  ];
}

/** One line per way of calling: escapes, and whether any call succeeded (the tool worked on the checked object while the name was being swapped). */
const summary = (how: string, t: Tally) => {
  const line = { how, escapes: t.escapes, anySuccess: t.successes > 0 };
  // A failing line carries the tally, so a CI log that shows only the diff says what happened.
  return t.escapes === 0 && t.successes > 0
    ? line
    : { ...line, attempts: t.attempts, successes: t.successes, refused: t.refused };
};
const clean = (calls: [string, Call, number][]) => calls.map(([how]) => ({ how, escapes: 0, anySuccess: true }));

/** Races each way of calling against a swapper of `a` and `b`; `after` may look at the file system once the swapper stopped. */
async function raceAll(
  calls: [string, Call, number][],
  a: string,
  b: string,
  attempt: (call: Call, i: number, how: string) => Promise<Envelope>,
  escaped: (e: Envelope) => boolean,
  after: () => number = () => 0,
) {
  const out = [];
  for (const [how, call, n] of calls) {
    const swap = await startSwapper(a, b);
    let t: Tally;
    try {
      t = await race(n, how === "in process" ? 1 : 4, (i) => attempt(call, i, how), escaped);
    } finally {
      await swap.stop();
    }
    t.escapes += after();
    out.push(summary(how, t));
  }
  return out;
}

/** ws/f is a file one instant and a symlink to `target` the next. */
function fileSwap(s: Site, target: string): [string, string] {
  writeFileSync(join(s.ws, "f"), "inside\n");
  symlinkSync(target, join(s.ws, "l"));
  return [join(s.ws, "f"), join(s.ws, "l")];
}

/** ws/d is a folder one instant and a symlink to out/dir (holding OUTSIDE_NAME) the next. */
function folderSwap(s: Site): [string, string] {
  mkdirSync(join(s.ws, "d"));
  writeFileSync(join(s.ws, "d", "inside.txt"), "needle inside\n");
  mkdirSync(join(s.out, "dir"));
  writeFileSync(join(s.out, "dir", OUTSIDE_NAME), `needle ${SECRET}\n`);
  symlinkSync(join(s.out, "dir"), join(s.ws, "l"));
  return [join(s.ws, "d"), join(s.ws, "l")];
}

describe("file tools under a symlink swap", () => {
  test("file_read never returns the content of a file outside the workspace", async () => {
    await using root = tempDir();
    const s = site(root.path);
    // The swapped folder is high in a deep path: every lookup below it widens the old check-to-open gap.
    const deep = `${"x/".repeat(30)}secret.txt`;
    const [a, b] = folderSwap(s);
    mkdirSync(join(s.ws, "d", "x/".repeat(30)), { recursive: true });
    writeFileSync(join(s.ws, "d", deep), "inside\n");
    mkdirSync(join(s.out, "dir", "x/".repeat(30)), { recursive: true });
    writeFileSync(join(s.out, "dir", deep), `${SECRET}\n`);
    const calls = callers(s);
    expect(
      await raceAll(
        calls,
        a,
        b,
        (call) => call("file_read", { path: `d/${deep}` }),
        (e) => JSON.stringify(e).includes(SECRET),
      ),
    ).toEqual(clean(calls));
  }, 60_000);

  test("file_read never bypasses --deny-read through a swapped name", async () => {
    await using root = tempDir();
    const s = site(root.path);
    writeFileSync(join(s.ws, "denied.txt"), `${DENIED}\n`);
    const [a, b] = fileSwap(s, "denied.txt");
    const calls = callers(s, { denyRead: join(s.ws, "denied.txt") });
    expect(
      await raceAll(
        calls,
        a,
        b,
        (call) => call("file_read", { path: "f" }),
        (e) => JSON.stringify(e).includes(DENIED),
      ),
    ).toEqual(clean(calls));
  }, 60_000);

  test("file_write never creates a file outside the workspace", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const [a, b] = folderSwap(s);
    const calls = callers(s, { write: true });
    // Counted once the swapper stopped: every name that appeared outside.
    const outside = () => readdirSync(join(s.out, "dir")).filter((n) => n !== OUTSIDE_NAME).length;
    let seen = 0;
    const after = () => {
      const now = outside();
      const fresh = now - seen;
      seen = now;
      return fresh;
    };
    expect(
      await raceAll(
        calls,
        a,
        b,
        (call, i, how) => call("file_write", { path: `d/new-${how.length}-${i}.txt`, content: "x" }),
        () => false,
        after,
      ),
    ).toEqual(clean(calls));
  }, 60_000);

  test("file_edit never changes or creates a file outside the workspace", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const [a, b] = folderSwap(s);
    // The same files inside and outside, so the digest the edit cites matches on either side. An
    // escape needs the folder to flip at two moments (temp file, rename), so more attempts in process.
    const attempts = 2 * IN_PROCESS;
    // Every attempt a race may make (EXTRA times the planned ones) has its own file.
    const names = Array.from({ length: (attempts + BINARY) * EXTRA }, (_, i) => `e${i}.txt`);
    for (const n of names) {
      writeFileSync(join(s.ws, "d", n), "alpha\n");
      writeFileSync(join(s.out, "dir", n), "alpha\n");
    }
    const calls = callers(s, { write: true, attempts });
    const base = (how: string) => (how === "in process" ? 0 : attempts * EXTRA);
    let seen = 0;
    const after = () => {
      const changed = readdirSync(join(s.out, "dir")).filter(
        (n) => n !== OUTSIDE_NAME && (!names.includes(n) || readFileSync(join(s.out, "dir", n), "utf8") !== "alpha\n"),
      ).length;
      const fresh = changed - seen;
      seen = changed;
      return fresh;
    };
    const edit = (call: Call, i: number, how: string) =>
      call("file_edit", {
        path: `d/${names[base(how) + i]}`,
        digest: digestOf(Buffer.from("alpha\n")),
        old_string: "alpha",
        new_string: "beta",
      });
    expect(await raceAll(calls, a, b, edit, () => false, after)).toEqual(clean(calls));
  }, 60_000);

  test.each([["d"], ["."]])(
    "file_search (path %p) never reads or names a file outside the workspace",
    async (path) => {
      await using root = tempDir();
      const s = site(root.path);
      const [a, b] = folderSwap(s);
      const calls = callers(s);
      expect(
        await raceAll(
          calls,
          a,
          b,
          (call) => call("file_search", { pattern: "needle", path }),
          (e) => /SECRET-OUTSIDE|outside-only/.test(JSON.stringify(e)),
        ),
      ).toEqual(clean(calls));
    },
    60_000,
  );

  test.each([["d"], ["."]])(
    "file_find (path %p) never lists a name outside the workspace",
    async (path) => {
      await using root = tempDir();
      const s = site(root.path);
      const [a, b] = folderSwap(s);
      const calls = callers(s);
      expect(
        await raceAll(
          calls,
          a,
          b,
          (call) => call("file_find", { path }),
          (e) => JSON.stringify(e).includes(OUTSIDE_NAME),
        ),
      ).toEqual(clean(calls));
    },
    60_000,
  );

  test("file_search never bypasses --deny-read through a swapped folder", async () => {
    await using root = tempDir();
    const s = site(root.path);
    mkdirSync(join(s.ws, "d"));
    writeFileSync(join(s.ws, "d", "inside.txt"), "needle inside\n");
    mkdirSync(join(s.ws, "denied"));
    writeFileSync(join(s.ws, "denied", "x.txt"), `needle ${DENIED}\n`);
    symlinkSync("denied", join(s.ws, "l"));
    const calls = callers(s, { denyRead: join(s.ws, "denied") });
    expect(
      await raceAll(
        calls,
        join(s.ws, "d"),
        join(s.ws, "l"),
        (call) => call("file_search", { pattern: "needle", path: "d" }),
        (e) => JSON.stringify(e).includes(DENIED),
      ),
    ).toEqual(clean(calls));
  }, 60_000);
});

describe("scratch_read under a symlink swap", () => {
  test.each([
    ["cat", ["cat", "f"], SECRET],
    ["ls", ["ls", "d"], OUTSIDE_NAME],
  ])(
    "scratch_read %s never reads or lists outside the scratch folder",
    async (_name, argv, leak) => {
      await using root = tempDir();
      const s = site(root.path);
      const scratch = join(s.ws, ".toolgate", "scratch");
      makeStateFolder(join(s.ws, ".toolgate")); // toolgate's own state folder, as an earlier call made it
      mkdirSync(scratch, { recursive: true });
      writeFileSync(join(s.out, "secret.txt"), `${SECRET}\n`);
      writeFileSync(join(scratch, "f"), "inside\n");
      symlinkSync(join(s.out, "secret.txt"), join(scratch, "fl"));
      mkdirSync(join(scratch, "d"));
      writeFileSync(join(scratch, "d", "inside.txt"), "inside\n");
      mkdirSync(join(s.out, "dir"));
      writeFileSync(join(s.out, "dir", OUTSIDE_NAME), "x\n");
      symlinkSync(join(s.out, "dir"), join(scratch, "dl"));
      const [a, b] =
        argv[0] === "cat" ? [join(scratch, "f"), join(scratch, "fl")] : [join(scratch, "d"), join(scratch, "dl")];
      const grants = { allow: { read: true as const }, deny: {} };
      const calls: [string, Call, number][] = [
        ["in process", inProcess(s.ws, grants, scratch), 150],
        ["dist/toolgate", throughBinary(s.ws, s.home, ["--allow-read"]), BINARY],
      ];
      expect(
        await raceAll(
          calls,
          a,
          b,
          (call) => call("scratch_read", { argv }),
          (e) => JSON.stringify(e).includes(leak),
        ),
      ).toEqual(clean(calls));
    },
    60_000,
  );
});
