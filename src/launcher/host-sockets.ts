// Host Unix sockets out of the sandbox's reach wherever they lie (docs/security.md). Where they
// usually are (/run, /var/run, /tmp, /var/tmp, /dev, the homes) the sandbox sees empty folders of
// its own; an abstract socket needs the network namespace, which product never shares. A socket
// bound anywhere else (/var/lib/..., /srv, the workspace itself) is covered by sandbox-mounts.ts
// socketMasks: the kernel lists every socket bound with a path in this network namespace in
// /proc/net/unix (platform/linux/procfs.ts boundSockets). Here: who can reach a folder.
import { accessSync, constants, lstatSync } from "node:fs";
import { dirname } from "node:path";

/**
 * The child's identity when it is not this process's own user (root without capabilities, or the workspace's owner).
 */
export interface Who {
  readonly uid: number;
  readonly gid: number;
  readonly groups: readonly number[];
}

/**
 * Whether `who` may search every folder from / down to the one holding `p`. For this process's
 * own user the kernel answers (access(2), which knows groups and ACLs); for another identity the
 * mode bits do: root without capabilities is an ordinary user whose uid is 0.
 */
export function canSearch(p: string, who: Who | null): boolean {
  const dir = dirname(p);
  if (who === null) {
    try {
      accessSync(dir, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  }
  const parts = dir.split("/").filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const d = `/${parts.slice(0, i).join("/")}`;
    try {
      const st = lstatSync(d);
      const bit = st.uid === who.uid ? 0o100 : st.gid === who.gid || who.groups.includes(st.gid) ? 0o010 : 0o001;
      if ((st.mode & bit) === 0) return false;
    } catch {
      return false;
    }
  }
  return true;
}
