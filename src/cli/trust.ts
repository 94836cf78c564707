// `toolgate trust [FILE]`: record that this config's content is the user's (like `direnv allow`);
// `--revoke` forgets it, `--list` shows every record, `--print` prints the digest TOOLGATE_TRUST takes.
// Records live in the user's state folder, never in the checkout.
import { defineCommand } from "citty";
import { resolve } from "node:path";
import { bootError, usageError } from "../result/result.ts";
import { note } from "../result/human.ts";
import { NO_USER_STATE, userStateDir } from "../trust/paths.ts";
import { removeRecord } from "../trust/store.ts";
import { jsonForTerminal } from "../result/escape.ts";
import type { RunContext } from "./context.ts";
import { bool, str } from "./flags.ts";
import { listTrusted } from "./render-trust.ts";
import { located, recordTrust, trustPlan } from "./trust-record.ts";
import { outputWidth, writeOut } from "./ui.ts";

export default defineCommand({
  meta: {
    name: "trust",
    description:
      "Trust a workspace config (default: the one toolgate would use here) so it may widen grants, and the " +
      "authored tools it loads as they are now; records their sha256s in the user's state folder " +
      "($XDG_STATE_HOME/toolgate, else ~/.local/state/toolgate). Any edit makes the config untrusted again; a " +
      "tool added or changed later needs approval until trusted again.",
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
        "Print the digest TOOLGATE_TRUST takes in CI (the file's sha256, or with authored tools one sha256 " +
        "over it and their manifests); records nothing",
    },
  },
});

export async function runTrust(ctx: RunContext): Promise<number> {
  const s = ctx.flags;
  const [fileArg, extra] = s.positionals;
  if (extra !== undefined)
    throw usageError(`unexpected argument "${extra}"`, "toolgate trust [FILE] [--revoke | --list | --print]");
  const actions = ["revoke", "list", "print"].filter((a) => bool(s, a));
  if (actions.length > 1) throw usageError(`--${actions[0]} and --${actions[1]} cannot be combined`);
  const json = bool(s, "json") || !ctx.stdoutIsTTY;
  const stateDir = userStateDir(ctx.env);
  if (bool(s, "list")) {
    if (fileArg !== undefined) throw usageError("--list takes no FILE");
    return listTrusted(stateDir, json, outputWidth(ctx));
  }
  const explicit = fileArg ?? str(s, "config");
  if (bool(s, "revoke")) {
    // Records are keyed by the path as found (a symlink is not resolved), as the boot looks them up.
    const path = explicit !== undefined ? resolve(ctx.cwd, explicit) : located(ctx, s, undefined).path;
    if (stateDir === null) throw bootError(NO_USER_STATE, "set HOME (or XDG_STATE_HOME) to where your records live");
    const had = removeRecord(stateDir, path);
    note(had ? `${path} is no longer trusted` : `${path} was not trusted`);
    if (json) writeOut(jsonForTerminal({ path, revoked: had }));
    return 0;
  }
  const { file, config, tools, pin } = await trustPlan(ctx, s, explicit);
  if (bool(s, "print")) {
    writeOut(pin);
    return 0;
  }
  if (stateDir === null)
    throw bootError(NO_USER_STATE, `set HOME (or XDG_STATE_HOME), or in CI set TOOLGATE_TRUST=${pin}`);
  const { record, widens, binding } = recordTrust(stateDir, { file, config, tools, pin }, str(s, "workspace"));
  const via = binding.real === binding.path ? "" : ` (a link to ${binding.real})`;
  note(`trusted ${binding.path}${via} for the workspace ${binding.workspace} (sha256 ${file.digest})`);
  for (const w of widens) note(`  it may now: ${w.key}: ${w.why}`);
  const names = Object.keys(tools).sort();
  if (names.length > 0)
    note(
      `  and its authored tools as they are now: ${names.join(", ")} (a tool added or changed later needs ` +
        `\`toolgate trust\` again before its own "approval": "never" holds)`,
    );
  if (json) writeOut(jsonForTerminal({ ...record, widens: widens.map((w) => w.key) }));
  return 0;
}
