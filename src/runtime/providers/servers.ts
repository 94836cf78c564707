// MCP servers (the config's mcpServers) and Las (src/mcp/las.ts, the local-agent surfaces): tools
// listed by the servers, through one RemoteSources (one spec list, one catalog cache, one pool).
// A server is started to list it only on a cache miss, and for `call` only the one that can own the tool.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolSource } from "../../catalog/catalog.ts";
import { namedFileDigests } from "../../catalog/named-files.ts";
import type { Effective } from "../../config/resolve.ts";
import { findOnPath } from "../../fs/real-path.ts";
import { exactNetGrants, policyFetch } from "../../http/client.ts";
import { sandboxFor } from "../../launcher/sandbox.ts";
import { selectedSurfaces } from "../../mcp/las.ts";
import { mergeGrants } from "../../permission/flags.ts";
import { Permissions } from "../../permission/check.ts";
import type { AsyncPrompter, Prompter } from "../../permission/prompt.ts";
import { bootError, usageError } from "../../result/result.ts";
import { didYouMean, nearest } from "../../result/suggest.ts";
import { mayDiscover } from "../../servers/boot.ts";
import { serverJournal } from "../../servers/journal.ts";
import { serverDetail } from "../../servers/prompt.ts";
import { CACHE_NAME, RemoteSources } from "../../servers/sources.ts";
import { remoteSpecs } from "../../servers/config-specs.ts";
import { stateInWorkspace } from "../../trust/paths.ts";
import { VERSION } from "../../version.ts";
import type { BootContext, Opened, Provider } from "./provider.ts";

export const servers: Provider = {
  name: "servers",
  async open(ctx, opened, before) {
    ctx.lock(); // read before any server starts
    const { input, config, file, workspace, trust } = ctx;
    // envFile is read beside the config; only a file the user named (--config, $TOOLGATE_CONFIG) may reach past it.
    const envFiles = {
      ...(file ? { configPath: file.path } : {}),
      confined: file?.via !== "flag" && file?.via !== "env",
      readText: (p: string) => readFileSync(p, "utf8"),
      findOnPath,
    };
    const specs = remoteSpecs(
      config,
      input.env,
      (argv, cwd) => namedFileDigests(argv, cwd, workspace),
      localPathsFlag(input.allowLocalPaths, config),
      envFiles,
    );
    if (!specs.ok) {
      const at = (specs.refusal.details as { at?: (string | number)[] } | undefined)?.at;
      const line = at && file ? file.lineOf(at) : undefined;
      throw bootError(
        `${line ? `${file!.path}:${line}: ` : ""}${specs.refusal.message}`,
        "fix the las / mcpServers section of the config",
      );
    }
    opened.servers = specs.value;
    if (specs.value.length === 0) return [...before];
    const builtinNames = new Set(before.map((t) => t.name));
    const lasSurfaces = selectedSurfaces(config.values.las);
    const declaredIn = { config, file, trustedBy: () => trust.trustedBy, stateDir: config.values.state as string };
    const remote = (opened.remote = new RemoteSources({
      specs: specs.value,
      parentEnv: input.env,
      cachePath: join(config.values.state as string, CACHE_NAME),
      ...connects(ctx),
      now: () => Date.now(),
      refresh: input.refresh === true,
      version: VERSION,
      discover: (spec) => !input.cachedOnly && mayDiscover(spec, input.call, (n) => builtinNames.has(n), lasSurfaces),
      // A call shows no listing: the boundary checks the descriptor of the tool it runs, no other.
      ...(input.call !== undefined ? { checkOnly: input.call } : {}),
      describe: (spec) => serverDetail(spec, declaredIn),
      journal: serverJournal(declaredIn, input.stateDb),
      // OAuth tokens live in the user's state folder; never in one inside the workspace.
      userState: ctx.userState && !stateInWorkspace(ctx.userState, workspace) ? ctx.userState : null,
      ...(input.pool ? { pool: input.pool } : {}),
      ...(input.relaySampling ? { sampling: true } : {}),
    }));
    const listed = await remote.load();
    // Its servers are shut down by the assembly (providers/index.ts), as after any failure.
    if (!listed.ok)
      throw bootError(listed.refusal.message, "`toolgate tools --refresh` lists the servers again once it is fixed");
    return [...before, ...(listed.value as ToolSource[])];
  },
};

/**
 * How servers are started: a server the config declares cannot be started on a grant the same
 * config gives itself (connects need a flag or a yes at the prompt; the config's denies still
 * hold); they run in the boot's sandbox mode, the network only for one that declares it.
 */
function connects(ctx: BootContext) {
  const { sandbox, sandboxInput, workspace, pins } = ctx;
  const connectGrants = mergeGrants({ allow: {}, deny: ctx.fromConfig.deny }, ctx.fromFlags);
  return {
    permissions: new Permissions<Prompter | AsyncPrompter>(connectGrants, workspace, ctx.prompter, {
      pathEnv: ctx.grantPath,
      from: ctx.from,
    }),
    sandboxMode: sandbox.mode,
    sandbox: (network: boolean) =>
      sandbox.mode === "off" ? undefined : sandboxFor({ ...sandboxInput, network }).wrapper,
    networkGranted: connectGrants.allow.net === true && connectGrants.deny.net === undefined,
    // Over HTTP, a server at a non-public address needs an exact grant on the command line.
    httpFetch: policyFetch({ exact: exactNetGrants(...ctx.flagNet), pins, grants: connectGrants, cwd: workspace }),
  };
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

/**
 * Used by the boot's assembly: the origins of optional MCP servers (withheld, not failing the boot, on a collision).
 */
export const optionalOrigins = (opened: Opened): Set<string> =>
  new Set(opened.servers.filter((s) => s.kind === "mcp" && !s.required).map((s) => s.origin));
