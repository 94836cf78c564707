// What one `toolgate serve` runs, put together once (the command, and the in-process tests, start
// here): the served list (served.ts), the tool caller (tool-caller.ts), the relay of what upstream
// servers offer besides tools (relay.ts), and the hub that connects each client. Each part gets
// the ones it uses, made before it: a request runs one way, hub → relay → caller → Runtime.
import type { Profile } from "../runtime/invoke.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { RemoteSources } from "../servers/sources.ts";
import { Hub } from "./hub.ts";
import type { ServedNames } from "./names.ts";
import { Relay } from "./relay.ts";
import { ServedList, type Exposed } from "./served.ts";
import { PipelineCaller, type PipelineCallerDeps, type ToolCaller } from "./tool-caller.ts";

/** What the command line chose for this serve. */
export interface ServeLine {
  readonly profile: Profile & { readonly name: string };
  readonly names: ServedNames;
  /** No human behind this session (--child). */
  readonly child: boolean;
  /** Names from --approve (or "all"), served names resolved. */
  readonly approved: ReadonlySet<string>;
  /** --expose: one configured MCP server, exactly. */
  readonly expose?: string;
}

/**
 * What every call shares besides the Runtime (its lane, the operator, what to do when a row cannot be written), and
 * the version told at initialize.
 */
export type ServeWiring = Omit<PipelineCallerDeps["caller"], "approved"> & { readonly version: string };

export interface Serving {
  readonly hub: Hub;
  readonly served: ServedList;
  readonly calls: ToolCaller;
}

/**
 * The parts of one serve. `calls`: another runner of the pipeline, when one is given (else the Runtime, through
 * tool-caller.ts).
 */
export function serving(runtime: Runtime, line: ServeLine, wiring: ServeWiring, calls?: ToolCaller): Serving {
  const { booted } = runtime;
  const remote = booted.remote;
  const { version, ...callWiring } = wiring;
  const refusedNow = (name: string) => remote?.refusedNow(name);
  const exposed = line.expose !== undefined && remote ? exposedServer(remote, line.expose) : undefined;
  const served = new ServedList({
    booted,
    profile: line.profile,
    child: line.child,
    approved: line.approved,
    names: line.names,
    refusedNow,
    operator: wiring.operator,
    ...(exposed ? { exposed } : {}),
  });
  const caller =
    calls ??
    new PipelineCaller({
      runtime,
      caller: { ...callWiring, approved: line.approved },
      profile: line.profile,
      child: line.child,
      refusedNow,
      callable: () => served.tools().map((t) => String(t.name)),
    });
  const relay = remote
    ? new Relay({
        sources: remote,
        calls: caller,
        operator: wiring.operator,
        ...(line.expose !== undefined ? { expose: line.expose } : {}),
      })
    : undefined;
  const hub = new Hub({ served, calls: caller, version, ...(relay ? { relay } : {}) });
  return { hub, served, calls: caller };
}

/**
 * `--expose NAME`: its tools as listed, and as it lists them to a client that declared less than
 * toolgate's shared connection does (a connection of that kind, client-declared.ts).
 */
function exposedServer(remote: RemoteSources, name: string): Exposed {
  const spec = remote.spec(name)!;
  return {
    server: name,
    listed: () => remote.listedTools(name),
    declaring: async (declared) =>
      remote.declaresAsShared(declared)
        ? undefined
        : (await remote.connection(spec, declared)).tools.map((t) => t.name),
  };
}
