// Boot: config → effective values → grants → catalog. Any failure here is exit 5 and
// writes nothing but what the caller's beforeStart does (`call` opens its state there).
import type { Database } from "bun:sqlite";
import { note } from "../result/human.ts";
import { existsSync, readFileSync } from "node:fs";
import { findOnPath, heldRoot } from "../fs/real-path.ts";
import { isAbsolute, join, resolve } from "node:path";
import { checkLock, LOCK_NAME, readLock } from "../catalog/lock.ts";
import { buildCatalog, type Catalog, type ToolSource } from "../catalog/catalog.ts";
import { builtinSources } from "../catalog/builtin.ts";
import { checkOverrides } from "../approval/approval.ts";
import { CONFIG_NAME, configFolder, locateConfig, readConfig, type ConfigFile } from "../config/file.ts";
import { resolveConfig, type Effective } from "../config/resolve.ts";
import { checkLayout, checkStateFolder } from "../config/layout.ts";
import { allowedByEach, grantsFromFlags, mergeGrants, type PermissionFlag } from "../permission/flags.ts";
import { PERM_KINDS, type PermKind, type PermissionGrants } from "../permission/types.ts";
import { parseNet } from "../permission/net.ts";
import { BASE_ENV } from "../launcher/env.ts";
import { bootError, usageError, type Refusal } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import { sandboxFor, type BootSandbox, type SandboxInput } from "../launcher/sandbox.ts";
import { hostPlatform, sandboxUnavailable, type Facilities } from "../platform/host.ts";
import { selectedSurfaces } from "../mcp/las.ts";
import { builtinTools } from "../tools/index.ts";
import { railTools } from "../tools/rails/index.ts";
import { mostTools } from "../tools/most/index.ts";
import { delegationTools } from "../tools/delegate/index.ts";
import { templateProblem } from "../tools/delegate/template.ts";
import { sweepWorktrees } from "../tools/delegate/change.ts";
import { missingRails, RAIL_ROUTES, railEndpoints, type RailEndpoint, type RailGroup } from "../tools/rails/rails.ts";
import { Permissions } from "../permission/check.ts";
import { askerPrompter, noPrompter, ttyPrompter, type Asker, type AsyncPrompter, type Prompter } from "../permission/prompt.ts";
import { VERSION } from "../version.ts";
import { namedFileDigests } from "../catalog/named-files.ts";
import { remoteSpecs } from "../servers/specs.ts";
import { CACHE_NAME, RemoteSources } from "../servers/sources.ts";
import type { ConnectionPool } from "../servers/pool.ts";
import { trustGate, type TrustVerdict } from "../trust/gate.ts";
import { stateInWorkspace, userFolders, userStateDir } from "../trust/paths.ts";
import { shadowGate } from "../trust/shadow.ts";
import { serverDetail } from "../servers/prompt.ts";
import { serverJournal } from "../servers/journal.ts";
import { mayDiscover, withholdBadServers } from "../servers/boot.ts";
import { exactNetGrants, policyFetch, type NetSetup } from "../http/client.ts";
import { authoredLoader, authoredTools } from "./authored.ts";

