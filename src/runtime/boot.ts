// Boot: config → effective values → trust → grants → sandbox → the providers' tools (providers/,
// one per tool source) → catalog. Any failure here is exit 5 and writes nothing but what the
// caller's beforeStart does (`call` checks its state there). The Runtime (runtime.ts) boots once.
import { note } from "../result/human.ts";
import { heldRoot, resolveReal } from "../fs/real-path.ts";
import { isAbsolute, join, resolve } from "node:path";
import { checkLock, LOCK_NAME, readLock } from "../catalog/lock.ts";
import { buildCatalog, type Catalog, type ToolSource } from "../catalog/catalog.ts";
import { checkOverrides } from "../approval/approval.ts";
import { CONFIG_NAME, configFolder, locateConfig, readConfig, type ConfigFile } from "../config/file.ts";
import { resolveConfig, type Effective } from "../config/resolve.ts";
import { checkLayout, checkStateFolder } from "../config/layout.ts";
import { allowedByEach, grantsFromFlags, mergeGrants } from "../permission/flags.ts";
import { PERM_KINDS, type PermissionGrants } from "../permission/types.ts";
import { BASE_ENV } from "../launcher/env.ts";
import { bootError, type Refusal } from "../result/result.ts";
import { sandboxFor, type BootSandbox, type SandboxInput } from "../launcher/sandbox.ts";
import { hostPlatform, sandboxUnavailable } from "../platform/host.ts";
import type { RailEndpoint, RailGroup } from "../tools/rails/rails.ts";
import { Permissions } from "../permission/check.ts";
import { askerPrompter, noPrompter, ttyPrompter, type AsyncPrompter, type Prompter } from "../permission/prompt.ts";
import type { RemoteSources } from "../servers/sources.ts";
import { trustGate, type TrustVerdict } from "../trust/gate.ts";
import { userFolders, userStateDir } from "../trust/paths.ts";
import { shadowGate } from "../trust/shadow.ts";
import { exactNetGrants, type NetSetup } from "../http/client.ts";
import { authoredLoader } from "./authored.ts";
import type { BootInput } from "./boot-input.ts";
import { provide, type BootContext } from "./providers/index.ts";

export type { BootInput } from "./boot-input.ts";

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
  /** toolgate's own control files and folders: the config, the lock, the authored-tools folder. */
  readonly controlFiles: readonly string[];
  /** Whether anyone can be asked (a terminal, and prompting not turned off). */
  readonly canPrompt: boolean;
  /** The permission stage for this process (grants, deny, the prompter). */
  readonly permissions: Permissions<Prompter | AsyncPrompter>;
  /** Las and MCP servers, when configured: their status, live connections and shutdown. */
  readonly remote: RemoteSources | undefined;
  /** The sandbox mode and its wrapper (not probed yet: a command probes when it will use it). */
  readonly sandbox: BootSandbox;
  /** Whether the config is the user's own (flag, trusted digest); an untrusted one only narrows. */
  readonly trust: TrustVerdict;
  /** The user's state folder (trust records, remembered approvals), outside every checkout; null without HOME. */
  readonly userState: string | null;
  /** What the HTTP adapter needs for a tool's requests: exact grants, --resolve pins, the grants for redirects. */
  readonly net: NetSetup;
  /** The rails' endpoints and credentials by group (only those with both set). */
  readonly rails: Partial<Record<RailGroup, RailEndpoint>>;
  /** Most's endpoint and token file, when configured. */
  readonly most: { readonly url: string; readonly tokenFile: string } | undefined;
}

export async function loadEffective(input: BootInput): Promise<{ config: Effective; file: ConfigFile | null }> {
  const found = locateConfig(
    input.configFlag,
    input.env.TOOLGATE_CONFIG,
    input.cwd,
    input.workspaceFlag === undefined ? input.cwd : resolve(input.cwd, input.workspaceFlag),
  );
  const file = found ? await readConfig(found.path, found.via) : null;
  const flags: Record<string, readonly [unknown, string]> = {};
  for (const [key, value] of [
    ["workspace", input.workspaceFlag],
    ["state", input.stateFlag],
    ["scratch", input.scratchFlag],
  ] as const)
    if (value !== undefined) flags[key] = [resolve(input.cwd, value), `--${key}`];
  return { config: resolveConfig({ cwd: input.cwd, file, env: input.env, flags }), file };
}

