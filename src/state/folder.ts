// The state folder: made 0700 on first use, with a `.gitignore` holding `*` when toolgate is the
// one that made it (as pytest and ruff do), so a workspace's `.toolgate/` never dirties git.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Makes `dir` (and its parents) when missing; only a folder made here gets a `.gitignore`. */
export function makeStateFolder(dir: string): void {
  // recursive mkdir returns the first folder it made, undefined when `dir` was already there.
  if (mkdirSync(dir, { recursive: true, mode: 0o700 }) === undefined) return;
  try {
    // "wx": never overwrite a file someone else put there first.
    writeFileSync(join(dir, ".gitignore"), "# made by toolgate: its state is never committed\n*\n", { flag: "wx", mode: 0o644 });
  } catch {
    // Another process made it first, or the folder refuses it: the state itself decides.
  }
}
