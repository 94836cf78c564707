// What file_edit and file_write never write, whatever the grants (control files are
// protected where they would be, not only where they are): .git, the state folder, the config and
// lock names in any folder (toolgate run there finds the nearest first), the authored-tools folder.
// Judged on the checked real path, so every spelling (./, .., a symlink, another case where names
// fold) is the same path.
import { lstatSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { LOCK_NAME } from "../../catalog/lock.ts";
import { CONFIG_NAME } from "../../config/file.ts";
import { resolveReal } from "../../fs/real-path.ts";
import { refuse, type Outcome } from "../../result/result.ts";
import type { PublishIo } from "./atomic-write.ts";
import { isInside, relativeInside } from "./workspace.ts";

/**
 * What a writer's call is scoped by: the state folder and control files it must not write, and (for tests) the
 * publish step.
 */
export interface WriteScope {
  readonly stateDir?: string;
  /** Absolute paths of toolgate's control files and folders (config, lock, authored tools), existing or not. */
  readonly controlFiles?: readonly string[];
  readonly io?: PublishIo;
  /**
   * The real paths the permission stage checked for this call, in needs() order (the pipeline's
   * `ctx.checked`): the writer works on exactly these. Absent (callers outside the pipeline): resolved now.
   */
  readonly checked?: readonly string[];
}

/**
 * `rel`: the workspace-relative form of the checked real path about to be written (or a folder about to be made
 * above it).
 */
export function refuseProtected(workspace: string, scope: WriteScope, rel: string): Outcome<never> | null {
  // Any case of .git, as git itself reads it (hooks and config run code).
  if (rel.split("/").some((s) => s.toLowerCase() === ".git")) {
    return refuse(
      "path.protected",
      `"${rel}" is inside a .git folder, which file tools never write (its hooks and config run code)`,
    );
  }
  const state = scope.stateDir === undefined ? null : relativeInside(workspace, scope.stateDir);
  if (state !== null && state !== "." && isInside(state, rel)) {
    return refuse("path.protected", `"${rel}" is inside toolgate's state folder, which file tools never write`);
  }
  // Anywhere in the workspace, not only at the root: toolgate run from a subfolder finds the nearest
  // config (and its lock) first, so a planted `sub/toolgate.json` would replace the root's whole.
  const base = (rel.split("/").pop() ?? "").toLowerCase();
  if (base === CONFIG_NAME || base === LOCK_NAME) {
    return refuse(
      "path.protected",
      `"${rel}" is named like toolgate's own control file (${base}), which file tools never create or change ` +
        `in any folder: toolgate run from there would use it instead of the one above; a person writes it`,
    );
  }
  // The config, the lock and authored tools decide what runs and with which grants: a tool call
  // must not write them, nor create them where toolgate would find them (a person does, with review).
  const root = resolveReal(workspace, "/") ?? workspace;
  for (const c of [join(root, CONFIG_NAME), join(root, LOCK_NAME), ...(scope.controlFiles ?? [])]) {
    const cr = relativeInside(workspace, c);
    if (cr === null || cr === ".") continue;
    const same =
      isInside(cr, rel) || (isInside(cr.toLowerCase(), rel.toLowerCase()) && foldsCase(dirname(join(root, cr))));
    if (same)
      return refuse(
        "path.protected",
        `"${rel}" is toolgate's own control file (${cr}), which file tools never write; a person edits it`,
      );
  }
  return null;
}

/**
 * Whether `dir` finds names whatever their case (macOS, a casefolded folder, a FAT drive): an entry
 * looked up under its case-swapped name is the same file. Undecidable (no entry with a letter, or
 * unreadable) counts as folding, so the refusal errs on the safe side.
 */
function foldsCase(dir: string): boolean {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return true;
  }
  for (const name of names) {
    const swapped = [...name].map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase())).join("");
    if (swapped === name) continue;
    try {
      const a = lstatSync(join(dir, name), { bigint: true });
      const b = lstatSync(join(dir, swapped), { bigint: true });
      return a.dev === b.dev && a.ino === b.ino;
    } catch {
      return false; // the swapped name is not there: names are case-sensitive here
    }
  }
  return true;
}
