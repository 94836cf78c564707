// What a command receives from the entry point: the world, injected (tests pass their own).
import type { BootInput } from "../runtime/boot.ts";
import { bool, multi, str, type Scanned } from "./flags.ts";
import { parsePins } from "../http/resolve.ts";
import { usageError } from "../result/result.ts";
import { canAsk } from "./terminal.ts";
import { isCI } from "../config/ci.ts";
import type { Asker } from "../permission/prompt.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import type { Database } from "bun:sqlite";
import type { Effective } from "../config/resolve.ts";
import type { CommandDef } from "citty";

/** What help and completions read of a command: its words, flags and subcommands (never its run). */
export type CommandInfo = Pick<CommandDef, "meta" | "args" | "subCommands">;

export interface RunContext {
  /** The command's own argv (after the command name), global flags included. */
  readonly argv: readonly string[];
  /** `argv` read with the command's declaration (its `args`) and the global flags. */
  readonly flags: Scanned;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdoutIsTTY: boolean;
  readonly readStdin: () => Promise<string>;
  /** A session's forwarded call: cancelled by the client (instead of this process's SIGINT/SIGTERM). */
  readonly signal?: AbortSignal;
  /** "session" for a forwarded call: its journal row says so. */
  readonly via?: "session";
  /** A session's check, once the config is known, that the call is its own (throws when not). */
  readonly gate?: BootInput["gate"];
  /** A session's live children, kept across its calls. */
  readonly pool?: BootInput["pool"];
  /** A session's forwarded call whose client can ask at its own terminal: prompts go there. */
  readonly ask?: Asker;
  /** A session's telemetry (its spans exported by the session): a forwarded call records into it. */
  readonly telemetry?: Telemetry;
  /**
   * A session's journal, kept open across its calls (src/session/kept-state.ts): the call neither opens nor closes
   * one.
   */
  readonly stateDb?: (config: Effective) => Database;
  /** toolgate's own command declaration (its global flags, and each command's, loaded on demand): for completions. */
  readonly top?: CommandInfo;
  /** The entry point's dispatch (main with its error reporting): a session runs forwarded calls through it. */
  readonly dispatch?: (argv: readonly string[], world: World) => Promise<number>;
}

/** What a session passes for a forwarded call instead of this process's world. */
export type World = Partial<
  Pick<
    RunContext,
    "cwd" | "env" | "stdoutIsTTY" | "readStdin" | "signal" | "via" | "gate" | "pool" | "ask" | "telemetry" | "stateDb"
  >
>;

/** What every command hands the boot from its command line: the same flags mean the same thing. */
export function bootInput(ctx: RunContext, s: Scanned): BootInput {
  const resolve = multi(s, "resolve");
  const pins = resolve.length === 0 ? new Map<string, string[]>() : parsePins(resolve);
  if ("error" in pins)
    throw usageError(
      pins.error,
      "write --resolve HOST:PORT:ADDR[,ADDR...], as curl takes it (e.g. --resolve site.test:8080:127.0.0.1)",
    );
  return {
    pins: pins instanceof Map ? pins : pins.pins,
    requireRails: bool(s, "require-rails"),
    cwd: ctx.cwd,
    env: ctx.env,
    configFlag: str(s, "config"),
    workspaceFlag: str(s, "workspace"),
    stateFlag: str(s, "state"),
    scratchFlag: str(s, "scratch"),
    permissionFlags: s.permissions,
    allowLocalPaths: multi(s, "allow-local-paths").flatMap((v) => v.split(",")),
    // A forwarded call asks at its client's terminal, which the client found (CI and --no-prompt still refuse).
    interactive: ctx.ask ? !bool(s, "no-prompt") && !isCI(ctx.env) : canAsk(ctx, bool(s, "no-prompt")),
    ...(ctx.ask ? { ask: ctx.ask } : {}),
    ...(ctx.gate ? { gate: ctx.gate } : {}),
    ...(ctx.pool ? { pool: ctx.pool } : {}),
  };
}
