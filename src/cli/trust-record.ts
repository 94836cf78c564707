// What `toolgate trust` records: the config found (FILE, else where the boot would look), read as
// the boot would read it with its workspace, the authored tools it loads and their digests, and
// the record bound to where it was found, what it really is and the workspace it is used with.
import { resolve } from "node:path";
import { locateConfig, readConfig } from "../config/file.ts";
import { bootError } from "../result/result.ts";
import { resolveConfig } from "../config/resolve.ts";
import { stateInWorkspace, stateInWorkspaceHint } from "../trust/paths.ts";
import { widenings } from "../trust/rule.ts";
import { writeRecord } from "../trust/store.ts";
import { checkoutFolders, realPathOf, trustDigest } from "../trust/trust.ts";
import { authoredLoader, manifestsOrFail } from "../runtime/authored.ts";
import type { RunContext } from "./context.ts";
import { str, type Scanned } from "./flags.ts";

export /** FILE, else where the boot would look ($TOOLGATE_CONFIG, the nearest toolgate.json). */
function located(
  ctx: RunContext,
  s: Scanned,
  explicit: string | undefined,
): { path: string; via: "flag" | "env" | "search" } {
  const ws = str(s, "workspace");
  const from = ws === undefined ? ctx.cwd : resolve(ctx.cwd, ws);
  const found = locateConfig(explicit, ctx.env.TOOLGATE_CONFIG, ctx.cwd, from);
  if (!found)
    throw bootError(
      `no toolgate.json here (looked from ${from} up to the repository root)`,
      "name the file: toolgate trust FILE",
    );
  return found;
}

/** The config to trust, its authored tools, and the pin TOOLGATE_TRUST would take for them. */
export async function trustPlan(ctx: RunContext, s: Scanned, explicit: string | undefined) {
  const found = located(ctx, s, explicit);
  const file = await readConfig(found.path, found.via);
  // The workspace the boot would use it with: a file named here as if found where it lies (its
  // folder, unless its `workspace` key or --workspace says otherwise), $TOOLGATE_CONFIG's as read.
  const ws = str(s, "workspace");
  const flags: Record<string, readonly [unknown, string]> =
    ws === undefined ? {} : { workspace: [resolve(ctx.cwd, ws), "--workspace"] };
  const config = resolveConfig({
    cwd: ctx.cwd,
    file: found.via === "flag" && !file.client ? { ...file, via: "search" } : file,
    env: ctx.env,
    flags,
  });
  // The authored tools it would load: the trust (and the printed pin) covers them as they are now.
  const loader = await authoredLoader(config);
  const tools: Record<string, string> = loader
    ? Object.fromEntries(manifestsOrFail(loader).map((m) => [m.name, m.digest]))
    : {};
  const pin = trustDigest(file.digest, tools);
  return { file, config, tools, pin };
}

/** Writes the record (refused when the state folder lies in the workspace); what it now lets the config widen. */
export function recordTrust(stateDir: string, plan: Awaited<ReturnType<typeof trustPlan>>, ws: string | undefined) {
  const { file, config, tools } = plan;
  // Bound to where it was found, what it really is and the workspace it is used with.
  const binding = {
    path: file.path,
    real: realPathOf(file.path),
    workspace: realPathOf(config.values.workspace as string),
  };
  // A record inside the workspace would be ignored (the repository could have shipped it): say so now.
  if (stateInWorkspace(stateDir, ...checkoutFolders(file, { workspace: binding.workspace, workspaceFlag: ws }))) {
    throw bootError(
      `your state folder ${stateDir} lies inside the workspace ${binding.workspace} (or the config's folder), ` +
        `where toolgate ignores trust records (the repository could have put them there)`,
      `${stateInWorkspaceHint}, then run toolgate trust again; or pass the file with --config FILE`,
    );
  }
  const widens = widenings({ file, values: config.values, workspaceFlag: ws !== undefined });
  const record = { ...binding, digest: file.digest, trusted_ms: Date.now(), tools };
  writeRecord(stateDir, record);
  return { record, widens, binding };
}
