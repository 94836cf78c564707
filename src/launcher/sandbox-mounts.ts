// The bubblewrap mounts that make product and bench hold when toolgate runs as root (see
// docs/security.md): no capabilities, a user namespace (mounts it inherits are locked: they cannot be
// unmounted to uncover what lies beneath), host sockets, homes and root's secrets hidden, and
// control paths read-only whether or not they exist yet.
import { lstatSync, mkdirSync, realpathSync, rmdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { hostPlatform } from "../platform/host.ts";
import { canSearch, type Who } from "./host-sockets.ts";
import { inside, nullFile, roBind, tmpfs, type Mount } from "./mount-list.ts";
import { secretMasks, type Mask } from "./secret-masks.ts";

export { inside };

/**
 * bwrap mounts at real paths: a workspace reached through a symlink is bound where it really is.
 * A path that does not exist yet (a missing control path) is its real folder's, with its own name.
 */
export const real = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    const up = dirname(p);
    return up === p ? p : join(real(up), basename(p));
  }
};

export interface Host {
  /** toolgate runs as root: the child would own root's files, so they are masked. */
  readonly asRoot: boolean;
  readonly masks: (workspace: string) => readonly Mask[];
  /** "dir", "file", "link" or null (nothing there); never follows the last link. */
  readonly kind: (p: string) => "dir" | "file" | "link" | null;
  readonly realpath: (p: string) => string;
  /** The owner of a path (null when it cannot be read). */
  readonly owner: (p: string) => { readonly uid: number; readonly gid: number } | null;
  /** mkdir (not recursive, mode 0755); false when it could not be made (it exists already, or no access). */
  readonly makeDir: (p: string) => boolean;
  /** rmdir; false when it is not an empty folder. */
  readonly removeDir: (p: string) => boolean;
  /** Real paths of the Unix sockets bound on the host now (platform/linux/procfs.ts). */
  readonly sockets: () => readonly string[];
  /** Whether `who` (null: this process) may search every folder down to `p`'s own. */
  readonly canSearch: (p: string, who: Who | null) => boolean;
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
  owner(p) {
    try {
      const st = lstatSync(p);
      return { uid: st.uid, gid: st.gid };
    } catch {
      return null;
    }
  },
  makeDir(p) {
    try {
      mkdirSync(p, { mode: 0o755 });
      return true;
    } catch {
      return false;
    }
  },
  removeDir(p) {
    try {
      rmdirSync(p);
      return true;
    } catch {
      return false;
    }
  },
  sockets: () => hostPlatform().boundSockets(),
  canSearch,
};

/**
 * Hidden whole: where host sockets usually are (/run, /var/run, /var/tmp: /tmp is the sandbox's
 * own tmpfs, /dev its own too) and every home folder.
 */
const HIDDEN = ["/run", "/var/run", "/var/tmp", "/home", "/root"];

/**
 * What comes before the bwrap program (running it as another user), bwrap's namespace flags, and
 * the system's mounts: everything before the workspace's own. Order matters: later mounts cover
 * earlier ones, so a workspace under /tmp, /home or /root is bound again over the empty folder that hid it.
 */
export interface SystemView {
  readonly before: readonly string[];
  readonly flags: readonly string[];
  readonly mounts: readonly Mount[];
  /** The masks among them (root's files closed to others), applied again over a working folder shown read-only. */
  readonly masks: readonly Mount[];
  /** The uid and gid the child runs as when toolgate (root) runs it as the workspace's owner. */
  readonly runAs: { readonly uid: number; readonly gid: number } | null;
  /**
   * Folders the view replaces with empty ones (/tmp, the hidden ones, masked folders): nothing of the host's shows
   * under them.
   */
  readonly covered: readonly string[];
  /** Who the child is, for what it can reach: null for this process's own user. */
  readonly who: Who | null;
}

export function systemMounts(o: {
  readonly workspace: string;
  readonly shareNet: boolean;
  readonly host: Host;
}): SystemView {
  // The run's wrapper and the boot probe share one view of the system (the masks are read once).
  const key = `${o.workspace}\0${o.shareNet}`;
  const known = o.host === realHost ? systems.get(key) : undefined;
  if (known) return known;
  const built = buildSystemMounts(o);
  if (o.host === realHost) systems.set(key, built);
  return built;
}

const systems = new Map<string, SystemView>();

function buildSystemMounts(o: {
  readonly workspace: string;
  readonly shareNet: boolean;
  readonly host: Host;
}): SystemView {
  const { host, workspace } = o;
  // Root with a workspace another user owns (a CI container over a mounted checkout): without
  // capabilities root could not write it, so the child runs as that owner, an ordinary user,
  // whose view needs no masks (util-linux setpriv drops to it before bwrap starts).
  const owner = host.asRoot ? host.owner(workspace) : null;
  const runAs = owner && owner.uid !== 0 ? owner : null;
  const asRoot = host.asRoot && runAs === null;
  const hidden = HIDDEN.filter((p) => host.kind(p) === "dir"); // a /var/run link to /run is covered by /run
  // With the network shared, the resolver file may live under /run (systemd-resolved): keep that one file.
  const resolv = o.shareNet ? host.realpath("/etc/resolv.conf") : "";
  const keepResolv =
    resolv !== "/etc/resolv.conf" && hidden.some((h) => inside(h, resolv)) && host.kind(resolv) === "file";
  const masks = asRoot ? host.masks(workspace).filter((m) => !inside(workspace, m.path)) : [];
  const before = runAs ? ["setpriv", `--reuid=${runAs.uid}`, `--regid=${runAs.gid}`, "--clear-groups", "--"] : [];
  const covered = ["/tmp", ...hidden, ...masks.filter((m) => m.dir).map((m) => m.path)];
  const who = runAs
    ? { ...runAs, groups: [] }
    : asRoot
      ? { uid: 0, gid: 0, groups: process.getgroups?.() ?? [] }
      : null;
  const flags = [
    "--die-with-parent", // the sandbox never outlives the launcher's child
    "--new-session", // no TIOCSTI into a terminal the sandbox could reach
    "--unshare-all", // user (unless root: see below), IPC, PID, network, UTS and cgroup namespaces
    // As root bwrap skips the user namespace; with one, the mounts it inherits are locked.
    ...(asRoot ? ["--unshare-user"] : []),
    ...(o.shareNet ? ["--share-net"] : []),
    "--cap-drop",
    "ALL", // also as root: no mount, no unmount, no reading past permissions
  ];
  const maskMounts = masks.map((m) => (m.dir ? tmpfs(m.path, true) : nullFile(m.path)));
  const mounts: Mount[] = [
    roBind("/"),
    { kind: "dev", target: "/dev" },
    { kind: "proc", target: "/proc" },
    tmpfs("/tmp", false),
    ...hidden.map((p) => tmpfs(p, false)),
    ...(keepResolv ? [roBind(resolv)] : []),
    ...maskMounts,
  ];
  return { before, flags, mounts, masks: maskMounts, runAs, covered, who };
}