export interface BootInput {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly configFlag?: string | undefined;
  readonly workspaceFlag?: string | undefined;
  readonly permissionFlags: readonly PermissionFlag[];
  /** `--allow-local-paths=SERVER`: the user switches the boundary's local-path rule off for these servers. */
  readonly allowLocalPaths?: readonly string[];
  /** `tools --lock` renews the lock, so it does not read the old one (which may be broken). */
  readonly ignoreLock?: boolean;
  /** Someone can be asked at a terminal (permissions of connects at boot, then of the call). */
  readonly interactive?: boolean;
  /**
   * Who answers where a prompt would be shown but nobody can be asked (default: no). A task's
   * supervisor answers yes exactly to what its foreground admitted (tasks/request.ts).
   */
  readonly answers?: Prompter;
  /** Where to ask instead of this process's /dev/tty: a session's client, at its own terminal. */
  readonly ask?: Asker;
  readonly refresh?: boolean; // list remote servers again instead of using the catalog cache (`tools --refresh`)
  readonly cachedOnly?: boolean; // start no server to list it: the catalog cache alone (`tools --names`, shell completion)
  /** Declare sampling to MCP servers: `serve` relays it to a client that supports it. */
  readonly relaySampling?: boolean;
  /** Runs once the configuration is known, before anything starts (`call` opens and checks its state here). */
  readonly beforeStart?: (config: Effective) => void;
  /** The state database the command holds open for its calls, once it does: server starts are journaled there too. */
  readonly stateDb?: () => Database | undefined;
  /**
   * The tool a `call` will run. On a catalog-cache miss only the server that can own it is
   * started to list it (none for a built-in); without it (`tools`) every server may be.
   */
  readonly call?: string;
  /** Runs first, once the config file and values are known (a session refuses a call of another workspace or config here). */
  readonly gate?: (config: Effective, file: ConfigFile | null) => void;
  /** A session's live children: shared across its calls instead of started and ended per call. */
  readonly pool?: ConnectionPool;
  /** `--resolve` pins, `host:port` → addresses (checked like any DNS answer). */
  readonly pins?: ReadonlyMap<string, readonly string[]>;
  /** --require-rails: a rail without its endpoint or credential fails the boot. */
  readonly requireRails?: boolean;
  /** `serve --child`: a task's child server (no delegation of its own). */
  readonly child?: boolean;
  /** `serve --state DIR` (a task's child server) and `--scratch DIR` (the user's: anywhere the layout allows): those folders, over the config's. */
  readonly stateFlag?: string | undefined;
  readonly scratchFlag?: string | undefined;
  /** What this platform has (default: this process's); tests name another. */
  readonly platform?: Facilities;
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
  const found = locateConfig(input.configFlag, input.env.TOOLGATE_CONFIG, input.cwd, input.workspaceFlag === undefined ? input.cwd : resolve(input.cwd, input.workspaceFlag));
  const file = found ? await readConfig(found.path, found.via) : null;
  const flags: Record<string, readonly [unknown, string]> = {};
  for (const [key, value] of [["workspace", input.workspaceFlag], ["state", input.stateFlag], ["scratch", input.scratchFlag]] as const) if (value !== undefined) flags[key] = [resolve(input.cwd, value), `--${key}`];
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
  input.gate?.(config, file);
  // Trusted or not: a layout that would make the journal writable in the sandbox is refused.
  checkLayout(config);
  // Authored tools' manifests are read only when asked: by TOOLGATE_TRUST's check, or below.
  const authored = await authoredLoader(config);
  // Before anything from the config is used: what an untrusted config would widen fails the boot.
  const trust = trustGate(
    { file, values: config.values, workspaceFlag: input.workspaceFlag !== undefined, scratchFlag: input.scratchFlag !== undefined },
    { env: input.env, cwd: input.cwd, workspaceFlag: input.workspaceFlag, workspace: config.values.workspace as string, ...(authored ? { authoredDigests: authored.digests } : {}) },
  );
  // A nearer config found in a subfolder replaces the root's whole: untrusted, it fails the boot.
  const shadowNote = shadowGate(file, () => trust.trustedBy !== null);
  if (shadowNote !== null) note(shadowNote);
  const platform = input.platform ?? hostPlatform(); // a sandbox it cannot give fails the boot, before anything is opened: never a quieter run
  const unavailable = sandboxUnavailable(config.values.sandbox, platform);
  if (unavailable !== null) throw bootError(unavailable.message, unavailable.hint);
  const userState = userStateDir(input.env);
  // Only then the caller's first effect (call opens the state folder): never in a folder an untrusted config chose.
  checkStateFolder(config); // toolgate's own, or exit 5 before anything reads it (a link, a clone, another user's)
  input.beforeStart?.(config);
  const fromConfig = configGrants(config);
  const fromFlags = grantsFromFlags(input.permissionFlags);
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
  const prompter: Prompter | AsyncPrompter = !canPrompt ? (input.answers ?? noPrompter) : input.ask ? askerPrompter(input.ask) : ttyPrompter();
  const permissions = new Permissions<Prompter | AsyncPrompter>(grants, workspace, prompter, { pathEnv: grantPath });
  const pins = input.pins ?? new Map<string, string[]>();
  const flagNet = allowedByEach(input.permissionFlags, "net"); // each as given: a bare --allow-net drops no exact grant
  const net: NetSetup = { exact: exactNetGrants(fromConfig.allow.net, ...flagNet), pins, grants, cwd: workspace };
  const lockPath = join(configFolder(file, workspace), LOCK_NAME);
  // The user's state folder too: when it lies in the workspace (workspace = $HOME), no tool writes it.
  const controlFiles = [...(file ? [file.path] : []), lockPath, config.values.authored.dir as string, ...(userState ? [userState] : [])];
  const sandboxInput: SandboxInput = {
    platform, mode: config.values.sandbox, workspace,
    stateDir: config.values.state as string,
    scratch: config.values.scratch as string,
    network: false, // a net grant is for toolgate's own requests, never the sandbox's network
    // Read-only inside the sandbox: what decides what runs next (git hooks and config too; the root's config and lock
    // names also when the config is elsewhere: a plain run there would use them); the user's own folders hidden.
    protect: [join(workspace, ".git"), join(workspace, CONFIG_NAME), join(workspace, LOCK_NAME), ...controlFiles], hide: userFolders(input.env),
  };
  const sandbox = sandboxFor(sandboxInput);
  // A rail is offered only with its endpoint and credential; required, a missing one fails the boot.
  const rails = railEndpoints(input.env);
  const railsSection = (config.values.rails ?? {}) as { require?: boolean; required?: boolean };
  if (input.requireRails || railsSection.require === true || railsSection.required === true) {
    const missing = missingRails(input.env);
    if (missing.length > 0) {
      const vars = [...new Set(missing.flatMap((m) => m.missing))];
      throw bootError(`rails are required (${input.requireRails ? "--require-rails" : "the config's rails.require"}) but ${missing.map((m) => m.rail).join(", ")} cannot be offered: ${vars.join(", ")} ${vars.length === 1 ? "is" : "are"} not set`, `set ${vars.join(" and ")} in the environment, or drop --require-rails`);
    }
  }
  // Most: offered when (and only when) its token file is configured; then its endpoint must be too.
  const mostSection = (config.values.most ?? {}) as { service_token_file?: string; url?: string };
  let most: { url: string; tokenFile: string } | undefined;
  if (mostSection.service_token_file) {
    if (!mostSection.url) throw bootError("most.service_token_file (MOST_SERVICE_TOKEN_FILE) is set but Most has no endpoint", "set MOST_SERVICE_URL (or most.url in your config) to the Most service's base URL");
    most = { url: mostSection.url, tokenFile: resolve(workspace, mostSection.service_token_file) };
  }
  // A child server offers no task (its profile excludes it) and never sweeps: its sandbox may hide the records.
  const delegated = input.child ? [] : delegation(config, file, input.env);
  const sources = builtinSources([...builtinTools, ...delegated, ...railTools.filter((t) => rails[RAIL_ROUTES[t.name]!.group] !== undefined), ...(most ? mostTools : [])]);
  // Read before any server starts: a sandboxed server holds a missing lock's path with a placeholder.
  let lock: ReturnType<typeof readLock>;
  try {
    lock = input.ignoreLock ? null : readLock(lockPath);
  } catch (e) {
    throw bootError((e as Error).message);
  }
  // envFile is read beside the config; only a file the user named (--config, $TOOLGATE_CONFIG) may reach past it.
  const envFiles = { ...(file ? { configPath: file.path } : {}), confined: file?.via !== "flag" && file?.via !== "env", readText: (p: string) => readFileSync(p, "utf8"), findOnPath };
  const specs = remoteSpecs(config, input.env, (argv, cwd) => namedFileDigests(argv, cwd, config.values.workspace as string), localPathsFlag(input.allowLocalPaths, config), envFiles);
  if (!specs.ok) {
    const at = (specs.refusal.details as { at?: (string | number)[] } | undefined)?.at;
    const line = at && file ? file.lineOf(at) : undefined;
    throw bootError(`${line ? `${file!.path}:${line}: ` : ""}${specs.refusal.message}`, "fix the las / mcpServers section of the config");
  }
  let remote: RemoteSources | undefined;
  let remoteTools: ToolSource[] = [];
  if (specs.value.length > 0) {
    // A server the config declares cannot be started on a grant the same config gives itself:
    // connects need a flag or a yes at the prompt (the config's denies still hold).
    const connectGrants = mergeGrants({ allow: {}, deny: fromConfig.deny }, fromFlags);
    const builtinNames = new Set(sources.map((t) => t.name));
    const lasSurfaces = selectedSurfaces(config.values.las);
    const declaredIn = { config, file, trustedBy: () => trust.trustedBy, stateDir: config.values.state as string };
    remote = new RemoteSources({
      specs: specs.value,
      parentEnv: input.env,
      cachePath: join(config.values.state as string, CACHE_NAME),
            permissions: new Permissions<Prompter | AsyncPrompter>(connectGrants, workspace, prompter, { pathEnv: grantPath }),
      now: () => Date.now(),
      refresh: input.refresh === true,
      version: VERSION,
      discover: (spec) => !input.cachedOnly && mayDiscover(spec, input.call, (n) => builtinNames.has(n), lasSurfaces),
      // A call shows no listing: the boundary checks the descriptor of the tool it runs, no other.
      ...(input.call !== undefined ? { checkOnly: input.call } : {}),
      // Servers and Las run in the boot's sandbox mode; the network only for one that declares it.
      sandboxMode: sandbox.mode,
      sandbox: (network) => (sandbox.mode === "off" ? undefined : sandboxFor({ ...sandboxInput, network }).wrapper),
      networkGranted: connectGrants.allow.net === true && connectGrants.deny.net === undefined,
      // Over HTTP, a server at a non-public address needs an exact grant on the command line.
      httpFetch: policyFetch({ exact: exactNetGrants(...flagNet), pins, grants: connectGrants, cwd: workspace }),
      describe: (spec) => serverDetail(spec, declaredIn),
      journal: serverJournal(declaredIn, input.stateDb),
      // OAuth tokens live in the user's state folder; never in one inside the workspace.
      userState: userState && !stateInWorkspace(userState, workspace) ? userState : null,
      ...(input.pool ? { pool: input.pool } : {}),
      ...(input.relaySampling ? { sampling: true } : {}),
    });
    const listed = await remote.load();
    if (!listed.ok) {
      await remote.shutdown();
      throw bootError(listed.refusal.message, "`toolgate tools --refresh` lists the servers again once it is fixed");
    }
    remoteTools = listed.value;
  }
  try {
    // Authored tools may not collide with a built-in, Las or a required server (a boot failure);
    // an optional server that collides with anything, or lists a bad name, is withheld instead.
    const optional = new Set(specs.value.filter((s) => s.kind === "mcp" && !s.required).map((s) => s.origin));
    const own = await authoredTools(authored, [...sources, ...remoteTools.filter((t) => !optional.has(t.origin))], input.env, trust);
    const { keep, withheld } = withholdBadServers(remoteTools, specs.value, [...sources, ...own]);
    for (const w of withheld) remote?.withhold(w.server, w.reason);
    sources.push(...keep, ...own);
    return { ...finish(sources, config, file, lock), lockPath, config, file, grants, workspace, stateDir: config.values.state as string, canPrompt, permissions, remote, controlFiles, sandbox, trust, userState, net, rails, most };
  } catch (e) {
    // A boot that fails after servers were started leaves none of them behind.
    await remote?.shutdown();
    throw e;
  }
}

