// The sandbox's mounts as data: each one a (kind, source, target), applied in order as bubblewrap
// applies them, where a later mount at a folder shadows everything earlier mounts put beneath it.
// The wrapper renders the list into bwrap's arguments; replay() reads the same list back into what
// the child can do at a path, so a test checks the list as a whole, not each mount alone.

export type Mount =
  /** The host's `source`, writable (bwrap --bind, or --bind-try when `optional`). */
  | { readonly kind: "bind"; readonly source: string; readonly target: string; readonly optional?: boolean }
  /** The host's `source`, read-only (--ro-bind, --ro-bind-try). */
  | { readonly kind: "ro-bind"; readonly source: string; readonly target: string; readonly optional?: boolean }
  /** An empty folder of the sandbox's own (--tmpfs), read-only with `readOnly` (--remount-ro after it). */
  | { readonly kind: "tmpfs"; readonly target: string; readonly readOnly: boolean }
  | { readonly kind: "dev"; readonly target: string }
  | { readonly kind: "proc"; readonly target: string };

export const inside = (root: string, p: string) => p === root || p.startsWith(root.endsWith("/") ? root : `${root}/`);

export const bind = (p: string, optional = false): Mount => ({
  kind: "bind",
  source: p,
  target: p,
  ...(optional ? { optional } : {}),
});
export const roBind = (p: string, optional = false): Mount => ({
  kind: "ro-bind",
  source: p,
  target: p,
  ...(optional ? { optional } : {}),
});
export const tmpfs = (p: string, readOnly: boolean): Mount => ({ kind: "tmpfs", target: p, readOnly });
/** A file replaced by an empty read-only one. */
export const nullFile = (p: string): Mount => ({ kind: "ro-bind", source: "/dev/null", target: p });

export function mountArgs(mounts: readonly Mount[]): string[] {
  return mounts.flatMap((m) => {
    switch (m.kind) {
      case "bind":
        return [m.optional ? "--bind-try" : "--bind", m.source, m.target];
      case "ro-bind":
        return [m.optional ? "--ro-bind-try" : "--ro-bind", m.source, m.target];
      case "tmpfs":
        return m.readOnly ? ["--tmpfs", m.target, "--remount-ro", m.target] : ["--tmpfs", m.target];
      case "dev":
        return ["--dev", m.target];
      case "proc":
        return ["--proc", m.target];
    }
    return m satisfies never; // every kind is returned above: tsc checks the switch covers them all
  });
}

/**
 * What the child meets at `path`: the host's file (`host`, the host path it reaches, writable or
 * not), something of the sandbox's own (`own`: a tmpfs, /dev, /proc, whose writes stay inside), or
 * nothing (`none`: no mount covers it). The last mount whose target holds the path decides.
 */
export type Access =
  | { readonly kind: "host"; readonly writable: boolean; readonly at: string }
  | { readonly kind: "own"; readonly writable: boolean }
  | { readonly kind: "none" };

export function replay(mounts: readonly Mount[], path: string): Access {
  for (let i = mounts.length - 1; i >= 0; i--) {
    const m = mounts[i]!;
    if (!inside(m.target, path)) continue;
    if (m.kind === "bind" || m.kind === "ro-bind") {
      const at = m.source + path.slice(m.target.length);
      return { kind: "host", writable: m.kind === "bind" && m.source !== "/dev/null", at };
    }
    return { kind: "own", writable: m.kind === "tmpfs" ? !m.readOnly : m.kind === "dev" };
  }
  return { kind: "none" };
}

/** Whether a command in the sandbox can change the host's file at `path`. */
export const hostWritable = (mounts: readonly Mount[], path: string): boolean => {
  const a = replay(mounts, path);
  return a.kind === "host" && a.writable;
};

/**
 * The host folders the child can write, each with what later mounts carve out of it: every
 * writable bind that no later mount covers whole. The whole of what the sandbox lets a command
 * change on the host, for a test to compare with what its mode intends.
 */
export function writableSet(mounts: readonly Mount[]): { readonly root: string; readonly except: readonly string[] }[] {
  const out: { root: string; except: string[] }[] = [];
  mounts.forEach((m, i) => {
    if (m.kind !== "bind") return;
    const later = mounts.slice(i + 1);
    if (later.some((l) => inside(l.target, m.target))) return;
    const except = later
      .filter((l) => inside(m.target, l.target) && !hostWritable(mounts, l.target))
      .map((l) => l.target);
    out.push({ root: m.target, except: [...new Set(except)] });
  });
  return out;
}
