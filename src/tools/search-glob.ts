// file_search's glob filter: exactly file_find's pattern rules (git's glob pathspecs, relative
// to the searched folder). A copy of file-find.ts's private `matcher`, until that is exported.
import { refuse, type Outcome } from "../result/result.ts";

const GLOB_META = /[*?[\]{}\\]/;

/** The predicate for a pattern, relative to the searched folder; a pattern leaving it is refused. */
export function globMatcher(pattern: string): Outcome<(p: string) => boolean> {
  let p = pattern;
  while (p.startsWith("./")) p = p.slice(2);
  if (p.startsWith("/") || p.split("/").includes("..")) {
    return refuse("find.invalid", `glob "${pattern}" leaves the searched folder; globs are relative to path (give path to search another folder)`);
  }
  if (p === "" || p === ".") p = "**";
  if (!GLOB_META.test(p)) {
    // git's pathspec rule: a literal names a file, or a folder and everything under it.
    const literal = p.replace(/\/+$/, "");
    return { ok: true, value: (f) => f === literal || f.startsWith(`${literal}/`) };
  }
  const glob = new Bun.Glob(p);
  return { ok: true, value: (f) => glob.match(f) };
}