/**
 * Delegation's tools for this config: a template that cannot hand the child its objective and its
 * server fails the boot; with a worktree root, the worktrees whose change is gone are swept first.
 */
function delegation(config: Effective, file: ConfigFile | null, env: BootInput["env"]) {
  const tools = delegationTools(config.values, env);
  if (tools.length === 0) return tools;
  const d = config.values.delegation as { command: string[]; worktree_root?: string };
  const problem = templateProblem(d.command);
  if (problem !== null) {
    const line = file?.lineOf(["delegation", "command"]);
    throw bootError(`${file ? `${file.path}${line ? `:${line}` : ""}: ` : ""}delegation.command ${problem}`, 'put "{objective}" in one element and "{server}" (the child server\'s argv, spliced) or "{mcp_config}" in another, e.g. ["my-agent", "--mcp-config", "{mcp_config}", "-p", "{objective}"]');
  }
  if (d.worktree_root !== undefined) {
    const swept = sweepWorktrees(resolve(config.values.workspace as string, d.worktree_root));
    if (swept.length > 0) note(`removed the folders of ${swept.length} change${swept.length === 1 ? "" : "s"} no longer pending (${swept.join(", ")})`);
  }
  return tools;
}

/** `--allow-local-paths` names servers of this config's mcpServers, nothing else (a typo must not pass silently). */
function localPathsFlag(names: readonly string[] | undefined, config: Effective): Set<string> {
  const servers = Object.keys((config.values.mcpServers ?? {}) as Record<string, unknown>);
  for (const n of names ?? []) {
    if (!servers.includes(n)) {
      throw usageError(
        `--allow-local-paths=${n}: no server "${n}" in mcpServers${servers.length ? ` (there are: ${servers.join(", ")})` : ""}${didYouMean(nearest(n, servers))}`,
        "name a server of the config whose results may hold absolute paths, e.g. --allow-local-paths=eslint",
      );
    }
  }
  return new Set(names);
}

/** The catalog's checks after every source is in: collisions, approval overrides, the lock. */
function finish(sources: ToolSource[], config: Effective, file: ConfigFile | null, lock: ReturnType<typeof readLock>): Pick<Booted, "catalog" | "refused"> {
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
