// The workspace view handed to file tools: every argument path is resolved to a real
// path (symlinks followed; a new file through its parent) and must stay inside the
// workspace root, whatever the grants. Paths shown back are workspace-relative.
import { isAbsolute, relative, sep } from "node:path";
import { resolveReal } from "../../fs/real-path.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";

export interface Resolved {
  /** Real absolute path (what permissions and I/O use). */
  readonly abs: string;
  /** Workspace-relative path with "/" separators (what results show). */
  readonly rel: string;
}

export const isInside = (root: string, p: string): boolean => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);

export function resolveInside(workspace: string, path: string): Outcome<Resolved> {
  if (path.includes("\0")) return refuse("path.invalid", "the path contains a NUL character");
  if (isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path)) {
    return refuse("path.outside_workspace", `"${path}" is absolute; give a workspace-relative path`);
  }
  const root = resolveReal(workspace, "/");
  // Resolved as the kernel would (`link/..` is the link target's parent); the I/O then uses
  // this checked real path, so what is checked is what is touched.
  const abs = root === null ? null : resolveReal(path, root);
  if (root === null || abs === null) return refuse("path.invalid", `"${path}" cannot be resolved (a symlink loop?)`);
  if (!isInside(root, abs)) {
    return refuse("path.outside_workspace", `"${path}" resolves outside the workspace (file tools never leave it, whatever the grants)`);
  }
  return { ok: true, value: { abs, rel: relativeTo(root, abs) } };
}

/**
 * What a handler works on: the real path the permission stage checked (`checked`, from the call's
 * checked needs), which must lie inside the workspace; without one (a caller outside the
 * pipeline), `path` resolved now. Either way the handler then opens it with src/fs/opened.ts.
 */
export function targetInside(workspace: string, path: string, checked: string | undefined): Outcome<Resolved> {
  if (checked === undefined) return resolveInside(workspace, path);
  const root = resolveReal(workspace, "/");
  if (root === null || !isInside(root, checked)) {
    return refuse("path.changed", `"${path}" changed between its check and its use: it now resolves outside the workspace; nothing was done`);
  }
  return ok({ abs: checked, rel: relativeTo(root, checked) });
}

/** The workspace-relative path of an absolute path (symlinks followed), or null when it lies outside. */
export function relativeInside(workspace: string, absPath: string): string | null {
  const root = resolveReal(workspace, "/");
  const abs = root === null ? null : resolveReal(absPath, root);
  return root === null || abs === null || !isInside(root, abs) ? null : relativeTo(root, abs);
}

function relativeTo(root: string, abs: string): string {
  const rel = relative(root, abs).split(sep).join("/");
  return rel === "" ? "." : rel;
}
