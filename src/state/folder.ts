// The state folder (toolgate's own, never an input: docs/security.md): made 0700 and marked by
// toolgate, with a `.gitignore` holding `*` when toolgate is the one that made it (as pytest and
// ruff do), so a workspace's `.toolgate/` never dirties git. The rules live in fs/state-folder.ts.
import { ensureStateFolder } from "../fs/state-folder.ts";

/** Makes `dir` (and its parents) when missing, or checks it is toolgate's own (throws StateFolderRefused). */
export function makeStateFolder(dir: string): void {
  ensureStateFolder(dir);
}
