// `toolgate trust [FILE]`: record that this config's content is the user's (like `direnv allow`);
// `--revoke` forgets it, `--list` shows every record, `--print` prints the digest TOOLGATE_TRUST takes.
// Records live in the user's state folder, never in the checkout.
import { writeStderr } from "../result/io.ts";
import { defineCommand } from "citty";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { locateConfig, readConfig } from "../config/file.ts";
import { bootError, usageError } from "../result/result.ts";
import { resolveConfig } from "../config/resolve.ts";
import { NO_USER_STATE, stateInWorkspace, stateInWorkspaceHint, userStateDir } from "../trust/paths.ts";
import { widenings } from "../trust/rule.ts";
import { listRecords, removeRecord, writeRecord } from "../trust/store.ts";
import { checkoutFolders, realPathOf, trustDigest } from "../trust/trust.ts";
import { authoredLoader, manifestsOrFail } from "../runtime/authored.ts";
import { escapeControl, jsonForTerminal } from "../result/escape.ts";
import type { RunContext } from "./context.ts";
import { bool, scanFlags, str, type Scanned } from "./flags.ts";
import { outputWidth, table, writeOut } from "./ui.ts";

export default defineCommand({
  meta: {
    name: "trust",
    description:
      "Trust a workspace config (default: the one toolgate would use here) so it may widen grants, and the authored tools it loads as they are now; records their sha256s in the user's state folder ($XDG_STATE_HOME/toolgate, else ~/.local/state/toolgate). Any edit makes the config untrusted again; a tool added or changed later needs approval until trusted again.",
  },
  args: {
    file: {
      type: "positional",
      description: "The config file (default: $TOOLGATE_CONFIG, else the nearest toolgate.json)",
      required: false,
    },
    revoke: { type: "boolean", description: "Forget the trust recorded for this file" },
    list: { type: "boolean", description: "List every trusted file, and whether it still matches what was trusted" },
    print: {
      type: "boolean",
      description:
        "Print the digest TOOLGATE_TRUST takes in CI (the file's sha256, or with authored tools one sha256 over it and their manifests); records nothing",
    },
  },
});

export async function runTrust(ctx: RunContext): Promise<number> {
  const s = scanFlags(ctx.argv, { revoke: { kind: "bool" }, list: { kind: "bool" }, print: { kind: "bool" } });
  const [fileArg, extra] = s.positionals;
  if (extra !== undefined)
    throw usageError(`unexpected argument "${extra}"`, "toolgate trust [FILE] [--revoke | --list | --print]");
  const actions = ["revoke", "list", "print"].filter((a) => bool(s, a));
  if (actions.length > 1) throw usageError(`--${actions[0]} and --${actions[1]} cannot be combined`);
  const json = bool(s, "json") || !ctx.stdoutIsTTY;
  const say = (line: string) => void (bool(s, "quiet") || writeStderr(`toolgate: ${escapeControl(line)}\n`));
  const stateDir = userStateDir(ctx.env);
  if (bool(s, "list")) {
    if (fileArg !== undefined) throw usageError("--list takes no FILE");
    return list(stateDir, json, outputWidth(ctx));
  }
  const explicit = fileArg ?? str(s, "config");
  if (bool(s, "revoke")) {
    // Records are keyed by the path as found (a symlink is not resolved), as the boot looks them up.
    const path = explicit !== undefined ? resolve(ctx.cwd, explicit) : located(ctx, s, undefined).path;
    if (stateDir === null) throw bootError(NO_USER_STATE, "set HOME (or XDG_STATE_HOME) to where your records live");
    const had = removeRecord(stateDir, path);
    say(had ? `${path} is no longer trusted` : `${path} was not trusted`);
    if (json) writeOut(jsonForTerminal({ path, revoked: had }));
    return 0;
  }
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
  if (bool(s, "print")) {
    writeOut(pin);
    return 0;
  }
  if (stateDir === null)
    throw bootError(NO_USER_STATE, `set HOME (or XDG_STATE_HOME), or in CI set TOOLGATE_TRUST=${pin}`);
  // Bound to where it was found, what it really is and the workspace it is used with.
  const binding = {
    path: file.path,
    real: realPathOf(file.path),
    workspace: realPathOf(config.values.workspace),
  };
  // A record inside the workspace would be ignored (the repository could have shipped it): say so now.
  if (
    stateInWorkspace(
      stateDir,
      ...checkoutFolders(file, { workspace: binding.workspace, workspaceFlag: str(s, "workspace") }),
    )
  ) {
    throw bootError(
      `your state folder ${stateDir} lies inside the workspace ${binding.workspace} (or the config's folder), where toolgate ignores trust records (the repository could have put them there)`,
      `${stateInWorkspaceHint}, then run toolgate trust again; or pass the file with --config FILE`,
    );
  }
  const widens = widenings({ file, values: config.values, workspaceFlag: str(s, "workspace") !== undefined });
  const record = { ...binding, digest: file.digest, trusted_ms: Date.now(), tools };
  writeRecord(stateDir, record);
  const via = binding.real === binding.path ? "" : ` (a link to ${binding.real})`;
  say(`trusted ${binding.path}${via} for the workspace ${binding.workspace} (sha256 ${file.digest})`);
  for (const w of widens) say(`  it may now: ${w.key}: ${w.why}`);
  const names = Object.keys(tools).sort();
  if (names.length > 0)
    say(
      `  and its authored tools as they are now: ${names.join(", ")} (a tool added or changed later needs \`toolgate trust\` again before its own "approval": "never" holds)`,
    );
  if (json) writeOut(jsonForTerminal({ ...record, widens: widens.map((w) => w.key) }));
  return 0;
}

/** FILE, else where the boot would look ($TOOLGATE_CONFIG, the nearest toolgate.json). */
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

function list(stateDir: string | null, json: boolean, width: number): number {
  const records = stateDir === null ? [] : listRecords(stateDir);
  const rows = records.map((r) => ({ ...r, state: stateOf(r.path, r.digest) }));
  if (json) {
    if (rows.length) writeOut(rows.map((r) => jsonForTerminal(r)).join("\n"));
    return 0;
  }
  const out = [["PATH", "SHA256", "STATE"], ...rows.map((r) => [r.path, r.digest.slice(0, 12), r.state])];
  writeOut(rows.length ? table(out, width, 0) : "nothing is trusted");
  return 0;
}

/** "trusted" while the file still holds the content trusted; "changed" after an edit; "missing". */
function stateOf(path: string, digest: string): "trusted" | "changed" | "missing" {
  try {
    return createHash("sha256").update(readFileSync(path)).digest("hex") === digest ? "trusted" : "changed";
  } catch {
    return "missing";
  }
}
