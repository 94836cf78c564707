// Whether the config in use is the user's: `--config FILE` is; $TOOLGATE_CONFIG is
// unless it lies in the current repository or in the workspace it would be used with; a config
// found in the workspace is trusted only when TOOLGATE_TRUST names its content digest or
// `toolgate trust` recorded this content for this path as found, this real file and this
// workspace (a symlinked toolgate.json borrows no other project's trust).
import { realpathSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ConfigFile } from "../config/file.ts";
import { repositoryRoot } from "../config/file.ts";
import { resolveReal } from "../fs/real-path.ts";
import { sha256Hex } from "../result/sha256.ts";
import { stateInWorkspace, tellIgnored, userStateDir } from "./paths.ts";
import { readRecord } from "./store.ts";

export type TrustedBy = "flag" | "user-env" | "TOOLGATE_TRUST" | "record";

/** How a config is trusted, and which authored tools (name → manifest digest) the trust covers. */
export interface Trust {
  readonly by: TrustedBy;
  /**
   * "all": the user's own config (--config, a $TOOLGATE_CONFIG outside the checkout) covers whatever its tools
   * folder holds.
   */
  readonly tools: "all" | Readonly<Record<string, string>>;
}

export interface TrustInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly workspaceFlag?: string | undefined;
  /** The workspace the config would be used with (its `workspace` key or --workspace resolved). */
  readonly workspace: string;
  /**
   * The authored tools the config would load, name → manifest digest (null: none can be read);
   * asked only when TOOLGATE_TRUST is set and is not the config's own digest.
   */
  readonly authoredDigests?: () => Readonly<Record<string, string>> | null;
}

/**
 * What `toolgate trust --print` shows and TOOLGATE_TRUST takes: the config's sha256 when it loads
 * no authored tool; otherwise the sha256 of the lines `toolgate-trust-v1`, `config <its sha256>`
 * and `tool <name> <manifest digest>` per tool in name order, so the pin covers the tools too.
 */
export function trustDigest(configDigest: string, tools: Readonly<Record<string, string>>): string {
  const names = Object.keys(tools).sort();
  if (names.length === 0) return configDigest;
  const text = ["toolgate-trust-v1", `config ${configDigest}`, ...names.map((n) => `tool ${n} ${tools[n]}`), ""].join(
    "\n",
  );
  return sha256Hex(text);
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
  return trustOf(file, input)?.by ?? null;
}

/** How this config is trusted and which authored tools that covers, or null when it is not trusted. */
export function trustOf(file: ConfigFile, input: TrustInput): Trust | null {
  if (file.via === "flag") return { by: "flag", tools: "all" };
  const real = realPathOf(file.path);
  if (file.via === "env") {
    // The user's own file, unless it lies in the checkout being worked on: the current folder's
    // repository, or the workspace it would be used with (its own `workspace` key resolved, so
    // `"workspace": "/"` puts it inside), where a tool or the model could have written it.
    // Both the path as given and its real path count: a link in the checkout is the checkout's.
    const roots = [
      repositoryRoot(input.cwd) ?? input.cwd,
      input.workspace,
      ...(input.workspaceFlag ? [input.workspaceFlag] : []),
    ].map((r) => resolveReal(r, input.cwd) ?? r);
    const at = [real, resolve(input.cwd, file.path)];
    if (!roots.some((r) => at.some((p) => inside(r, p)))) return { by: "user-env", tools: "all" };
  }
  const pinned = input.env.TOOLGATE_TRUST?.trim().toLowerCase();
  // trust --print's digest with tools pins the config and those tools as they are.
  if (pinned && pinned !== file.digest && input.authoredDigests) {
    const tools = input.authoredDigests();
    if (tools !== null && Object.keys(tools).length > 0 && pinned === trustDigest(file.digest, tools))
      return { by: "TOOLGATE_TRUST", tools };
  }
  // The config's own digest pins the config alone (a record may still cover its tools).
  const pinnedConfig: Trust | null = pinned && pinned === file.digest ? { by: "TOOLGATE_TRUST", tools: {} } : null;
  const dir = userStateDir(input.env);
  if (dir === null) return pinnedConfig;
  // A state folder inside the checkout may hold records the repository shipped: none is read.
  if (stateInWorkspace(dir, ...checkoutFolders(file, input))) {
    if (pinnedConfig === null && readRecord(dir, file.path) !== null) tellIgnored(dir, "trust records");
    return pinnedConfig;
  }
  const r = readRecord(dir, file.path);
  if (r !== null && r.real === real && r.workspace === realPathOf(input.workspace) && r.digest === file.digest)
    return { by: "record", tools: r.tools ?? {} };
  return pinnedConfig;
}
