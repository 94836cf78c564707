// Real temporary folders for permission tests; removed by `await using`.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface TempTree extends AsyncDisposable {
  /** Real path of the folder (tmpdir may itself be a symlink). */
  root: string;
  path(rel: string): string;
  file(rel: string, text?: string, mode?: number): string;
  dir(rel: string): string;
  link(rel: string, target: string): string;
}

export function tempTree(): TempTree {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "toolgate-perm-")));
  const path = (rel: string) => join(root, rel);
  return {
    root,
    path,
    file(rel, text = "", mode = 0o644) {
      mkdirSync(dirname(path(rel)), { recursive: true });
      writeFileSync(path(rel), text, { mode });
      return path(rel);
    },
    dir(rel) {
      mkdirSync(path(rel), { recursive: true });
      return path(rel);
    },
    link(rel, target) {
      mkdirSync(dirname(path(rel)), { recursive: true });
      symlinkSync(target, path(rel));
      return path(rel);
    },
    async [Symbol.asyncDispose]() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
