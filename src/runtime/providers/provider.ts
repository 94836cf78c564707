// A tool source, as the runtime sees it: a provider adds its tools to the catalog being built, in
// the order of the list (providers/index.ts), from what the boot settled (config, trust, grants,
// sandbox). What a provider opens for the whole boot (a rail's endpoint, Most's, the servers)
// it leaves on the context, for the runtime to hand to calls and to shut down. Each tool it adds
// carries what it needs from the call pipeline (its Terms, catalog/terms.ts), stated by its factory.
import type { ToolSource } from "../../catalog/catalog.ts";
import type { readLock } from "../../catalog/lock.ts";
import type { ConfigFile } from "../../config/file.ts";
import type { Effective } from "../../config/resolve.ts";
import type { BootSandbox, SandboxInput } from "../../launcher/sandbox.ts";
import type { allowedByEach } from "../../permission/flags.ts";
import type { AsyncPrompter, Prompter } from "../../permission/prompt.ts";
import type { PermissionGrants } from "../../permission/types.ts";
import type { RemoteSources } from "../../servers/sources.ts";
import type { RemoteSpec } from "../../servers/specs.ts";
import type { RailEndpoint, RailGroup } from "../../tools/rails/rails.ts";
import type { TrustVerdict } from "../../trust/gate.ts";
import type { AuthoredLoader } from "../authored.ts";
import type { BootInput } from "../boot-input.ts";

/** What the boot settled before any tool source is opened. */
export interface BootContext {
  readonly input: BootInput;
  readonly config: Effective;
  readonly file: ConfigFile | null;
  readonly workspace: string;
  readonly trust: TrustVerdict;
  readonly userState: string | null;
  /** The config's grants and the flags', apart: a server's connect takes the flags' only. */
  readonly fromConfig: PermissionGrants;
  readonly fromFlags: PermissionGrants;
  /** The flags' net grants, each as given. */
  readonly flagNet: ReturnType<typeof allowedByEach>;
  readonly pins: ReadonlyMap<string, readonly string[]>;
  readonly prompter: Prompter | AsyncPrompter;
  /** Where a run grant by name is looked up: the children's fixed PATH, then the caller's absolute folders. */
  readonly grantPath: string;
  /** The caller's folder (a real path): a refusal writes a workspace path relative to it. */
  readonly from: string | undefined;
  readonly sandbox: BootSandbox;
  readonly sandboxInput: SandboxInput;
  /** The authored-tools folder's manifests (null without one). */
  readonly authored: AuthoredLoader | null;
  /**
   * toolgate.lock, read once (before any server starts: a sandboxed server holds a missing lock's path with a
   * placeholder).
   */
  readonly lock: () => ReturnType<typeof readLock>;
}

/** What providers open for the whole boot, beside their tools. */
export interface Opened {
  /** The rails' endpoints and credentials by group (only those with both set). */
  rails: Partial<Record<RailGroup, RailEndpoint>>;
  /** Most's endpoint and token file, when configured. */
  most: { readonly url: string; readonly tokenFile: string } | undefined;
  /** Las and MCP servers, when configured: their status, live connections and shutdown. */
  remote: RemoteSources | undefined;
  /** The servers' declarations (origin, kind, required), when any. */
  servers: readonly RemoteSpec[];
}

export interface Provider {
  readonly name: string;
  /** The catalog's tools once this source is in: those of the providers before it (`before`), and its own. */
  open(ctx: BootContext, opened: Opened, before: readonly ToolSource[]): ToolSource[] | Promise<ToolSource[]>;
}
