// The call pipeline in this process, wired as `toolgate call` wires it, for the tests that drive
// tools through it (validation, permissions, approval, the adapter, the boundary): the one place
// in test/ outside test/runtime that builds what `invoke` takes, so a change to its shape is met here.
import type { ApprovalDeps } from "../../src/approval/approval.ts";
import { builtinSources } from "../../src/catalog/builtin.ts";
import { buildCatalog, type Catalog } from "../../src/catalog/catalog.ts";
import { Permissions } from "../../src/permission/check.ts";
import { noPrompter } from "../../src/permission/prompt.ts";
import type { PermissionGrants } from "../../src/permission/types.ts";
import type { Envelope } from "../../src/result/result.ts";
import { invoke, type InvokeDeps, type PermissionGate } from "../../src/runtime/invoke.ts";
import { processRunner } from "../../src/runtime/processes.ts";
import { builtinTools } from "../../src/tools/index.ts";
import { noProcesses } from "../helpers.ts";

const PATH = "/usr/bin:/bin";

let builtins: Catalog | undefined;
/** The built-in tools' catalog (built once). */
export function builtinCatalog(): Catalog {
  if (builtins) return builtins;
  const built = buildCatalog(builtinSources(builtinTools));
  if (!built.ok) throw new Error(built.refusal.message);
  return (builtins = built.value);
}

/** Approval of the tools named (`all`: every one), remembered nowhere, asked of nobody. */
export function approving(names: Iterable<string> = []): ApprovalDeps {
  return { approved: new Set(names), overrides: {}, isRemembered: () => false, remember: () => {}, ask: undefined };
}

/** The real permission checks over `workspace`, with `grants` and nobody to ask. */
export const permissionsOf = (grants: PermissionGrants, workspace: string): PermissionGate =>
  new Permissions(grants, workspace, noPrompter, { pathEnv: PATH });

/** Nothing granted and nobody asked; each need asked for is noted in `asked` as KIND:VALUE. */
export const grantingNothing = (asked: string[] = []): PermissionGate => ({
  check: (n) => (
    asked.push(`${n.kind}:${n.value}`), { ok: false, code: "permission.denied", message: "nothing is granted here" }
  ),
});

/** The real process runner, unsandboxed, PATH its children's only inherited variable; state in `stateDir`. */
export const unsandboxed =
  (stateDir: string): InvokeDeps["processes"] =>
  (signal) =>
    processRunner({ parentEnv: { PATH }, stateDir, sandboxMode: "off", sandbox: undefined, secrets: {}, signal });

/**
 * What `invoke` takes: the scope and the permissions given, the rest defaulted unless given (the
 * built-in catalog, no processes, nothing approved, no secrets, no journal, a clock at 0, 30 s).
 */
export function pipelineDeps(over: Partial<InvokeDeps> & Pick<InvokeDeps, "scope" | "permissions">): InvokeDeps {
  return {
    catalog: builtinCatalog(),
    processes: () => noProcesses,
    approval: approving(),
    secrets: [],
    started: () => {},
    journal: () => {},
    now: () => 0,
    deadlineMs: 30_000,
    ...over,
  };
}

/** One call through the pipeline: the envelope `toolgate call` prints. */
export async function callThrough(tool: string, args: unknown, deps: InvokeDeps): Promise<Envelope> {
  return (await invoke(tool, args, deps)).envelope;
}