/**
 * Every host socket the child would see, covered with /dev/null (after all other mounts, so the
 * workspace's own binds do not uncover one): connect(2) then finds no socket. One under a covered
 * folder is out of sight already; one the child cannot reach (a folder it may not search) needs no
 * mask, and bwrap, as that user, could not mount over it. Read at every wrap: sockets come and go.
 */
export function socketMasks(
  system: SystemView,
  shownAgain: readonly string[],
  host: Host,
  seen?: Set<string>,
): Mount[] {
  const shown = (p: string) => shownAgain.some((s) => inside(s, p)) || !system.covered.some((c) => inside(c, p));
  const masked = host.sockets().filter((p) => shown(p) && host.canSearch(p, system.who));
  for (const p of masked) seen?.add(p);
  return masked.map(nullFile);
}

/**
 * Whether `uid`/`gid` can reach `p` (search every folder from `root` down to it). Running as the
 * workspace's owner, a bind whose source that owner cannot reach (toolgate's own 0700 state
 * folder) is left out: bwrap could not open it, and the child cannot reach it either.
 */
export function reachable(p: string, root: string, who: { readonly uid: number; readonly gid: number }): boolean {
  for (let dir = dirname(p); inside(root, dir); dir = dirname(dir)) {
    try {
      const st = lstatSync(dir);
      const bit = st.uid === who.uid ? 0o100 : st.gid === who.gid ? 0o010 : 0o001;
      if ((st.mode & bit) === 0) return false;
    } catch {
      return false;
    }
    if (dir === root) break;
  }
  return true;
}

/**
 * The user's own toolgate folders (records, tokens, a session's socket) hidden by an
 * empty read-only tmpfs wherever the sandbox would see them: inside the workspace (workspace =
 * $HOME), or anywhere the system mounts leave in view (an XDG_RUNTIME_DIR under /srv). Those in
 * a folder the view covers (/tmp, /run, /var/tmp, a home; as root a closed one) are gone already;
 * a folder that holds the workspace or the working folder is left (hiding it would hide them); one
 * that does not exist is not made; one the child cannot reach (root over another's checkout) is
 * left too: bwrap, as that user, could not mount over it.
 */
export function hiddenFolders(
  folders: readonly string[],
  o: { readonly workspace: string; readonly cwd: string; readonly host: Host; readonly system: SystemView },
): string[] {
  const { covered, who } = o.system;
  return [...new Set(folders.map((p) => o.host.realpath(p)))].filter(
    (p) =>
      o.host.kind(p) === "dir" &&
      !inside(p, o.workspace) &&
      !inside(p, o.cwd) &&
      (inside(o.workspace, p) || inside(o.cwd, p) || !covered.some((c) => inside(c, p))) &&
      o.host.canSearch(p, who),
  );
}

/** Placeholders this process made and its running sandboxes hold, by path: the last run out removes one. */
const holders = new Map<string, number>();

/**
 * Control paths read-only inside the sandbox. One that exists is bound over itself; one that does
 * not is held by an empty read-only mount at its topmost missing folder, so it can be neither
 * created nor replaced. The mount point must exist: toolgate makes it (an empty folder in the
 * real workspace: a name cannot be kept free any other way; bwrap could not make it as root in a
 * workspace another user owns) and removes it when the last run holding it ends.
 */
export function controlMounts(
  protect: readonly string[],
  workspace: string,
  host: Host,
): { mounts: Mount[]; placeholders: string[] } {
  const mounts: Mount[] = [];
  const placeholders: string[] = [];
  for (const p of protect) {
    if (host.kind(p) !== null) {
      mounts.push(roBind(p, true));
      continue;
    }
    let top = p;
    while (dirname(top) !== workspace && host.kind(dirname(top)) === null) top = dirname(top);
    if (placeholders.includes(top) || mounts.some((m) => m.target === top)) continue;
    const held = holders.get(top);
    if (held !== undefined) holders.set(top, held + 1);
    else if (host.makeDir(top)) holders.set(top, 1);
    else {
      // Made meanwhile by someone else: then it exists, and is bound over itself.
      mounts.push(roBind(top, true));
      continue;
    }
    placeholders.push(top);
    mounts.push(tmpfs(top, true));
  }
  return { mounts, placeholders };
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
    host.removeDir(p); // an empty folder only: if something was put in it, it is left as it is
  }
}
