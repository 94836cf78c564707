// file_search and file_find over a tree large enough for the search pool (a helper thread beside
// the walking one, each file opened by openat2 below the root): a separate process swaps a folder
// the walk has listed for a symlink leading out, or every file of a folder for a symlink (to a file
// outside, or to the workspace's .env), renameat2 RENAME_EXCHANGE in a tight bounded loop
// (swapper.ts), while dist/toolgate is called a bounded number of times, as root and as nobody.
// What is checked is what is opened, and a secret stays a secret on every path. The
// race is hit on most calls (files listed as regular are symlinks when opened), but what is
// asserted holds whether or not it is: every call succeeds, its only match is the file nobody
// swaps, and no canary appears.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, chownToNobody, tempDir, type TempDir } from "../helpers.ts";
import { startSwapper } from "./race-harness.ts";

/** Files in each swapped folder: the pair alone is far above the pool's threshold (4 chunks of 64). */
const FILES = 1000;
/**
 * Calls per attack and user, each racing the swapper. With the guard broken (a walk that leaves out
 * what it saw as a symlink, and opens following), over half the calls leaked: 8 all miss rarely.
 */
const CALLS = 8;
const CANARY = "CANARY-7c1d";
const OUTSIDE_NAME = "outside-only-e2a9.txt";
/** The one line the pattern matches in the workspace; no swapped folder holds it. */
const KEEP = { path: "keep.txt", line: 1, text: "needle kept" };
const WHO = ["root", "nobody"] as const;
type Who = (typeof WHO)[number];

let bin: TempDir;
beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
  if (process.getuid?.() !== 0)
    throw new Error("these tests run as root (CI does): the nobody runs drop to uid 65534 with setpriv");
  // One world-readable copy of the binary for the nobody runs (the checkout may be closed to nobody).
  bin = tempDir("toolgate-bin-");
  chmodSync(bin.path, 0o755);
  copyFileSync(BIN, join(bin.path, "toolgate"));
  chmodSync(join(bin.path, "toolgate"), 0o755);
});
afterAll(async () => await bin?.[Symbol.asyncDispose]());

interface Site {
  readonly ws: string;
  readonly out: string;
  readonly home: string;
}

const name = (i: number) => `f${String(i).padStart(4, "0")}.txt`;

/**
 * ws/a holds FILES plain files (no match); ws/b is what the swapper exchanges it with. The outside
 * folder and .env are readable by nobody too, so only toolgate's guard keeps them out.
 */
function site(root: string, who: Who, b: (s: Site) => void): Site {
  const s = { ws: join(root, "ws"), out: join(root, "out"), home: join(root, "home") };
  for (const d of Object.values(s)) mkdirSync(d);
  writeFileSync(join(s.ws, KEEP.path), `${KEEP.text}\n`);
  writeFileSync(join(s.ws, ".env"), `needle ${CANARY} env\n`);
  writeFileSync(join(s.out, "secret.txt"), `needle ${CANARY} outside\n`);
  mkdirSync(join(s.ws, "a"));
  for (let i = 0; i < FILES; i++) writeFileSync(join(s.ws, "a", name(i)), "plain inside\n");
  b(s);
  if (who === "nobody") {
    chmodSync(root, 0o755);
    chownToNobody(s.ws);
    chownToNobody(s.home);
  }
  return s;
}

/** ws/b: a symlink to out/dir, which holds the same names (each with the canary) and one of its own. */
const folderLink = (s: Site) => {
  mkdirSync(join(s.out, "dir"));
  for (let i = 0; i < FILES; i++) writeFileSync(join(s.out, "dir", name(i)), `needle ${CANARY} outside\n`);
  writeFileSync(join(s.out, "dir", OUTSIDE_NAME), `needle ${CANARY} outside\n`);
  symlinkSync(join(s.out, "dir"), join(s.ws, "b"));
};

/** ws/b: a folder of the same names, each a symlink to `target(s)`. */
const fileLinks = (target: (s: Site) => string) => (s: Site) => {
  mkdirSync(join(s.ws, "b"));
  for (let i = 0; i < FILES; i++) symlinkSync(target(s), join(s.ws, "b", name(i)));
};

