// What a stdio server is started as: its argv with bound secrets expanded, the scrubbed child
// environment (its values, secrets and inherited names only), and the boot's sandbox.
import { childEnv } from "../launcher/env.ts";
import type { Sandbox } from "../launcher/types.ts";
import type { SandboxMode } from "../catalog/declare.ts";
import type { Target } from "../mcp/connect.ts";
import { expandHeader, serverWho, type RemoteSpec } from "./specs.ts";

export interface StdioInput {
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  readonly sandboxMode?: SandboxMode;
  readonly sandbox?: (network: boolean) => Sandbox | undefined;
  readonly networkGranted?: boolean;
}

/** The stdio target of `spec`; throws (transient for a grant the caller may give) when it cannot start. */
export function stdioTarget(spec: RemoteSpec, deps: StdioInput): Target {
  if (spec.transport.kind === "http") throw new Error(`${spec.name} is not a stdio server`);
  // The sandbox cannot limit a child to some hosts: sharing the network needs the whole grant.
  if (spec.network && deps.sandboxMode === "product" && deps.networkGranted !== true) {
    throw Object.assign(
      new Error(
        `${serverWho(spec)} declares "network": true; the product sandbox shares the network with it only ` +
          `with --allow-net (the whole network: a sandbox cannot limit a process to some hosts)`,
      ),
      { transient: true },
    );
  }
  const t = spec.transport;
  const bound = t.bound ?? {};
  const env = childEnv({
    parent: deps.parentEnv,
    values: { ...t.values },
    secrets: { ...t.secrets },
    masks: Object.values(bound),
    allow: t.inherit ?? [],
    ...(t.pathDir ? { pathPrefix: t.pathDir } : {}),
    ...(t.path !== undefined ? { path: expandHeader(t.path, bound) } : {}),
  });
  if (!env.ok) throw new Error(env.refusal.message);
  const sandbox = deps.sandbox?.(spec.network);
  return {
    kind: "stdio",
    name: spec.name,
    argv: t.argv.map((a) => expandHeader(a, bound)),
    env: env.value,
    cwd: t.cwd,
    ...(sandbox ? { sandbox } : {}),
  };
}