/** Config grants with relative paths made absolute against the workspace. */
function configGrants(config: Effective): PermissionGrants {
  const section = (config.values.permissions ?? {}) as {
    allow?: Record<string, unknown>;
    deny?: Record<string, unknown>;
  };
  const ws = config.values.workspace as string;
  const side = (s: Record<string, unknown> | undefined) => {
    const out: PermissionGrants["allow"] = {};
    for (const kind of PERM_KINDS) {
      const v = s?.[kind];
      if (v === true) out[kind] = true;
      else if (Array.isArray(v))
        out[kind] =
          kind === "read" || kind === "write" ? v.map((p: string) => (isAbsolute(p) ? p : resolve(ws, p))) : [...v];
    }
    return out;
  };
  return { allow: side(section.allow), deny: side(section.deny) };
}

export async function boot(input: BootInput): Promise<Booted> {
  const { config, file } = await loadEffective(input);
  input.gate?.(config, file);
  // Trusted or not: a layout that would make the journal writable in the sandbox is refused.
  checkLayout(config);
  // Authored tools' manifests are read only when asked: by TOOLGATE_TRUST's check, or below.
  const authored = await authoredLoader(config);
  // Before anything from the config is used: what an untrusted config would widen fails the boot.
  const trust = trustGate(
    {
      file,
      values: config.values,
      workspaceFlag: input.workspaceFlag !== undefined,
      scratchFlag: input.scratchFlag !== undefined,
    },
    {
      env: input.env,
      cwd: input.cwd,
      workspaceFlag: input.workspaceFlag,
      workspace: config.values.workspace as string,
      ...(authored ? { authoredDigests: authored.digests } : {}),
    },
  );
  // A nearer config found in a subfolder replaces the root's whole: untrusted, it fails the boot.
  const shadowNote = shadowGate(file, () => trust.trustedBy !== null);
  if (shadowNote !== null) note(shadowNote);
  // a sandbox it cannot give fails the boot, before anything is opened: never a quieter run
  const platform = input.platform ?? hostPlatform();
  const unavailable = sandboxUnavailable(config.values.sandbox, platform);
  if (unavailable !== null) throw bootError(unavailable.message, unavailable.hint);
  const userState = userStateDir(input.env);
  // Only then the caller's first effect (call opens the state folder): never in a folder an untrusted config chose.
  checkStateFolder(config); // toolgate's own, or exit 5 before anything reads it (a link, a clone, another user's)
  input.beforeStart?.(config);
  const fromConfig = configGrants(config);
  const [fromFlags, from] = [
    grantsFromFlags(input.permissionFlags, input.cwd),
    resolveReal(input.cwd, "/") ?? undefined,
  ]; // relative to the caller's folder
  const grants = mergeGrants(fromConfig, fromFlags);
  const workspace = config.values.workspace as string;
  // The workspace's real path, resolved once and held: a file tool refuses it moved or swapped for a link later.
  heldRoot(workspace);
  // Prompts need a terminal (the caller knows) and prompting left on (the config may turn it off).
  const canPrompt = input.interactive === true && config.values.permissions?.prompt !== false;
  // Bare program names in run grants resolve on the children's fixed PATH, where they will run.
  // A run grant by name (--allow-run=uvx) is looked up on the fixed PATH, then on the caller's
  // absolute folders, where a server's command may be (servers/command.ts): a name the fixed PATH
  // has resolves as before, so the grant never comes to name another program than it did.
  const grantPath = [BASE_ENV.PATH!, ...(input.env.PATH ?? "").split(":").filter((d) => d.startsWith("/"))].join(":");
  const prompter: Prompter | AsyncPrompter = !canPrompt
    ? (input.answers ?? noPrompter)
    : input.ask
      ? askerPrompter(input.ask)
      : ttyPrompter();
  const permissions = new Permissions<Prompter | AsyncPrompter>(grants, workspace, prompter, {
    pathEnv: grantPath,
    from,
  });
  const pins = input.pins ?? new Map<string, string[]>();
  const flagNet = allowedByEach(input.permissionFlags, "net"); // each as given: a bare --allow-net drops no exact grant
  const net: NetSetup = { exact: exactNetGrants(fromConfig.allow.net, ...flagNet), pins, grants, cwd: workspace };
  const lockPath = join(configFolder(file, workspace), LOCK_NAME);
  // The user's state folder too: when it lies in the workspace (workspace = $HOME), no tool writes it.
  const controlFiles = [
    ...(file ? [file.path] : []),
    lockPath,
    config.values.authored.dir as string,
    ...(userState ? [userState] : []),
  ];
  const sandboxInput: SandboxInput = {
    platform,
    mode: config.values.sandbox,
    workspace,
    stateDir: config.values.state as string,
    scratch: config.values.scratch as string,
    network: false, // a net grant is for toolgate's own requests, never the sandbox's network
    // Read-only inside the sandbox: what decides what runs next (git hooks and config too; the root's config and lock
    // names also when the config is elsewhere: a plain run there would use them); the user's own folders hidden.
    protect: [join(workspace, ".git"), join(workspace, CONFIG_NAME), join(workspace, LOCK_NAME), ...controlFiles],
    hide: userFolders(input.env),
  };
  const sandbox = sandboxFor(sandboxInput);
  // Read before any server starts: a sandboxed server holds a missing lock's path with a placeholder.
  let lock: { read: ReturnType<typeof readLock> } | undefined;
  const readOnce = () => {
    try {
      return (lock ??= { read: input.ignoreLock ? null : readLock(lockPath) }).read;
    } catch (e) {
      throw bootError((e as Error).message);
    }
  };
  const ctx: BootContext = {
    input,
    config,
    file,
    workspace,
    trust,
    userState,
    fromConfig,
    fromFlags,
    flagNet,
    pins,
    prompter,
    grantPath,
    from,
    sandbox,
    sandboxInput,
    authored,
    lock: readOnce,
  };
  // Every tool source, in the providers' order (providers/index.ts).
  const { sources, opened } = await provide(ctx);
  const { rails, most, remote } = opened;
  try {
    return {
      ...finish(sources, config, file, readOnce()),
      lockPath,
      config,
      file,
      grants,
      workspace,
      stateDir: config.values.state as string,
      canPrompt,
      permissions,
      remote,
      controlFiles,
      sandbox,
      trust,
      userState,
      net,
      rails,
      most,
    };
  } catch (e) {
    // A boot that fails after servers were started leaves none of them behind.
    await remote?.shutdown();
    throw e;
  }
}

/** The catalog's checks after every source is in: collisions, approval overrides, the lock. */
function finish(
  sources: ToolSource[],
  config: Effective,
  file: ConfigFile | null,
  lock: ReturnType<typeof readLock>,
): Pick<Booted, "catalog" | "refused"> {
  const built = buildCatalog(sources);
  if (!built.ok) throw bootError(built.refusal.message);
  const overrides = (config.values.approval ?? {}) as Record<string, "required" | "never">;
  const loosened = checkOverrides(overrides, built.value.entries);
  if (loosened) {
    const line = file?.lineOf(["approval", loosened.tool]);
    const where = file ? `${file.path}${line ? `:${line}` : ""}` : "config";
    throw bootError(`${where}: ${loosened.message}`, `remove the override, or set it to "required"`);
  }
  let refused: ReadonlyMap<string, Refusal> = new Map();
  try {
    if (lock) refused = checkLock(lock, built.value.descriptors);
  } catch (e) {
    throw bootError((e as Error).message);
  }
  return { catalog: built.value, refused };
}
