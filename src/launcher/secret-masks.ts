// What the sandbox hides from a child that is root on the host (docs/security.md): in a user
// namespace mapped to host uid 0 the child still OWNS root's 0600/0640 files, so dropping every
// capability does not stop it reading /etc/shadow. Every file an ordinary user could not read, and
// every folder an ordinary user could not enter, under the system's configuration and data roots
// is masked instead. The walk (~70 ms) is cached; a cache entry is reused only while no folder it
// walked changed (its ctime: entries added, removed, renamed, or the folder's own mode), ~5 ms.
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";

export interface Mask {
  readonly path: string;
  readonly dir: boolean;
}

/**
 * Walked in full: where secrets of the system and its services live. /usr and the library folders
 * hold package content and are not walked; /home, /root, /run and /tmp are hidden whole; other
 * top-level entries are masked only when they themselves are closed to others (lost+found).
 */
export const SECRET_ROOTS = ["/etc", "/var", "/opt", "/srv", "/boot", "/mnt", "/media", "/snap"];
/** Never walked: replaced or hidden by the sandbox's own mounts, or the kernel's. */
const REPLACED = new Set(["/proc", "/sys", "/dev", "/tmp", "/run", "/home", "/root", "/var/run", "/var/tmp"]);

/** Where root's caches live (one per workspace): /run is root's, and the sandbox hides it from every child. */
export const MASK_CACHE_DIR = "/run/toolgate";

interface Walk {
  readonly masks: Mask[];
  /** Every folder walked, with its ctime (ms): what the cache is checked against. */
  readonly dirs: [string, number][];
}

/** Closed to others: a file without o+r, a folder without o+r and o+x. */
const closed = (mode: number, dir: boolean) => (dir ? (mode & 0o005) !== 0o005 : (mode & 0o004) === 0);

/** `skip`: a folder not walked (the workspace: visible by design, and possibly large). */
export function walkSecrets(roots: readonly string[] = SECRET_ROOTS, skip?: string): Walk {
  const out: Walk = { masks: [], dirs: [] };
  const walk = (dir: string, ctime: number) => {
    out.dirs.push([dir, ctime]);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = dir === "/" ? `/${name}` : `${dir}/${name}`;
      if (REPLACED.has(p) || p === skip) continue;
      let st: Stats;
      try {
        st = lstatSync(p);
      } catch {
        continue; // gone since the listing
      }
      if (st.isSymbolicLink()) continue; // its target is walked (or not) where it lives
      const isDir = st.isDirectory();
      if (closed(st.mode, isDir)) out.masks.push({ path: p, dir: isDir });
      else if (isDir && dir !== "/") walk(p, st.ctimeMs);
    }
  };
  // The top level: only entries closed to others (the roots below are walked whole).
  walk("/", ctimeOf("/") ?? 0);
  for (const root of roots) {
    const c = ctimeOf(root);
    const skipped = skip !== undefined && (root === skip || root.startsWith(`${skip}/`));
    if (c !== null && !skipped && !out.masks.some((m) => m.path === root)) walk(root, c);
  }
  return out;
}

function ctimeOf(p: string): number | null {
  try {
    return lstatSync(p).ctimeMs;
  } catch {
    return null;
  }
}

/**
 * The masks for a root child: from the cache while every walked folder is unchanged, else walked
 * again and cached (a cache that cannot be written costs only the walk on every call).
 */
export function secretMasks(
  workspace: string,
  cacheDir: string = MASK_CACHE_DIR,
  roots: readonly string[] = SECRET_ROOTS,
): readonly Mask[] {
  // The workspace is left out of the walk only when a root holds it: else one cache serves all.
  const skip = roots.some((r) => workspace === r || workspace.startsWith(`${r}/`)) ? workspace : undefined;
  const key = JSON.stringify({ v: 1, roots, skip: skip ?? null });
  const cachePath = join(cacheDir, `secret-masks.${Bun.hash(key).toString(16)}.json`);
  const cached = readCache(cachePath, key);
  if (cached) return cached;
  const walked = walkSecrets(roots, skip);
  writeCache(cachePath, key, walked);
  return walked.masks;
}

/** Cache files kept (one per workspace that lies under a walked root, plus the shared one). */
const MAX_CACHES = 16;

function readCache(path: string, key: string): Mask[] | null {
  let data: { key?: unknown; masks?: Mask[]; dirs?: [string, number][] };
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
  if (data.key !== key || !Array.isArray(data.masks) || !Array.isArray(data.dirs)) return null;
  for (const [dir, ctime] of data.dirs) if (ctimeOf(dir) !== ctime) return null;
  return data.masks;
}

function writeCache(path: string, key: string, walked: Walk): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ key, ...walked }), { mode: 0o600 });
    renameSync(tmp, path);
    pruneCaches(dirname(path));
  } catch {
    // Not cached: the next call walks again.
  }
}

/** The oldest cache files past MAX_CACHES go. */
function pruneCaches(dir: string): void {
  const files = readdirSync(dir)
    .filter((n) => /^secret-masks\.[0-9a-f]+\.json$/.test(n))
    .map((n) => ({ path: join(dir, n), mtime: statSync(join(dir, n)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const f of files.slice(MAX_CACHES)) unlinkSync(f.path);
}
