// Whether the config in use is the user's (SPEC "Trust"): `--config FILE` is; $TOOLGATE_CONFIG is
// unless it points into the checkout; a config found in the workspace is trusted only when
// TOOLGATE_TRUST names its content digest or `toolgate trust` recorded this content for this path
// as found, this real file and this workspace (a symlinked toolgate.json borrows no other project's trust).
import { realpathSync } from "node:fs";
import type { ConfigFile } from "../config/file.ts";
import { repositoryRoot } from "../config/file.ts";
import { resolveReal } from "../fs/real-path.ts";
import { userStateDir } from "./paths.ts";
import { isRecorded } from "./store.ts";

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

/** How this config is trusted, or null when it is not. Reads at most one small record file. */
export function trustedBy(file: ConfigFile, input: TrustInput): TrustedBy | null {
  if (file.via === "flag") return "flag";
  const real = realPathOf(file.path);
  const path = real;
  if (file.via === "env") {
    // The user's own file, unless it lies in the checkout being worked on.
    const roots = [repositoryRoot(input.cwd) ?? input.cwd, ...(input.workspaceFlag ? [input.workspaceFlag] : [])].map((r) => resolveReal(r, input.cwd) ?? r);
    if (!roots.some((r) => inside(r, path))) return "user-env";
  }
  const pinned = input.env.TOOLGATE_TRUST?.trim().toLowerCase();
  if (pinned && pinned === file.digest) return "TOOLGATE_TRUST";
  const dir = userStateDir(input.env);
  if (dir !== null && isRecorded(dir, { path: file.path, real, workspace: realPathOf(input.workspace) }, file.digest)) return "record";
  return null;
}
