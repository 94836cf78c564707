// A run's own HOME (SPEC "The launcher": `bash -lc` runs with HOME set to an empty folder in the
// state folder, so the user's dotfiles neither run nor print into every result). Each run gets a
// fresh folder, `<state>/home/<pid>-<random>`, made 0700 by toolgate with an exclusive mkdir in
// a folder it verified as its own: empty when the command starts (a .profile a previous command
// left cannot run), writable while it runs (caches), removed when it ends. One left by a process
// that was killed is removed by a later run once that process is gone.
import { lstatSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { randomHex } from "./artifacts.ts";

export type RunHome = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly message: string };

/** Makes this run's HOME under `<stateDir>/home`; a refusal names what is wrong with that folder. */
export function makeRunHome(stateDir: string): RunHome {
  const root = join(stateDir, "home");
  try {
    // As the artifacts folder is: the state folder made 0700 when a run comes first.
    if (!madeRoot(root)) {
      mkdirSync(stateDir, { recursive: true, mode: 0o700 });
      mkdirSync(root, { mode: 0o700 });
    }
  } catch (e) {
    if ((e as { code?: string }).code !== "EEXIST") return { ok: false, message: `cannot make ${root} for the command's HOME: ${(e as Error).message}` };
    const st = lstatSync(root);
    if (!st.isDirectory() || st.uid !== process.geteuid?.()) {
      return { ok: false, message: `${root} is not a folder toolgate made (${st.isSymbolicLink() ? "a symbolic link" : !st.isDirectory() ? "not a folder" : "another user's"}): remove it, toolgate makes it again` };
    }
    sweep(root);
  }
  const path = join(root, `${process.pid}-${randomHex()}`);
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (e) {
    return { ok: false, message: `cannot make ${path} for the command's HOME: ${(e as Error).message}` };
  }
  return { ok: true, path };
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

/** Removes a run's HOME and what the command left in it (links are removed, never followed). */
export function removeRunHome(path: string): void {
  rmSync(path, { recursive: true, force: true, maxRetries: 2 });
}

/** Folders of processes that are gone (killed before they could remove them). */
function sweep(root: string): void {
  for (const name of readdirSync(root)) {
    const pid = Number(/^(\d+)-[0-9a-f]+$/.exec(name)?.[1]);
    if (!(pid > 0) || pid === process.pid || alive(pid)) continue;
    try {
      removeRunHome(join(root, name));
    } catch {
      // Another run sweeps it later.
    }
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
