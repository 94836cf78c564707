// What the config says about remote sources, turned into launchable specs: Las (seed 000) and
// the `mcpServers` block in the shape MCP clients already use. Pure: the parent environment is
// a parameter. `"${NAME}"` in an env value takes NAME from the parent and makes it a secret.
import { isAbsolute, resolve } from "node:path";
import type { Effective } from "../config/resolve.ts";
import { lasEnv, type LasSettings } from "../mcp/las.ts";
import type { Need } from "../permission/types.ts";
import type { Refusal } from "../result/result.ts";
import { remoteToolName } from "../catalog/names.ts";

/**
 * A remote tool's catalog name: Las tools keep Las's names; a server's are `<server>__<tool>`, or
 * that mapped when the server's or the tool's name has characters or a length clients refuse.
 */
export const catalogNameOf = (spec: Pick<RemoteSpec, "kind" | "name">, raw: string): string => (spec.kind === "las" ? raw : remoteToolName(spec.name, raw));

export interface RemoteSpec {
  readonly name: string;
  /** "las" or "mcp:<name>": part of every tool's digest. */
  readonly origin: string;
  readonly kind: "las" | "mcp";
  readonly transport:
    | { readonly kind: "stdio"; readonly argv: readonly string[]; readonly cwd: string; readonly values: Readonly<Record<string, string>>; readonly secrets: Readonly<Record<string, string>> }
    /** `headers` as written (`${NAME}` unexpanded); `secrets` holds each NAME's value, put in at connect time. */
    | { readonly kind: "http"; readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly secrets: Readonly<Record<string, string>> };
  /** Connecting is an effect: run of the command (and env of each `${NAME}` it is given), or net of the host. */
  readonly needs: readonly Need[];
  /** stdio: the server says it needs the network (`"network": true`); the product sandbox shares it only with --allow-net. */
  readonly network: boolean;
  readonly pin: boolean;
  readonly connectTimeoutMs: number;
  readonly timeoutMs: number;
  readonly graceMs: number;
  readonly required: boolean;
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
  /** Las only: surfaces that must each expose a tool. */
  readonly requiredSurfaces?: readonly string[];
  /**
   * What the server runs beyond its command line, for its tools' digests: each env entry (a literal's
   * value; for `${NAME}` only the reference, never the secret) and the sha256 of each workspace file
   * its command or arguments name (stdio only).
   */
  readonly runs?: { readonly env: Readonly<Record<string, string>>; readonly files: Readonly<Record<string, string>> };
  /** The user switched the boundary's local-path rule off for this server's results: by what (flag or config key). */
  readonly localPathsOff?: string;
  /** Why this server cannot even be started (unset ${NAME}); reported as its failure. */
  readonly problem?: string;
}

interface McpServerConfig {
  type?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  include?: string[];
  exclude?: string[];
  connect_timeout_secs?: number;
  timeout_secs?: number;
  required?: boolean;
  disabled?: boolean;
  network?: boolean;
  boundary?: { local_paths?: "allow" };
}

const DEFAULT_CONNECT_SECS = 30;
const REF = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const REF_ANY = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** A header value with each `${NAME}` replaced by its bound value. */
export const expandHeader = (raw: string, bound: Readonly<Record<string, string>>): string => raw.replace(REF_ANY, (m, name: string) => bound[name] ?? m);

/** The content digests of workspace files a command line names, keyed by path (named-files.ts); injected so this stays pure. */
export type NamedFiles = (argv: readonly string[], cwd: string) => Readonly<Record<string, string>>;

/**
 * `allowLocalPaths`: servers named by `--allow-local-paths`. The config's own
 * `boundary.local_paths` reaches here only from a trusted config (the trust gate refuses it otherwise).
 */