/** One `toolgate call` as `who`; the whole output, so a canary anywhere in it is seen. */
async function call(who: Who, s: Site, tool: string, args: object): Promise<{ out: string; envelope: any }> {
  const drop =
    who === "nobody"
      ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", join(bin.path, "toolgate")]
      : [BIN];
  const proc = Bun.spawn([...drop, "call", tool, JSON.stringify(args), "--allow-read", "--approve", tool], {
    cwd: s.ws,
    env: { PATH: "/usr/bin:/bin", HOME: s.home, XDG_STATE_HOME: join(s.home, "state"), CI: "true" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  let envelope: any;
  try {
    envelope = JSON.parse(stdout);
  } catch {
    throw new Error(`toolgate call ${tool} as ${who} printed no result: ${stderr}`);
  }
  return { out: stdout + stderr, envelope };
}

/**
 * What a search answered, in a few words (a failing diff stays readable): whether the canary came
 * back, the matched paths (the first three and how many), the secret files counted.
 */
function searched(r: { out: string; envelope: any }) {
  const paths: string[] = (r.envelope.payload?.matches ?? []).map((m: { path: string }) => m.path);
  return {
    status: r.envelope.status,
    canary: r.out.includes(CANARY),
    matches: paths.length <= 3 ? paths : [...paths.slice(0, 3), `... ${paths.length} in all`],
    skippedSecretFiles: r.envelope.payload?.skippedSecretFiles,
  };
}
/** What every search answers, swapped or not: success, the kept line alone, the .env counted. */
const SEARCHED = { status: "success", canary: false, matches: [KEEP.path], skippedSecretFiles: 1 };

/** CALLS searches while the swapper exchanges ws/a and ws/b; each is judged alone. */
async function raceSearch(who: Who, s: Site): Promise<void> {
  // Unswapped first: the whole tree is searched (ws/a and keep.txt; a symlink is never followed).
  const before = await call(who, s, "file_search", { pattern: "needle" });
  expect({ ...searched(before), filesSearched: before.envelope.payload?.filesSearched }).toEqual({
    ...SEARCHED,
    filesSearched: FILES + 1,
  });
  expect(before.envelope.payload.matches).toEqual([KEEP]);
  const seen = [];
  {
    await using _swap = await startSwapper(join(s.ws, "a"), join(s.ws, "b"));
    for (let i = 0; i < CALLS; i++) seen.push(searched(await call(who, s, "file_search", { pattern: "needle" })));
  }
  expect(seen).toEqual(Array.from({ length: CALLS }, () => SEARCHED));
}

describe("file_search on a large tree while a symlink is swapped in mid-walk", () => {
  test.each(WHO)(
    "as %s: a listed folder turned symlink to an outside folder is never read through",
    async (who) => {
      await using root = tempDir();
      await raceSearch(who, site(root.path, who, folderLink));
    },
    60_000,
  );

  test.each(WHO)(
    "as %s: listed files turned symlinks to a file outside are never read through",
    async (who) => {
      await using root = tempDir();
      await raceSearch(
        who,
        site(
          root.path,
          who,
          fileLinks((s) => join(s.out, "secret.txt")),
        ),
      );
    },
    60_000,
  );

  test.each(WHO)(
    "as %s: listed files turned symlinks to the workspace's .env are never read through",
    async (who) => {
      await using root = tempDir();
      await raceSearch(
        who,
        site(
          root.path,
          who,
          fileLinks(() => "../.env"),
        ),
      );
    },
    60_000,
  );
});

describe("file_find on a large tree while a symlink is swapped in mid-walk", () => {
  test.each(WHO)(
    "as %s: a listed folder turned symlink to an outside folder is never listed",
    async (who) => {
      await using root = tempDir();
      const s = site(root.path, who, folderLink);
      // Unswapped first: the whole tree is listed (ws/a's files, keep.txt, and ws/b as the link it is).
      const before = (await call(who, s, "file_find", { limit: 5000 })).envelope;
      expect([
        before.status,
        before.payload?.paths?.length,
        before.payload?.paths?.includes("b"),
        before.payload?.skippedSecretFiles,
      ]).toEqual(["success", FILES + 2, true, 1]);
      const seen = [];
      {
        await using _swap = await startSwapper(join(s.ws, "a"), join(s.ws, "b"));
        for (let i = 0; i < CALLS; i++) {
          const r = await call(who, s, "file_find", { limit: 5000 });
          seen.push({
            status: r.envelope.status,
            outsideName: r.out.includes(OUTSIDE_NAME),
            keep: (r.envelope.payload?.paths ?? []).includes(KEEP.path),
          });
        }
      }
      expect(seen).toEqual(
        Array.from({ length: CALLS }, () => ({ status: "success", outsideName: false, keep: true })),
      );
    },
    60_000,
  );
});
