// apply_change wrote a change's files through a folder name that an attacker (a
// sandboxed background task, here the swapper process) swapped with a symlink leading out after
// apply_change's checks. What is checked is what is opened: apply_change opens
// every folder by descriptor from the checkout's top, never through a link, and creates files
// relative to the verified folder. Bounded attempts, zero escapes: no file appears outside.
import { beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../fixtures/gates/make-repo.ts";
import { BIN, json, ROOT, run, tempDir } from "../helpers.ts";
import { startSwapper } from "./race-harness.ts";

const AGENT = join(ROOT, "test", "fixtures", "delegate", "agent.ts");
const CHANGES = 3;
const FILES = 40;
/** apply_change calls per change at most: a refusal (the folder was a link when looked at) is retried. */
const ATTEMPTS = 40;
const RETRIED = ["change.conflict", "change.protected", "path.changed", "change.incomplete"];

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

test("apply_change never writes through a folder swapped for a link to outside the checkout", async () => {
  await using d = tempDir();
  const ws = join(d.path, "ws");
  const out = join(d.path, "out");
  mkdirSync(join(ws, "d"), { recursive: true });
  mkdirSync(out);
  writeFileSync(join(ws, "d", "keep.txt"), "keep\n");
  writeFileSync(join(ws, ".gitignore"), ".toolgate/\nl\n");
  git(ws, "init", "-q", "-b", "main");
  git(ws, "add", "-A");
  git(ws, "commit", "-q", "-m", "fixture");
  const cfg = join(d.path, "cfg.json");
  writeFileSync(
    cfg,
    JSON.stringify({
      workspace: ws,
      delegation: {
        command: [process.execPath, AGENT, "{objective}", "{server}"],
        worktree_root: join(d.path, "worktrees"),
        timeout_secs: 60,
      },
    }),
  );
  const ids: string[] = [];
  for (let c = 0; c < CHANGES; c++) {
    const calls = Array.from({ length: FILES }, (_, i) => ({
      tool: "file_write",
      args: { path: `d/c${c}-${i}.txt`, content: `change ${c} file ${i}\n` },
    }));
    const r = await run(
      [
        "call",
        "task",
        JSON.stringify({ objective: JSON.stringify({ calls }), kind: "write" }),
        "--config",
        cfg,
        "--allow-read",
        "--approve",
        "task",
      ],
      { cwd: ws },
    );
    expect(json(r).payload.change.files.length).toBe(FILES);
    ids.push(json(r).payload.change.change_id);
  }
  // The attacker: ws/d is the real folder one instant and a link to `out` the next.
  symlinkSync(out, join(ws, "l"));
  const tally = { escapes: 0, applied: 0, attempts: 0, refused: {} as Record<string, number> };
  const swap = await startSwapper(join(ws, "d"), join(ws, "l"), 120_000);
  try {
    for (const id of ids) {
      for (let a = 0; a < ATTEMPTS; a++) {
        tally.attempts++;
        const r = await run(
          [
            "call",
            "apply_change",
            JSON.stringify({ change_id: id }),
            "--config",
            cfg,
            "--allow-write",
            "--approve",
            "apply_change",
          ],
          { cwd: ws },
        );
        tally.escapes = readdirSync(out).length;
        const e = json(r);
        if (e.status === "success") {
          tally.applied++;
          break;
        }
        tally.refused[e.error_code] = (tally.refused[e.error_code] ?? 0) + 1;
        // Only "the folder is a link now" refusals are retried (the plan saw it: a conflict, a protected
        // path through a link, a changed path); anything else is a failure.
        if (!RETRIED.includes(e.error_code)) throw new Error(r.stdout);
        if (e.error_code === "change.incomplete") break;
      }
    }
  } finally {
    await swap.stop();
  }
  // Whatever name the real folder has now, every file is in it, inside the checkout.
  const real = readdirSync(join(ws, "d")).includes("keep.txt") ? join(ws, "d") : join(ws, "l");
  const inside = readdirSync(real).filter((n) => n !== "keep.txt").length;
  expect({ escapes: tally.escapes, outside: readdirSync(out) }).toEqual({ escapes: 0, outside: [] });
  expect({ applied: tally.applied, inside }).toEqual({ applied: CHANGES, inside: CHANGES * FILES });
  expect(readFileSync(join(real, "c0-0.txt"), "utf8")).toBe("change 0 file 0\n");
}, 180_000);