export function remoteSpecs(
  config: Effective,
  parent: Readonly<Record<string, string | undefined>>,
  namedFiles: NamedFiles = () => ({}),
  allowLocalPaths: ReadonlySet<string> = new Set(),
): { ok: true; value: RemoteSpec[] } | { ok: false; refusal: Refusal } {
  const v = config.values;
  const workspace = v.workspace as string;
  const las = v.las as LasSettings & { enabled: boolean };
  const specs: RemoteSpec[] = [];
  const timeoutMs = las.timeout_secs * 1000;
  const graceMs = las.shutdown_grace_secs * 1000;
  if (las.enabled) {
    const env = lasEnv(las, parent);
    if (!env.ok) return env;
    const entry = isAbsolute(las.entrypoint) ? las.entrypoint : resolve(workspace, las.entrypoint);
    const lasNetwork = (las as { network?: boolean }).network === true;
    // SKARBIEC_* taken from the parent are the operator's (maybe secrets): digested by name only.
    const lasEnvRuns = Object.fromEntries(
      Object.entries(env.env).map(([k, val]) => [k, k.startsWith("SKARBIEC_") && k !== "SKARBIEC_MCP_AGENT_ID" && parent[k] === val ? `\${${k}}` : val]),
    );
    specs.push({
      name: "las",
      origin: "las",
      kind: "las",
      transport: { kind: "stdio", argv: [las.command, entry], cwd: workspace, values: env.env, secrets: {} },
      runs: { env: lasEnvRuns, files: namedFiles([las.command, entry], workspace) },
      needs: [{ kind: "run", value: las.command }],
      network: lasNetwork,
      pin: true,
      connectTimeoutMs: timeoutMs,
      timeoutMs,
      graceMs,
      required: true,
      requiredSurfaces: las.required_surfaces,
    });
  }
  const servers = (v.mcpServers ?? {}) as Record<string, McpServerConfig>;
  for (const name of Object.keys(servers).sort()) {
    const s = servers[name]!;
    if (s.disabled === true) continue;
    const common = {
      name,
      origin: `mcp:${name}`,
      kind: "mcp" as const,
      pin: false,
      connectTimeoutMs: (s.connect_timeout_secs ?? DEFAULT_CONNECT_SECS) * 1000,
      timeoutMs: (s.timeout_secs ?? las.timeout_secs) * 1000,
      graceMs,
      required: s.required === true,
      network: s.network === true,
      ...(s.include ? { include: s.include } : {}),
      ...(s.exclude ? { exclude: s.exclude } : {}),
      ...(allowLocalPaths.has(name)
        ? { localPathsOff: `--allow-local-paths=${name}` }
        : s.boundary?.local_paths === "allow"
          ? { localPathsOff: `mcpServers.${name}.boundary.local_paths` }
          : {}),
    };
    const isHttp = s.type === "http" || s.type === "streamable-http" || (s.url !== undefined && s.command === undefined);
    if (isHttp) {
      if (!s.url) return { ok: false, refusal: { code: "config.invalid", message: `mcpServers.${name}: an HTTP server needs "url"` } };
      let url: URL;
      try {
        url = new URL(s.url);
      } catch {
        return { ok: false, refusal: { code: "config.invalid", message: `mcpServers.${name}.url: ${JSON.stringify(s.url)} is not a URL` } };
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        return { ok: false, refusal: { code: "config.invalid", message: `mcpServers.${name}.url: only http and https are allowed` } };
      }
      const port = url.port || (url.protocol === "https:" ? "443" : "80");
      // `${NAME}` anywhere in a header value ("Bearer ${TOKEN}"): an env need and a secret, like env's.
      const headerNeeds: Need[] = [];
      const bound: Record<string, string> = {};
      let problem: string | undefined;
      for (const [k, raw] of Object.entries(s.headers ?? {})) {
        for (const m of raw.matchAll(REF_ANY)) {
          const name = m[1]!;
          if (!headerNeeds.some((n) => n.value === name)) headerNeeds.push({ kind: "env", value: name });
          if (parent[name] === undefined) problem ??= `headers.${k} takes \${${name}} from the environment, and ${name} is not set`;
          else bound[name] = parent[name]!;
        }
      }
      specs.push({
        ...common,
        network: true,
        transport: { kind: "http", url: s.url, headers: s.headers ?? {}, secrets: bound },
        needs: [{ kind: "net", value: `${url.hostname}:${port}` }, ...headerNeeds],
        ...(problem ? { problem } : {}),
      });
      continue;
    }
    if (!s.command) return { ok: false, refusal: { code: "config.invalid", message: `mcpServers.${name}: give "command" (stdio) or "type": "http" with "url"` } };
    const values: Record<string, string> = {};
    const secrets: Record<string, string> = {};
    // Each `${NAME}` hands the parent's NAME to the server: an env need (--allow-env=NAME or a
    // yes at the prompt, never the config), checked before the server starts.
    const envNeeds: Need[] = [];
    let problem: string | undefined;
    for (const [k, raw] of Object.entries(s.env ?? {})) {
      const ref = REF.exec(raw);
      if (!ref) values[k] = raw;
      else {
        if (!envNeeds.some((n) => n.value === ref[1])) envNeeds.push({ kind: "env", value: ref[1]! });
        if (parent[ref[1]!] === undefined) problem ??= `env.${k} takes \${${ref[1]}} from the environment, and ${ref[1]} is not set`;
        else secrets[k] = parent[ref[1]!]!;
      }
    }
    const cwd = s.cwd === undefined ? workspace : isAbsolute(s.cwd) ? s.cwd : resolve(workspace, s.cwd);
    // A command with a slash is a path: resolved once against the server's cwd, so the program
    // the run permission names is the program that starts. A bare name is looked up on PATH.
    const command = s.command.includes("/") ? resolve(cwd, s.command) : s.command;
    const argv = [command, ...(s.args ?? [])];
    specs.push({
      ...common,
      transport: { kind: "stdio", argv, cwd, values, secrets },
      // As written: a literal's value, `${NAME}` itself (the secret it names never enters a digest).
      runs: { env: { ...(s.env ?? {}) }, files: namedFiles(argv, cwd) },
      needs: [{ kind: "run", value: command }, ...envNeeds],
      ...(problem ? { problem } : {}),
    });
  }
  return { ok: true, value: specs };
}
