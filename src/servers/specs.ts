// A remote source's launchable spec (Las, or one server of the config's `mcpServers`) and what the
// rest of src/servers reads off it: how a message names the server, its tools' catalog names, the
// values its views redact, a template with its bound variables put in. config-specs.ts makes the
// specs from the config.
import type { Need } from "../permission/types.ts";
import { remoteToolName } from "../catalog/names.ts";
import { fillVars } from "./vars.ts";

/**
 * A remote tool's catalog name: Las tools keep Las's names; a server's are `<server>__<tool>`, or
 * that mapped when the server's or the tool's name has characters or a length clients refuse.
 */
export const catalogNameOf = (spec: Pick<RemoteSpec, "kind" | "name">, raw: string): string =>
  spec.kind === "las" ? raw : remoteToolName(spec.name, raw);

/** How a message names the server: "Las", or MCP server "NAME". */
export const serverWho = (spec: Pick<RemoteSpec, "kind" | "name">): string =>
  spec.kind === "las" ? "Las" : `MCP server "${spec.name}"`;

export interface RemoteSpec {
  readonly name: string;
  /** "las" or "mcp:<name>": part of every tool's digest. */
  readonly origin: string;
  readonly kind: "las" | "mcp";
  readonly transport: /**
   * `argv` with each parent variable kept as `${NAME}` (`bound` holds NAME's value, put in at
   * connect time); `secrets` are env bindings (a value that holds a parent variable, envFile's).
   */
    | {
        readonly kind: "stdio";
        readonly argv: readonly string[];
        readonly cwd: string;
        readonly values: Readonly<Record<string, string>>;
        readonly secrets: Readonly<Record<string, string>>;
        readonly bound?: Readonly<Record<string, string>>;
        readonly pathDir?: string;
        readonly inherit?: readonly string[];
        readonly path?: string;
      }
    /** `url` and `headers` with `${NAME}` unexpanded; `secrets` holds each NAME's value, put in at connect time. */
    | {
        readonly kind: "http";
        readonly url: string;
        readonly headers: Readonly<Record<string, string>>;
        readonly secrets: Readonly<Record<string, string>>;
        readonly sse?: boolean;
        readonly oauth?: Readonly<Record<string, string>>;
      };
  /** Connecting is an effect: run of the command (and env of each `${NAME}` it is given), or net of the host. */
  readonly needs: readonly Need[];
  /**
   * stdio: the server says it needs the network (`"network": true`); the product sandbox shares it only with
   * --allow-net.
   */
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
  readonly runs?: {
    readonly env: Readonly<Record<string, string>>;
    readonly files: Readonly<Record<string, string>>;
    readonly program?: string;
  };
  /** The user switched the boundary's local-path rule off for this server's results: by what (flag or config key). */
  readonly localPathsOff?: string;
  /** Why this server cannot even be started (unset ${NAME}); reported as its failure. */
  readonly problem?: string;
}

/** Every value a spec's views must redact: env bindings and each bound parent variable. */
export const secretValues = (spec: RemoteSpec): string[] => [
  ...new Set([
    ...Object.values(spec.transport.secrets),
    ...Object.values((spec.transport.kind === "stdio" && spec.transport.bound) || {}),
  ]),
];

/** A header (or URL, argument) template with each bound `${NAME}` put in. */
export const expandHeader = fillVars;
