// The one glob rule of file_find and file_search: git's glob pathspecs, relative to the folder
// listed or searched (`*` stays in one folder, `**/` spans any, a literal names a file or a
// folder and everything under it). A pattern that leaves the folder is refused.
import { refuse, type Outcome } from "../../result/result.ts";

const GLOB_META = /[*?[\]{}\\]/;

/** The predicate for a pattern; `noun` and `folder` only word the refusal ("pattern"/"listed", "glob"/"searched"). */
export function globMatcher(pattern: string, noun = "pattern", folder = "listed"): Outcome<(p: string) => boolean> {
  let p = pattern;
  while (p.startsWith("./")) p = p.slice(2);
  if (p.startsWith("/") || p.split("/").includes("..")) {
    return refuse(
      "find.invalid",
      `${noun} "${pattern}" leaves the ${folder} folder; ${noun}s are relative to path (give path to use ` +
        `another folder)`,
    );
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
