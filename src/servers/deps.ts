// What the remote sources (Las and MCP servers) are given by the boot: the declarations, the
// permission stage, the cache, the sandbox, the HTTP adapter, the journal and the session's pool.
import type { SandboxMode } from "../catalog/declare.ts";
import type { Sandbox } from "../launcher/types.ts";
import type { PolicyFetch } from "../mcp/connect.ts";
import type { Code } from "../result/codes.ts";
import type { PermissionGate } from "../runtime/invoke.ts";
import type { ConnectionPool } from "./pool.ts";
import type { RemoteSpec } from "./specs.ts";

export interface RemoteDeps {
  readonly specs: readonly RemoteSpec[];
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  readonly cachePath: string;
  readonly permissions: PermissionGate;
  readonly now: () => number;
  readonly refresh: boolean;
  readonly version: string;
  readonly onNoise?: (server: string, line: string) => void;
  /** Which servers may be started to list them when the cache has nothing (default: all). */
  readonly discover?: (spec: RemoteSpec) => boolean;
  /**
   * The one tool this boot runs and shows nothing else of (`call`): the output boundary checks only
   * its descriptor. Undefined: every listed tool's (`tools`, `serve`).
   */
  readonly checkOnly?: string;
  /** The boot's sandbox mode, and its wrapper for a stdio child with or without the network. */
  readonly sandboxMode?: SandboxMode;
  readonly sandbox?: (network: boolean) => Sandbox | undefined;
  /** Whether the whole network is granted (--allow-net with no list): what `"network": true` needs in product mode. */
  readonly networkGranted?: boolean;
  /** The HTTP adapter's fetch for MCP servers over HTTP (the URL policy, --resolve, exact grants). */
  readonly httpFetch?: PolicyFetch;
  /** What the start prompt shows of a server: its whole command line and where it was declared. */
  readonly describe?: (spec: RemoteSpec) => string;
  /** A session's live children, shared across its calls (each call's permissions checked first). */
  readonly pool?: ConnectionPool;
  /** Declare sampling to servers: serve can relay it to a client that supports it (`call` holds no model). */
  readonly sampling?: boolean;
  /**
   * Leaves a journal row for a server start ("started", before the spawn or dial) or its refusal.
   * Throws when the row cannot be written: then the server is not started. "restarted" is a
   * supervised restart's start; "exited" a supervised child's death (best effort).
   */
  readonly journal?: (
    spec: RemoteSpec,
    outcome: { status: "started" | "restarted" | "refused" | "exited"; code?: Code; message?: string },
  ) => void;
  /** The user's state folder where OAuth tokens live (null: none, or it lies in the workspace). */
  readonly userState?: string | null;
}
