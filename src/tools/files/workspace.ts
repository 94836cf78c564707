// The workspace view handed to file tools: every argument path is resolved to a real
// path (symlinks followed; a new file through its parent) and must stay inside the
// workspace root, whatever the grants. Paths shown back are workspace-relative.
import { isAbsolute, relative, sep } from "node:path";
import { heldRoot, resolveFrom, resolveReal } from "../../fs/real-path.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";

export interface Resolved {
  /** Real absolute path (what permissions and I/O use). */
  readonly abs: string;
  /** Workspace-relative path with "/" separators (what results show). */
  readonly rel: string;
}

export const isInside = (root: string, p: string): boolean =>
  p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);

/** The workspace's real path, resolved once per process and re-checked by descriptor (src/fs/real-path.ts heldRoot). */
function root(workspace: string): Outcome<string> {
  const r = heldRoot(workspace);
  if (r.ok) return ok(r.real);
  return r.moved
    ? refuse("path.changed", `the workspace ${r.why}; nothing was done: start toolgate again in the workspace`)
    : refuse("path.invalid", `the workspace ${r.why}`);
}

export function resolveInside(workspace: string, path: string): Outcome<Resolved> {
  if (path.includes("\0")) return refuse("path.invalid", "the path contains a NUL character");
  if (isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path)) {
    return refuse("path.outside_workspace", `"${path}" is absolute; give a workspace-relative path`);
  }
  const held = root(workspace);
  if (!held.ok) return held;
  // Resolved as the kernel would (`link/..` is the link target's parent); the I/O then uses
  // this checked real path, so what is checked is what is touched.
  const abs = resolveFrom(held.value, path);
  if (abs === null) return refuse("path.invalid", `"${path}" cannot be resolved (a symlink loop?)`);
  if (!isInside(held.value, abs)) {
    return refuse(
      "path.outside_workspace",
      `"${path}" resolves outside the workspace (file tools never leave it, whatever the grants)`,
    );
  }
  return { ok: true, value: { abs, rel: relativeTo(held.value, abs) } };
}

/**
 * What a handler works on: the real path the permission stage checked (`checked`, from the call's
 * checked needs), which must lie inside the workspace; without one (a caller outside the
 * pipeline), `path` resolved now. Either way the handler then opens it with src/fs/opened.ts.
 */
export function targetInside(workspace: string, path: string, checked: string | undefined): Outcome<Resolved> {
  if (checked === undefined) return resolveInside(workspace, path);
  const held = root(workspace);
  if (!held.ok) return held;
  if (!isInside(held.value, checked)) {
    return refuse(
      "path.changed",
      `"${path}" changed between its check and its use: it now resolves outside the workspace; nothing was done`,
    );
  }
  return ok({ abs: checked, rel: relativeTo(held.value, checked) });
}

/** The workspace-relative path of an absolute path (symlinks followed), or null when it lies outside. */
export function relativeInside(workspace: string, absPath: string): string | null {
  const held = root(workspace);
  const abs = held.ok ? resolveReal(absPath, held.value) : null;
  return !held.ok || abs === null || !isInside(held.value, abs) ? null : relativeTo(held.value, abs);
}

function relativeTo(root: string, abs: string): string {
  const rel = relative(root, abs).split(sep).join("/");
  return rel === "" ? "." : rel;
}
