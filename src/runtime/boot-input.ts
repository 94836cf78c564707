// What a boot is given: the caller's world (cwd, environment), the command line's flags, and how
// the command will use what it boots (asking, a session's pool, the call it will run).
import type { Database } from "bun:sqlite";
import type { ConfigFile } from "../config/file.ts";
import type { Effective } from "../config/resolve.ts";
import type { PermissionFlag } from "../permission/flags.ts";
import type { Asker, Prompter } from "../permission/prompt.ts";
import type { Facilities } from "../platform/host.ts";
import type { ConnectionPool } from "../servers/pool.ts";

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
  // start no server to list it: the catalog cache alone (`tools --names`, shell completion)
  readonly cachedOnly?: boolean;
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
  /**
   * Runs first, once the config file and values are known (a session refuses a call of another workspace or config
   * here).
   */
  readonly gate?: (config: Effective, file: ConfigFile | null) => void;
  /** A session's live children: shared across its calls instead of started and ended per call. */
  readonly pool?: ConnectionPool;
  /** `--resolve` pins, `host:port` → addresses (checked like any DNS answer). */
  readonly pins?: ReadonlyMap<string, readonly string[]>;
  /** --require-rails: a rail without its endpoint or credential fails the boot. */
  readonly requireRails?: boolean;
  /** `serve --child`: a task's child server (no delegation of its own). */
  readonly child?: boolean;
  /**
   * `serve --state DIR` (a task's child server) and `--scratch DIR` (the user's: anywhere the layout allows): those
   * folders, over the config's.
   */
  readonly stateFlag?: string | undefined;
  readonly scratchFlag?: string | undefined;
  /** What this platform has (default: this process's); tests name another. */
  readonly platform?: Facilities;
}
