// A run's own HOME (docs/tools.md: `bash -lc` runs with HOME set to an empty folder in the
// state folder, so the user's dotfiles neither run nor print into every result). Each run has a
// folder of its own, `<state>/home/<pid>-<random>`, in a folder toolgate verified as its own, made
// 0700: empty when the command starts (a .profile a previous command left cannot run), writable
// while it runs (caches), emptied when it ends. An empty one is kept for the next run (removing a
// folder costs a few ms on some disks, making one does not): a run takes a free one by renaming it
// to its own name (atomic: two processes never share one), one left by a process that is gone included.
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { randomHex } from "./artifacts.ts";

export type RunHome = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly message: string };

const NAME = /^(\d+)-[0-9a-f]{32}$/;
/** This process's homes while their runs go on: never taken by another of its runs. */
const inUse = new Set<string>();

/** Makes (or takes a free) HOME for one run under `<stateDir>/home`; a refusal names what is wrong with that folder. */
export function makeRunHome(stateDir: string): RunHome {
  const root = join(stateDir, "home");
  try {
    // As the artifacts folder is: the state folder made 0700 when a run comes first.
    if (!madeRoot(root)) {
      mkdirSync(stateDir, { recursive: true, mode: 0o700 });
      mkdirSync(root, { mode: 0o700 });
    }
  } catch (e) {
    if ((e as { code?: string }).code !== "EEXIST")
      return { ok: false, message: `cannot make ${root} for the command's HOME: ${(e as Error).message}` };
    const st = lstatSync(root);
    if (!st.isDirectory() || st.uid !== process.geteuid?.()) {
      return {
        ok: false,
        message:
          `${root} is not a folder toolgate made ` +
          `(${st.isSymbolicLink() ? "a symbolic link" : !st.isDirectory() ? "not a folder" : "another user's"}): ` +
          `remove it, toolgate makes it again`,
      };
    }
  }
  const path = join(root, `${process.pid}-${randomHex()}`);
  if (!takeFree(root, path)) {
    try {
      mkdirSync(path, { mode: 0o700 });
    } catch (e) {
      return { ok: false, message: `cannot make ${path} for the command's HOME: ${(e as Error).message}` };
    }
  }
  inUse.add(path);
  return { ok: true, path };
}

/**
 * After the run: what the command left in its HOME goes (links removed, never followed); the folder stays for the
 * next run.
 */
export function releaseRunHome(path: string): void {
  inUse.delete(path);
  empty(path);
}

/** Renames a free home (this process's, not in use; or a gone process's) to `path`, emptied. */
function takeFree(root: string, path: string): boolean {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return false;
  }
  for (const name of names) {
    const pid = Number(NAME.exec(name)?.[1]);
    const from = join(root, name);
    if (!(pid > 0) || inUse.has(from) || (pid !== process.pid && alive(pid))) continue;
    try {
      renameSync(from, path);
    } catch {
      continue; // taken by another process meanwhile
    }
    const st = lstatSync(path);
    if (st.isDirectory() && st.uid === process.geteuid?.() && (st.mode & 0o777) === 0o700 && empty(path)) return true;
    rmSync(path, { recursive: true, force: true }); // not what toolgate left there: it goes
  }
  return false;
}

/** Removes everything in `dir`; false when something could not be removed. */
function empty(dir: string): boolean {
  try {
    for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true, maxRetries: 2 });
    return true;
  } catch {
    return false;
  }
}

/** mkdir: true when made, false when the state folder is missing; throws anything else (EEXIST). */
function madeRoot(root: string): boolean {
  try {
    mkdirSync(root, { mode: 0o700 });
    return true;
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return false;
    throw e;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}
