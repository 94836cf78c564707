// What a config would widen (docs/security.md, who may widen what): an untrusted config may only
// narrow. Pure but for real-path lookups: a path inside the workspace by name may be a symlink
// the checkout carries, so containment is decided on real paths.
import { dirname, isAbsolute, resolve } from "node:path";
import type { ConfigFile } from "../config/file.ts";
import type { ConfigData } from "../config/schema.ts";
import { DEFAULT_LAS_ONLY, DEFAULTS, type ConfigValues } from "../config/resolve.ts";
import { resolveReal } from "../fs/real-path.ts";

export interface Widening {
  /** The config key, dotted ("permissions.allow.read", "mcpServers.x.timeout_secs"). */
  readonly key: string;
  /** Its path in the file (for the line); absent when the value is the default (a symlink did it). */
  readonly path?: readonly (string | number)[];
  readonly why: string;
}

export interface RuleInput {
  readonly file: ConfigFile | null;
  /** The effective values (paths already absolute). */
  readonly values: ConfigValues;
  /** --workspace was given: the file's `workspace` key is not used. */
  readonly workspaceFlag: boolean;
  /** --scratch was given: the scratch folder is the user's choice, wherever it lies. */
  readonly scratchFlag?: boolean;
  /** The user's own sandbox setting; the file may not go below it. */
  readonly userSandbox?: "off" | "product" | "bench";
}

const SANDBOX_STRENGTH = { off: 0, bench: 1, product: 2 } as const;

/** Keys that grant whatever their value: they choose identities, credentials or trust anchors. */
const GRANTING: readonly [string[], string][] = [
  [["las", "agent_id"], "chooses the agent identity Las acts as (and whose vault it opens)"],
  [["las", "release_manifest_file"], "chooses the release manifest Las trusts"],
  [["las", "release_manifest_signature_file"], "chooses the release signature Las trusts"],
  [["las", "release_trust_store_file"], "chooses the keys Las trusts for its releases"],
  [["las", "release_watermark_file"], "chooses the release watermark Las trusts"],
  [["most", "service_token_file"], "names a credential file toolgate reads and sends"],
  [["most", "url"], "chooses where the Most credential is sent"],
  [["delegation", "command"], "chooses the program the task tool starts"],
  [["delegation", "worktree_root"], "chooses where write children's worktrees live and apply_change applies from"],
  [["serve", "oauth"], "chooses whose access tokens serve --http accepts (the issuer and its keys)"],
  [["serve", "callers"], "chooses what each caller of serve --http is given"],
];

/** Time limits: an untrusted config may shorten them, not lengthen them past the default. */
const LIMITS: readonly [string[], number][] = [
  [["bash", "timeout_secs"], DEFAULTS.bash.timeout_secs],
  [["bash", "max_timeout_secs"], DEFAULTS.bash.max_timeout_secs],
  [["gates", "timeout_secs"], DEFAULTS.gates.timeout_secs],
  [["las", "timeout_secs"], DEFAULTS.las.timeout_secs],
  [["las", "shutdown_grace_secs"], DEFAULTS.las.shutdown_grace_secs],
  [["tasks", "yield_cap_secs"], DEFAULTS.tasks.yield_cap_secs],
];
const MCP_LIMITS: readonly ["connect_timeout_secs" | "timeout_secs", number][] = [
  ["connect_timeout_secs", 30],
  ["timeout_secs", DEFAULTS.las.timeout_secs],
];

const PERM_KINDS = ["read", "write", "run", "net", "env"] as const;

const at = (o: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>(
    (v, k) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined),
    o,
  );

const inside = (root: string, p: string) => p === root || p.startsWith(root === "/" ? "/" : `${root}/`);
const real = (p: string) => resolveReal(p, "/") ?? p;

