// The state folder is toolgate's own, never an input. toolgate makes it itself, as
// the user, mode 0700, and writes into it a mark of that very folder: its inode and birth time,
// which exist only once the folder does. A folder that arrived with its content (a clone, an
// archive, a copy, a folder another program made) cannot hold a mark that matches it, so it is not
// used; neither is a link, a folder of another user, one open to others, or one holding a link.
// An empty folder of the user's (nothing in it to act on) is adopted: marked and closed to others.
// Checked once per process; files in it are created O_CREAT|O_EXCL|O_NOFOLLOW under random names.
import type { BigIntStats } from "node:fs";
import {
  chmodSync,
  closeSync,
  constants,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";

/** The mark's file name inside the state folder. */
export const MARK_NAME = "made-by-toolgate";
const GITIGNORE = "# made by toolgate: its state is never committed\n*\n";
/** New files: created here or not at all, never through a link, 0600 whatever the umask allows. */
const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** A mark being written (written whole under this name, then linked to MARK_NAME). */
const PENDING = /^\.[0-9a-f]{32}\.tmp$/;

/** A state folder toolgate will not use: what is wrong (naming it) and how to clear it. Exit 5 at the CLI. */
export class StateFolderRefused extends Error {
  readonly code = "ESTATEFOLDER";
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** Folders this process checked (or made) and found its own. */
/**
 * Folders this process checked as its own, with the inode it checked: a folder removed or replaced since is checked
 * (or made) again.
 */
const verified = new Map<string, bigint>();
const stillVerified = (dir: string): boolean => {
  const ino = verified.get(dir);
  if (ino === undefined) return false;
  if (lstatSync(dir, { bigint: true, throwIfNoEntry: false })?.ino === ino) return true;
  verified.delete(dir);
  return false;
};
const markVerified = (dir: string): void => void verified.set(dir, lstatSync(dir, { bigint: true }).ino);

const me = (): number => process.geteuid?.() ?? -1;

export function randomName(): string {
  let out = "";
  for (const b of crypto.getRandomValues(new Uint8Array(16))) out += b.toString(16).padStart(2, "0");
  return out;
}

/** What the mark says: facts of this folder that no content prepared before it existed can hold. */
const markOf = (st: BigIntStats) => `toolgate made this folder: inode ${st.ino}, born ${st.birthtimeNs}\n`;

type Inspection =
  | { readonly kind: "missing" | "ours" | "other" }
  | { readonly kind: "adoptable"; readonly loose: boolean }
  | { readonly kind: "refused"; readonly why: StateFolderRefused };

const shell = (p: string) => `'${p.replaceAll("'", `'\\''`)}'`;

function refused(dir: string, what: string, hint: string): Inspection {
  return {
    kind: "refused",
    why: new StateFolderRefused(
      `the state folder ${dir} ${what}: toolgate uses only a state folder it made itself`,
      hint,
    ),
  };
}

const removeHint = (dir: string) =>
  `if nothing in it is yours, remove it: rm -rf ${shell(dir)} (and git rm -r --cached on it if git tracks ` +
  `it); toolgate makes its own at the next call. Or set "state" to another folder`;

function inspect(dir: string): Inspection {
  let st: BigIntStats;
  try {
    st = lstatSync(dir, { bigint: true });
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return { kind: "missing" };
    return { kind: "other" }; // not reachable: the probe and the open say why
  }
  if (st.isSymbolicLink()) {
    let to = "";
    try {
      to = ` (to ${readlinkSync(dir)})`;
    } catch {
      // gone meanwhile
    }
    return refused(
      dir,
      `is a symbolic link${to}`,
      `remove the link (rm ${shell(dir)}); toolgate makes the folder at the next call`,
    );
  }
  if (!st.isDirectory()) return { kind: "other" }; // a file or device: the probe and the open say why
  if (Number(st.uid) !== me())
    return refused(dir, `belongs to another user (uid ${st.uid}; toolgate runs as uid ${me()})`, removeHint(dir));
  const entries = readdirSync(dir, { withFileTypes: true });
  const link = entries.find((e) => e.isSymbolicLink());
  if (link) return refused(dir, `holds a symbolic link, ${join(dir, link.name)}`, removeHint(dir));
  const mark = readMark(join(dir, MARK_NAME));
  const mode = Number(st.mode) & 0o777;
  if (mark === markOf(st)) {
    if ((mode & 0o077) !== 0)
      return refused(
        dir,
        `is open to other users (mode ${mode.toString(8)})`,
        `close it to others: chmod 700 ${shell(dir)}`,
      );
    return { kind: "ours" };
  }
  const empty = entries.every((e) => e.isFile() && (e.name === ".gitignore" || PENDING.test(e.name)));
  if (mark === null && empty && (mode & 0o022) === 0) return { kind: "adoptable", loose: (mode & 0o077) !== 0 };
  const held = entries.map((e) => e.name).filter((n) => n !== MARK_NAME);
  const holds = held.length ? `; it holds ${held.slice(0, 4).join(", ")}${held.length > 4 ? ", …" : ""}` : "";
  const why =
    mark === null
      ? "was not made by toolgate (it has no mark of toolgate's"
      : "was not made by toolgate here (its mark names another folder: it was copied, cloned or moved to " +
        "another file system";
  return refused(dir, `${why}${holds}), so its journal, database, artifacts and prompts are not used`, removeHint(dir));
}

function readMark(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    // A mark is one short line: a bigger file is not one (and is not read whole).
    const buf = Buffer.alloc(256);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString("utf8");
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Why `dir` cannot be the state folder, read only (a boot that fails writes nothing); null when it
 * is ours, missing, or an empty folder toolgate will adopt. `again`: looked at anew, though this
 * process checked it before (a folder a child could write meanwhile).
 */
export function stateFolderProblem(dir: string, again = false): StateFolderRefused | null {
  if (!again && stillVerified(dir)) return null;
  const r = inspect(dir);
  return r.kind === "refused" ? r.why : null;
}

/**
 * Makes the state folder (0700, marked, with a `.gitignore` holding `*`) or checks it is toolgate's
 * own; throws StateFolderRefused when it is not, and what mkdir threw when it cannot be made.
 * Safe under concurrent first calls: the mark's content is the folder's own, whoever writes it.
 */
export function ensureStateFolder(dir: string): void {
  if (stillVerified(dir)) return;
  for (let attempt = 0; attempt < 3; attempt++) {
    const r = inspect(dir);
    if (r.kind === "ours" || r.kind === "other") {
      if (r.kind === "ours") markVerified(dir);
      return;
    }
    if (r.kind === "refused") throw r.why;
    if (r.kind === "adoptable") {
      if (r.loose) chmodSync(dir, 0o700);
      writeMark(dir);
      continue;
    }
    mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (e) {
      if ((e as { code?: string }).code === "EEXIST") continue; // made by a concurrent call: checked again
      throw e;
    }
    writeMark(dir);
    try {
      // "wx": never over a file someone else put there first.
      writeFileSync(join(dir, ".gitignore"), GITIGNORE, { flag: "wx", mode: 0o644 });
    } catch {
      // A concurrent call wrote it first.
    }
  }
  const last = inspect(dir);
  if (last.kind === "refused") throw last.why;
  if (last.kind !== "ours")
    throw new StateFolderRefused(`the state folder ${dir} could not be made toolgate's own`, removeHint(dir));
  markVerified(dir);
}

