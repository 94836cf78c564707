// file_write: a whole-file write inside the workspace. Replacing an existing file needs
// `overwrite: true`; missing parent folders are permission needs of their own, so they are
// created only inside the write grant, one level at a time through the verified folder above.
// Atomic and read back, like file_edit (atomic-write.ts).
import { closeSync, lstatSync, mkdirSync, type BigIntStats } from "node:fs";
import { basename, dirname } from "node:path";
import { defineTool } from "../../catalog/declare.ts";
import type { Need } from "../../permission/types.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { CHANGED, changedMessage, inDir, O_DIR, openChecked, openError, openIn } from "../../fs/opened.ts";
import { atomicWrite } from "./atomic-write.ts";
import { refuseProtected, type WriteScope } from "./protected.ts";
import { relativeInside, resolveInside, targetInside } from "./workspace.ts";
import description from "./file-write.txt" with { type: "text" };

export interface WriteArgs {
  readonly path: string;
  readonly content: string;
  readonly overwrite?: boolean;
}

export default defineTool({
  name: "file_write",
  description: description.trimEnd(),
  input: (type) =>
    type({
      "+": "reject",
      path: "string > 0",
      content: "string",
      "overwrite?": "boolean",
    }),
  effect: "irreversible",
  approval: "required",
  needs: (args, ctx) => {
    const r = resolveInside(ctx.workspace, args.path);
    if (!r.ok) return r;
    // Outermost missing folder first: a grant of only the file's path is refused naming the folder to grant.
    const folders = missingFolders(r.value.abs).map((value): Need => ({ kind: "write", value }));
    return ok([...folders, { kind: "write", value: r.value.abs }]);
  },
  handler: async (args, ctx) =>
    writeFile(ctx.workspace, args, {
      stateDir: ctx.stateDir,
      ...(ctx.controlFiles ? { controlFiles: ctx.controlFiles } : {}),
      ...(ctx.checked ? { checked: ctx.checked.map((n) => n.value) } : {}),
    }),
});

/** The folders above `abs` that do not exist yet, outermost first (stops at the first existing entry). */
export function missingFolders(abs: string): string[] {
  const missing: string[] = [];
  for (let dir = dirname(abs); dir !== dirname(dir); dir = dirname(dir)) {
    if (kindOfOrCode(dir) !== null) break; // present, or not examinable: nothing above it is created
    missing.unshift(dir);
  }
  return missing;
}

type Kind = "file" | "folder" | "other";

function kindOf(abs: string): Kind | null {
  try {
    const st = lstatSync(abs);
    return st.isFile() ? "file" : st.isDirectory() ? "folder" : "other";
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // ENOTDIR: a parent is a file; the caller finds that parent and refuses with its name.
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw e;
  }
}