/** Every widening in the config, in key order of the schema. Empty: the config only narrows. */
export function widenings(input: RuleInput): Widening[] {
  const out: Widening[] = [];
  const data: ConfigData = input.file?.data ?? {};
  const v = input.values;
  const allow = data.permissions?.allow;
  for (const kind of PERM_KINDS) {
    const g = allow?.[kind];
    if (g === true || (Array.isArray(g) && g.length > 0)) {
      out.push({
        key: `permissions.allow.${kind}`,
        path: ["permissions", "allow", kind],
        why: `grants ${kind} permission${g === true ? "" : ` (${g.join(", ")})`}`,
      });
    }
  }
  const ws = real(v.workspace);
  if (input.file && data.workspace !== undefined && !input.workspaceFlag) {
    const home = real(dirname(input.file.path));
    if (!inside(home, ws))
      out.push({
        key: "workspace",
        path: ["workspace"],
        why: `moves the workspace to ${ws}, outside the config's own folder ${home}`,
      });
  }
  // Folders toolgate reads, writes or runs from: inside the workspace, also after symlinks.
  const folder = (key: string, path: (string | number)[], value: string, fromFile: boolean) => {
    const abs = real(isAbsolute(value) ? value : resolve(v.workspace, value));
    if (inside(ws, abs)) return;
    out.push(
      fromFile
        ? { key, path, why: `${abs} lies outside the workspace ${ws}` }
        : {
            key,
            why:
              `the default ${JSON.stringify(value)} resolves to ${abs}, outside the workspace ${ws} (a symlink ` +
              `in the checkout)`,
          },
    );
  };
  folder("state", ["state"], v.state, data.state !== undefined);
  if (!input.scratchFlag) folder("scratch", ["scratch"], v.scratch, data.scratch !== undefined);
  v.skills.forEach((s, i) => {
    folder(`skills.${i}`, ["skills", i], s, data.skills !== undefined);
  });
  folder("authored.dir", ["authored", "dir"], v.authored.dir, data.authored?.dir !== undefined);
  folder("gates.directory", ["gates", "directory"], v.gates.directory, data.gates?.directory !== undefined);
  const sandbox = data.sandbox;
  const user = input.userSandbox ?? "off";
  if (sandbox !== undefined && SANDBOX_STRENGTH[sandbox] < SANDBOX_STRENGTH[user]) {
    out.push({ key: "sandbox", path: ["sandbox"], why: `"${sandbox}" is weaker than your own setting "${user}"` });
  }
  for (const [path, why] of GRANTING) if (at(data, path) !== undefined) out.push({ key: path.join("."), path, why });
  const only = data.las?.only;
  const extra = (only ?? []).filter((s) => !DEFAULT_LAS_ONLY.includes(s));
  if (extra.length > 0)
    out.push({
      key: "las.only",
      path: ["las", "only"],
      why: `selects surfaces beyond the default list (${extra.join(", ")})`,
    });
  const longer = (key: string, path: (string | number)[], value: unknown, limit: number) => {
    if (typeof value === "number" && value > limit)
      out.push({ key, path, why: `raises a time limit to ${value} s, past its default ${limit} s` });
  };
  for (const [path, limit] of LIMITS) longer(path.join("."), path, at(data, path), limit);
  const servers = data.mcpServers ?? {};
  for (const [name, server] of Object.entries(servers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // A server runs in its cwd (as config-specs.ts resolves it): the repository may not choose /etc.
    if (server.cwd !== undefined && server.disabled !== true)
      folder(`mcpServers.${name}.cwd`, ["mcpServers", name, "cwd"], server.cwd, true);
    for (const [k, limit] of MCP_LIMITS) longer(`mcpServers.${name}.${k}`, ["mcpServers", name, k], server[k], limit);
    if (server.boundary?.local_paths === "allow") {
      out.push({
        key: `mcpServers.${name}.boundary.local_paths`,
        path: ["mcpServers", name, "boundary", "local_paths"],
        why: "lets this server's results through with local paths in them (the output boundary's local-path rule off)",
      });
    }
    if (server.env?.PATH !== undefined) {
      out.push({
        key: `mcpServers.${name}.env.PATH`,
        path: ["mcpServers", name, "env", "PATH"],
        why: "replaces the fixed PATH this server (and every program it starts by name) is found on",
      });
    }
    if (server.oauth !== undefined) {
      out.push({
        key: `mcpServers.${name}.oauth`,
        path: ["mcpServers", name, "oauth"],
        why: "chooses the OAuth client (its id, secret or grant) toolgate authorizes as",
      });
    }
  }
  return out;
}
