// Boot: config → effective values → grants → catalog. Any failure here is exit 5 and
// writes nothing (the state database is opened only when a call is journaled).
import { dirname, isAbsolute, join, resolve } from "node:path";
import { checkLock, LOCK_NAME, readLock } from "../catalog/lock.ts";
import { buildCatalog, type Catalog } from "../catalog/catalog.ts";
import { builtinSources } from "../catalog/builtin.ts";
import { checkOverrides } from "../approval/approval.ts";
import { locateConfig, readConfig, type ConfigFile } from "../config/file.ts";
import { resolveConfig, type Effective } from "../config/resolve.ts";
import { grantsFromFlags, mergeGrants, type PermissionFlag } from "../permission/flags.ts";
import { PERM_KINDS, type PermissionGrants } from "../permission/types.ts";
import { bootError, type Refusal } from "../result/result.ts";
import { builtinTools } from "../tools/index.ts";

export interface BootInput {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly configFlag?: string | undefined;
  readonly workspaceFlag?: string | undefined;
  readonly permissionFlags: readonly PermissionFlag[];
  /** `tools --lock` renews the lock, so it does not read the old one (which may be broken). */
  readonly ignoreLock?: boolean;
}

export interface Booted {
  readonly config: Effective;
  readonly file: ConfigFile | null;
  readonly grants: PermissionGrants;
  readonly catalog: Catalog;
  readonly workspace: string;
  readonly stateDir: string;
  /** toolgate.lock: beside the config file, else in the workspace. */
  readonly lockPath: string;
  /** Tools the lock refuses (descriptor_changed / descriptor_unpinned), by name. */
  readonly refused: ReadonlyMap<string, Refusal>;
}

export async function loadEffective(input: BootInput): Promise<{ config: Effective; file: ConfigFile | null }> {
  const found = locateConfig(input.configFlag, input.env.TOOLGATE_CONFIG, input.cwd);
  const file = found ? await readConfig(found.path, found.via) : null;
  const flags: Record<string, readonly [unknown, string]> = {};
  if (input.workspaceFlag !== undefined) flags.workspace = [resolve(input.cwd, input.workspaceFlag), "--workspace"];
  return { config: resolveConfig({ cwd: input.cwd, file, env: input.env, flags }), file };
}

/** Config grants with relative paths made absolute against the workspace. */
function configGrants(config: Effective): PermissionGrants {
  const section = (config.values.permissions ?? {}) as { allow?: Record<string, unknown>; deny?: Record<string, unknown> };
  const ws = config.values.workspace as string;
  const side = (s: Record<string, unknown> | undefined) => {
    const out: PermissionGrants["allow"] = {};
    for (const kind of PERM_KINDS) {
      const v = s?.[kind];
      if (v === true) out[kind] = true;
      else if (Array.isArray(v)) out[kind] = kind === "read" || kind === "write" ? v.map((p: string) => (isAbsolute(p) ? p : resolve(ws, p))) : [...v];
    }
    return out;
  };
  return { allow: side(section.allow), deny: side(section.deny) };
}

export async function boot(input: BootInput): Promise<Booted> {
  const { config, file } = await loadEffective(input);
  const grants = mergeGrants(configGrants(config), grantsFromFlags(input.permissionFlags));
  const built = buildCatalog(builtinSources(builtinTools));
  if (!built.ok) throw bootError(built.refusal.message);
  const overrides = (config.values.approval ?? {}) as Record<string, "required" | "never">;
  const loosened = checkOverrides(overrides, built.value.entries);
  if (loosened) {
    const line = file?.lineOf(["approval", loosened.tool]);
    const where = file ? `${file.path}${line ? `:${line}` : ""}` : "config";
    throw bootError(`${where}: ${loosened.message}`, `remove the override, or set it to "required"`);
  }
  const workspace = config.values.workspace as string;
  const lockPath = join(file ? dirname(file.path) : workspace, LOCK_NAME);
  let refused: ReadonlyMap<string, Refusal> = new Map();
  try {
    const lock = input.ignoreLock ? null : readLock(lockPath);
    if (lock) refused = checkLock(lock, built.value.descriptors);
  } catch (e) {
    throw bootError((e as Error).message);
  }
  return { config, file, grants, catalog: built.value, workspace, stateDir: config.values.state as string, lockPath, refused };
}