export async function writeFile(workspace: string, args: WriteArgs, scope: WriteScope = {}): Promise<Outcome<unknown>> {
  if (/[\\/]\.?$/.test(args.path))
    return refuse("file.not_a_file", `"${args.path}" names a folder; file_write writes files`);
  // The checked needs: the missing folders (outermost first), then the file itself.
  const checkedFolders = scope.checked?.slice(0, -1);
  const r = targetInside(workspace, args.path, scope.checked?.at(-1));
  if (!r.ok) return r;
  const { abs, rel } = r.value;
  const protectedPath = refuseProtected(workspace, scope, rel);
  if (protectedPath) return protectedPath;
  const parent = openParentCreating(workspace, abs, rel, checkedFolders ?? missingFolders(abs));
  if (!parent.ok) return parent;
  const dirFd = parent.value;
  try {
    // Examined through the verified folder: the last name is never followed.
    const existing = kindOfOrCode(() => inDir(dirFd, basename(abs)));
    if (existing !== null && typeof existing === "object" && existing.code === CHANGED)
      return refuse("path.changed", changedMessage(rel, "nothing was written"));
    if (existing !== null && typeof existing === "object")
      return refuse("file.unwritable", `"${rel}" cannot be examined (${existing.code})`);
    if (existing === "folder") return refuse("file.not_a_file", `"${rel}" is a directory; file_write writes files`);
    if (existing === "other") return refuse("file.not_a_file", `"${rel}" is not a regular file`);
    if (existing === "file" && !args.overwrite) {
      return refuse(
        "file.exists",
        `"${rel}" already exists; pass overwrite: true to replace it whole (file_edit changes part of it)`,
      );
    }
    const st: BigIntStats | null =
      existing === "file" ? lstatSync(inDir(dirFd, basename(abs)), { bigint: true }) : null;
    const written = atomicWrite(abs, rel, Buffer.from(args.content, "utf8"), {
      // Without overwrite the file is published with link(2), so one created meanwhile is still refused.
      publish: args.overwrite ? "replace" : "create",
      dirFd,
      ...(st ? { mode: Number(st.mode & 0o777n), owner: { uid: Number(st.uid), gid: Number(st.gid) } } : {}),
      ...(scope.io ? { io: scope.io } : {}),
    });
    if (!written.ok) return written;
    return ok({ path: rel, digest: written.value.digest, bytes: written.value.bytes, created: st === null });
  } finally {
    closeSync(dirFd);
  }
}

/**
 * The verified descriptor of the folder that will hold `abs`. `folders` are the missing folders the
 * permission stage checked (outermost first): each is made inside the verified descriptor of the one
 * above and entered without following a link, so a folder swapped for a symlink is never written through.
 */
function openParentCreating(workspace: string, abs: string, rel: string, folders: readonly string[]): Outcome<number> {
  const base = dirname(folders[0] ?? abs);
  const shown = (p: string) => relativeInside(workspace, p) ?? p;
  const opened = openChecked(base, O_DIR);
  if (!opened.ok) {
    if (opened.code === CHANGED) return refuse("path.changed", changedMessage(rel, "nothing was written"));
    if (opened.code === "ENOENT") return refuse("path.changed", changedMessage(rel, "nothing was written"));
    if (opened.code === "ENOTDIR")
      return refuse("file.parent_not_a_folder", `"${rel}" cannot be created: "${shown(base)}" is not a folder`);
    return refuse(
      "file.unwritable",
      `"${rel}" cannot be written: folder "${shown(base)}" cannot be opened (${opened.code})`,
    );
  }
  let fd = opened.fd;
  for (const dir of folders) {
    try {
      mkdirSync(inDir(fd, basename(dir))); // one level at a time: exactly the folders the permission stage saw
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "EEXIST") {
        closeSync(fd);
        if (code === CHANGED) return refuse("path.changed", changedMessage(rel, "nothing was written"));
        return refuse("file.unwritable", `"${rel}" cannot be created: folder "${shown(dir)}" (${code})`);
      }
    }
    let next: number;
    try {
      next = openIn(fd, basename(dir), O_DIR); // O_NOFOLLOW: a symlink put here meanwhile is not entered
    } catch (e) {
      const code = openError(e, dir);
      closeSync(fd);
      if (code === CHANGED) return refuse("path.changed", changedMessage(rel, "nothing was written"));
      if (code === "ENOTDIR")
        return refuse("file.parent_not_a_folder", `"${rel}" cannot be created: "${shown(dir)}" is not a folder`);
      return refuse("file.unwritable", `"${rel}" cannot be created: folder "${shown(dir)}" (${code})`);
    }
    closeSync(fd);
    fd = next;
  }
  return ok(fd);
}

/** `at`: the path, or how to name it (inDir, which may throw CHANGED). */
function kindOfOrCode(at: string | (() => string)): Kind | null | { code: string } {
  try {
    return kindOf(typeof at === "string" ? at : at());
  } catch (e) {
    return { code: (e as NodeJS.ErrnoException).code ?? "EIO" };
  }
}