/** The mark, written whole under a random name and linked into place: a reader never sees half of it. */
function writeMark(dir: string): void {
  const st = lstatSync(dir, { bigint: true });
  const pending = join(dir, `.${randomName()}.tmp`);
  writeNew(pending, markOf(st));
  try {
    linkSync(pending, join(dir, MARK_NAME));
  } catch (e) {
    if ((e as { code?: string }).code !== "EEXIST") throw e;
  } finally {
    unlinkSync(pending);
  }
}

function writeNew(path: string, data: string | Uint8Array): void {
  const fd = openSync(path, CREATE, 0o600);
  try {
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    for (let off = 0; off < bytes.byteLength; ) off += writeSync(fd, bytes, off, bytes.byteLength - off);
  } finally {
    closeSync(fd);
  }
}

/** A folder of the user's own (0700, not a link, this uid): made when missing, refused otherwise. */
export function ownFolder(path: string): string {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (e) {
    if ((e as { code?: string }).code !== "EEXIST") throw e;
  }
  const st = lstatSync(path);
  if (st.isSymbolicLink() || !st.isDirectory() || st.uid !== me() || (st.mode & 0o077) !== 0) {
    const what = st.isSymbolicLink()
      ? "is a symbolic link"
      : !st.isDirectory()
        ? "is not a folder"
        : st.uid !== me()
          ? `belongs to another user (uid ${st.uid})`
          : `is open to other users (mode ${(st.mode & 0o777).toString(8)})`;
    throw new StateFolderRefused(
      `${path} ${what}; toolgate writes only into folders it made`,
      `remove it (rm -rf ${shell(path)}); toolgate makes it again`,
    );
  }
  return path;
}

/**
 * A new 0600 file `prefix<random>suffix` in `name`, a folder of the checked state folder: never an
 * existing file, never through a link, never at a name anyone could have guessed. Returns its path.
 */
export function newStateFile(
  stateDir: string,
  name: string,
  prefix: string,
  suffix: string,
  data: string | Uint8Array,
): string {
  ensureStateFolder(stateDir);
  const path = join(ownFolder(join(stateDir, name)), `${prefix}${randomName()}${suffix}`);
  writeNew(path, data);
  return path;
}
