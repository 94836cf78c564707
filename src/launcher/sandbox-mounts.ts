// The bubblewrap mounts that make product and bench hold when toolgate runs as root (SPEC "The
// launcher"): no capabilities, a user namespace (mounts it inherits are locked: they cannot be
// unmounted to uncover what lies beneath), host sockets, homes and root's secrets hidden, and
// control paths read-only whether or not they exist yet.
import { lstatSync, realpathSync, rmdirSync } from "node:fs";
import { dirname } from "node:path";
import { secretMasks, type Mask } from "./secret-masks.ts";

/** bwrap mounts at real paths: a workspace reached through a symlink is bound where it really is. */
export const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

export const inside = (root: string, p: string) => p === root || p.startsWith(root.endsWith("/") ? root : `${root}/`);

export interface Host {
  /** toolgate runs as root: the child would own root's files, so they are masked. */
  readonly asRoot: boolean;
  readonly masks: (workspace: string) => readonly Mask[];
  /** "dir", "file", "link" or null (nothing there); never follows the last link. */
  readonly kind: (p: string) => "dir" | "file" | "link" | null;
  readonly realpath: (p: string) => string;
}

export const realHost: Host = {
  asRoot: process.geteuid?.() === 0,
  masks: (workspace) => secretMasks(workspace),
  kind(p) {
    try {
      const st = lstatSync(p);
      return st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : "file";
    } catch {
      return null;
    }
  },
  realpath: real,
};

/** Hidden whole: host sockets (/run, /var/run) and every home folder. */
const HIDDEN = ["/run", "/var/run", "/home", "/root"];

/**
 * Everything before the workspace's own binds. Order matters: later mounts cover earlier ones,
 * so a workspace under /tmp, /home or /root is bound again over the empty folder that hid it.
 */
export function systemMounts(o: { readonly workspace: string; readonly shareNet: boolean; readonly host: Host }): readonly string[] {
  // The run's wrapper and the boot probe share one view of the system (the masks are read once).
  const key = `${o.workspace}\0${o.shareNet}`;
  const known = o.host === realHost ? systems.get(key) : undefined;
  if (known) return known;
  const built = buildSystemMounts(o);
  if (o.host === realHost) systems.set(key, built);
  return built;
}

const systems = new Map<string, readonly string[]>();

function buildSystemMounts(o: { readonly workspace: string; readonly shareNet: boolean; readonly host: Host }): string[] {
  const { host, workspace } = o;
  const hidden = HIDDEN.filter((p) => host.kind(p) === "dir"); // a /var/run link to /run is covered by /run
  // With the network shared, the resolver file may live under /run (systemd-resolved): keep that one file.
  const resolv = o.shareNet ? host.realpath("/etc/resolv.conf") : "";
  const keepResolv = resolv !== "/etc/resolv.conf" && hidden.some((h) => inside(h, resolv)) && host.kind(resolv) === "file";
  const masks = host.asRoot ? host.masks(workspace).filter((m) => !inside(workspace, m.path)) : [];
  return [
    "--die-with-parent", // the sandbox never outlives the launcher's child
    "--new-session", // no TIOCSTI into a terminal the sandbox could reach
    "--unshare-all", // user (unless root: see below), IPC, PID, network, UTS and cgroup namespaces
    // As root bwrap skips the user namespace; with one, the mounts it inherits are locked.
    ...(host.asRoot ? ["--unshare-user"] : []),
    ...(o.shareNet ? ["--share-net"] : []),
    "--cap-drop", "ALL", // also as root: no mount, no unmount, no reading past permissions
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    "--tmpfs", "/tmp",
    ...hidden.flatMap((p) => ["--tmpfs", p]),
    ...(keepResolv ? ["--ro-bind", resolv, resolv] : []),
    ...masks.flatMap((m) => (m.dir ? ["--tmpfs", m.path, "--remount-ro", m.path] : ["--ro-bind", "/dev/null", m.path])),
  ];
}

/** Placeholders held by this process's running sandboxes, by path: the last run out removes one. */
const holders = new Map<string, number>();

/**
 * Control paths read-only inside the sandbox. One that exists is bound over itself; one that does
 * not is held by an empty read-only mount point at its topmost missing folder (bwrap creates it,
 * as an empty folder, in the real workspace: a name cannot be kept free any other way), so it can
 * be neither created nor replaced. The placeholder is removed when the run ends.
 */
export function controlMounts(protect: readonly string[], workspace: string, host: Host): { args: string[]; placeholders: string[] } {
  const args: string[] = [];
  const placeholders: string[] = [];
  for (const p of protect) {
    if (host.kind(p) !== null) {
      args.push("--ro-bind-try", p, p);
      continue;
    }
    let top = p;
    while (dirname(top) !== workspace && host.kind(dirname(top)) === null) top = dirname(top);
    if (placeholders.includes(top)) continue;
    placeholders.push(top);
    holders.set(top, (holders.get(top) ?? 0) + 1);
    args.push("--tmpfs", top, "--remount-ro", top);
  }
  return { args, placeholders };
}

/** Removes placeholders no other run of this process still holds: only empty folders (what bwrap made). */
export function releasePlaceholders(placeholders: readonly string[], host: Host): void {
  for (const p of placeholders) {
    const n = (holders.get(p) ?? 1) - 1;
    if (n > 0) {
      holders.set(p, n);
      continue;
    }
    holders.delete(p);
    if (host.kind(p) !== "dir") continue;
    try {
      rmdirSync(p); // fails on a folder that is not empty: then it is not ours
    } catch {
      // Left as it is.
    }
  }
}
