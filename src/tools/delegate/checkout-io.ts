// apply_change's reads and writes in the checkout, the way file_write works (what is
// checked is what is opened): every folder is opened by descriptor from the top, one name at a
// time and never through a link (O_NOFOLLOW), made inside the verified folder above when missing,
// and a file is read, created, replaced or removed relative to its verified folder. The same
// descriptors serve the plan (what the checkout holds now) and the writes, so a folder swapped for
// a link after the plan is never written through.
import { closeSync, fstatSync, mkdirSync, readSync, unlinkSync, type BigIntStats } from "node:fs";
import { basename, dirname } from "node:path";
import { CHANGED, closeQuietly, inDir, O_DIR, O_FILE, openChecked, openError, openIn } from "../../fs/opened.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { atomicWrite } from "../files/atomic-write.ts";

/** A regular file's bytes and identity; null when absent; "other" for a link, folder or device (never merged). */
export type Current = { readonly bytes: Buffer; readonly stat: BigIntStats } | null | "other";

/** Why a folder could not be reached: a link or non-folder on the way, or another error. */
type Reach = { readonly ok: true; readonly fd: number | null } | { readonly ok: false; readonly code: string };

export class CheckoutFolders {
  readonly #top: string;
  /** Open folders by workspace-relative path ("" is the top); null: known missing. */
  readonly #open = new Map<string, number | null>();

  private constructor(top: string, fd: number) {
    this.#top = top;
    this.#open.set("", fd);
  }

  /** Opens the checkout's top (a real path) as a verified descriptor. */
  static open(top: string): Outcome<CheckoutFolders> {
    const fd = openChecked(top, O_DIR);
    if (!fd.ok)
      return refuse(
        "change.failed",
        `the checkout's top folder ${top} cannot be opened (${fd.code === CHANGED ? "it is a link now" : fd.code})`,
      );
    return ok(new CheckoutFolders(top, fd.fd));
  }

  /**
   * The folder `dir` (relative, "" for the top), reached one name at a time; with `create`, missing folders are made.
   */
  folder(dir: string, create: boolean): Reach {
    if (dir === "." || dir === "") return { ok: true, fd: this.#open.get("")! };
    const known = this.#open.get(dir);
    if (known !== undefined && (known !== null || !create)) return { ok: true, fd: known };
    const parent = this.folder(dirname(dir), create);
    if (!parent.ok || parent.fd === null) return parent;
    if (create) {
      try {
        mkdirSync(inDir(parent.fd, basename(dir)), { mode: 0o777 });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST")
          return { ok: false, code: (e as NodeJS.ErrnoException).code ?? "EIO" };
      }
    }
    try {
      const fd = openIn(parent.fd, basename(dir), O_DIR); // O_NOFOLLOW: a link here is never entered
      this.#open.set(dir, fd);
      return { ok: true, fd };
    } catch (e) {
      const code = openError(e, `${this.#top}/${dir}`);
      if (code === "ENOENT" && !create) {
        this.#open.set(dir, null);
        return { ok: true, fd: null };
      }
      return { ok: false, code };
    }
  }

  /**
   * What the checkout holds at `rel` now, read through its folder's descriptor; a refusal when a folder on the way
   * is a link.
   */
  read(rel: string): Outcome<Current> {
    const dir = this.folder(dirname(rel), false);
    if (!dir.ok)
      return dir.code === CHANGED || dir.code === "ENOTDIR"
        ? ok("other")
        : refuse("change.failed", `"${rel}" cannot be read in the checkout (${dir.code})`);
    if (dir.fd === null) return ok(null);
    let fd: number;
    try {
      fd = openIn(dir.fd, basename(rel), O_FILE);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return ok(null);
      if (code === "ELOOP" || code === "EISDIR" || code === "ENXIO") return ok("other");
      return refuse("change.failed", `"${rel}" cannot be read in the checkout (${code})`);
    }
    try {
      const stat = fstatSync(fd, { bigint: true });
      if (!stat.isFile()) return ok("other");
      const bytes = Buffer.allocUnsafe(Number(stat.size));
      let off = 0;
      for (let n = 1; off < bytes.length && n > 0; off += n) n = readSync(fd, bytes, off, bytes.length - off, off);
      return ok({ bytes: bytes.subarray(0, off), stat });
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Writes `bytes` at `rel` atomically through its verified folder (made when missing); `before`: what the plan read
   * there.
   */
  write(rel: string, bytes: Buffer, mode: number | null, before: Current): Outcome<unknown> {
    const dir = this.folder(dirname(rel), true);
    if (!dir.ok || dir.fd === null) return changed(rel, dir.ok ? "ENOENT" : dir.code);
    return atomicWrite(`${this.#top}/${rel}`, rel, bytes, {
      dirFd: dir.fd,
      // A new file is published with link(2): one made meanwhile is refused, not overwritten.
      publish: before === null ? "create" : "replace",
      ...(mode === null ? {} : { mode }),
      ...(before !== null && before !== "other" ? { unchangedSince: before.stat } : {}),
    });
  }

  /** Removes the file at `rel` through its verified folder (never a folder, never through a link). */
  remove(rel: string): Outcome<unknown> {
    const dir = this.folder(dirname(rel), false);
    if (!dir.ok) return changed(rel, dir.code);
    if (dir.fd === null) return ok(null);
    try {
      unlinkSync(inDir(dir.fd, basename(rel)));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") return refuse("change.failed", `"${rel}" could not be removed (${code})`);
    }
    return ok(null);
  }

  close(): void {
    for (const fd of this.#open.values()) if (fd !== null) closeQuietly(fd);
    this.#open.clear();
  }
}

const changed = (rel: string, code: string) =>
  code === CHANGED || code === "ENOTDIR"
    ? refuse(
        "path.changed",
        `"${rel}": a folder on its way is a link or not a folder now (swapped in after the plan); nothing is ` +
          `written through it`,
      )
    : refuse("change.failed", `"${rel}" cannot be written: its folder cannot be opened or made (${code})`);
