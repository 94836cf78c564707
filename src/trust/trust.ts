// Whether the config in use is the user's (SPEC "Trust"): `--config FILE` is; $TOOLGATE_CONFIG is
// unless it lies in the current repository or in the workspace it would be used with; a config
// found in the workspace is trusted only when TOOLGATE_TRUST names its content digest or
// `toolgate trust` recorded this content for this path as found, this real file and this
// workspace (a symlinked toolgate.json borrows no other project's trust).
import { realpathSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ConfigFile } from "../config/file.ts";
import { repositoryRoot } from "../config/file.ts";
import { resolveReal } from "../fs/real-path.ts";
import { stateInWorkspace, tellIgnored, userStateDir } from "./paths.ts";
import { isRecorded, readRecord } from "./store.ts";

export type TrustedBy = "flag" | "user-env" | "TOOLGATE_TRUST" | "record";

export interface TrustInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly workspaceFlag?: string | undefined;
  /** The workspace the config would be used with (its `workspace` key or --workspace resolved). */
  readonly workspace: string;
}

const inside = (root: string, p: string) => p === root || p.startsWith(root === "/" ? "/" : `${root}/`);

export function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The folders the config's repository could have written: the config's own folder and the
 * workspace, unless the file's own `workspace` key chose it (that key is then itself a widening
 * that needs trust, and `"workspace": "/"` would otherwise contain every user's state folder).
 */
export function checkoutFolders(file: ConfigFile, input: Pick<TrustInput, "workspace" | "workspaceFlag">): string[] {
  const movedByFile = file.data.workspace !== undefined && input.workspaceFlag === undefined;
  return [dirname(file.path), ...(movedByFile ? [] : [input.workspace])];
}

/** How this config is trusted, or null when it is not. Reads at most one small record file. */
export function trustedBy(file: ConfigFile, input: TrustInput): TrustedBy | null {
  if (file.via === "flag") return "flag";
  const real = realPathOf(file.path);
  if (file.via === "env") {
    // The user's own file, unless it lies in the checkout being worked on: the current folder's
    // repository, or the workspace it would be used with (its own `workspace` key resolved, so
    // `"workspace": "/"` puts it inside), where a tool or the model could have written it.
    // Both the path as given and its real path count: a link in the checkout is the checkout's.
    const roots = [repositoryRoot(input.cwd) ?? input.cwd, input.workspace, ...(input.workspaceFlag ? [input.workspaceFlag] : [])].map((r) => resolveReal(r, input.cwd) ?? r);
    const at = [real, resolve(input.cwd, file.path)];
    if (!roots.some((r) => at.some((p) => inside(r, p)))) return "user-env";
  }
  const pinned = input.env.TOOLGATE_TRUST?.trim().toLowerCase();
  if (pinned && pinned === file.digest) return "TOOLGATE_TRUST";
  const dir = userStateDir(input.env);
  if (dir === null) return null;
  // A state folder inside the checkout may hold records the repository shipped: none is read.
  if (stateInWorkspace(dir, ...checkoutFolders(file, input))) {
    if (readRecord(dir, file.path) !== null) tellIgnored(dir, "trust records");
    return null;
  }
  if (isRecorded(dir, { path: file.path, real, workspace: realPathOf(input.workspace) }, file.digest)) return "record";
  return null;
}
