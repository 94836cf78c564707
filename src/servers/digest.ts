// A remote tool's digest: what its server runs and its live descriptor, compared at every call and
// every supervised restart with what was listed.
import { toolDigest } from "../catalog/catalog.ts";
import type { ListedTool } from "../mcp/session.ts";
import type { RemoteSpec } from "./specs.ts";

/**
 * What a server runs, for its tools' digests: the command line, folder, env as written and the
 * workspace files it names, or the URL (never secrets).
 */
export const executableOf = (spec: RemoteSpec): unknown =>
  spec.transport.kind === "stdio"
    ? {
        argv: spec.transport.argv,
        cwd: spec.transport.cwd,
        env: spec.runs?.env ?? {},
        files: spec.runs?.files ?? {},
        ...(spec.runs?.program ? { program: spec.runs.program } : {}),
      }
    : { url: spec.transport.url, ...(spec.transport.sse ? { transport: "sse" } : {}) };

/**
 * The digest a live descriptor has as a catalog entry (remote tools are irreversible), to compare with the listed
 * one's.
 */
export const liveDigest = (spec: RemoteSpec, t: ListedTool) =>
  toolDigest({
    origin: spec.origin,
    name: t.name,
    schema: t.inputSchema,
    effect: "irreversible",
    description: t.description ?? "",
    executable: executableOf(spec),
  });
