// `toolgate doctor [--json]`: what this machine gives toolgate, one line a check (doctor-checks.ts)
// with ✓, ✗ (something configured needs it), ! (missing, but nothing configured needs it) or ·,
// and the fix. Exit 1 when a check fails. The servers are started with the flags given, as for a
// call: a config cannot grant their start, so without a grant they are named, not started.
import { defineCommand } from "citty";
import { CliError, usageError } from "../result/result.ts";
import { escapeControl } from "../result/escape.ts";
import { loadEffective } from "../runtime/boot.ts";
import { COMMIT, TARGET, VERSION } from "../version.ts";
import { bootInput, type RunContext } from "./context.ts";
import {
  configChecks,
  sandboxChecks,
  serverChecks,
  stateChecks,
  telemetryChecks,
  type Check,
  type Status,
} from "./doctor-checks.ts";
import { bool, scanFlags } from "./flags.ts";
import { wrap } from "./help.ts";
import { displayWidth, outputWidth, writeOut } from "./ui.ts";

export default defineCommand({
  meta: {
    name: "doctor",
    description:
      "Check what this machine gives toolgate: the config here and its trust, bubblewrap, user namespaces and each sandbox mode, the state folders, each configured MCP server started and listed (with the permission flags given; bounded by its connect_timeout_secs), the telemetry endpoint. Exit 1 when something the configuration needs is missing (JSON when piped or with --json)",
  },
  args: {},
});

const MARK: Record<Status, string> = { ok: "✓", fail: "✗", warn: "!", info: "·" };

export async function runDoctor(ctx: RunContext): Promise<number> {
  const s = scanFlags(ctx.argv, {});
  if (s.positionals.length > 0)
    throw usageError(`unexpected argument "${s.positionals[0]}"`, "toolgate doctor [--json] [--allow-run ...]");
  const input = bootInput(ctx, s);
  const checks: Check[] = [];
  let loaded: Awaited<ReturnType<typeof loadEffective>> | undefined;
  try {
    loaded = await loadEffective(input);
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    checks.push({ check: "config", status: "fail", detail: e.message, ...(e.hint ? { fix: e.hint } : {}) });
  }
  if (loaded) checks.push(...(await configChecks(loaded.config, loaded.file, input)));
  checks.push(...(await sandboxChecks(loaded?.config, ctx.cwd, ctx.env)));
  if (loaded) checks.push(...stateChecks(loaded.config, ctx.env));
  // The servers need a config every command can boot: its own failure is said above.
  if (loaded && !checks.some((c) => c.check === "config" && c.status === "fail"))
    checks.push(...(await serverChecks(input, loaded.config)));
  else checks.push({ check: "servers", status: "info", detail: "not checked: the config does not boot" });
  checks.push(...(await telemetryChecks(ctx.env)));
  const failed = checks.filter((c) => c.status === "fail").length;
  if (bool(s, "json") || !ctx.stdoutIsTTY) {
    writeOut(
      JSON.stringify({
        ok: failed === 0,
        version: VERSION,
        commit: COMMIT,
        target: TARGET,
        workspace: loaded?.config.values.workspace ?? ctx.cwd,
        checks,
      }),
    );
  } else writeOut(report(checks, outputWidth(ctx), loaded?.config.values.workspace));
  return failed === 0 ? 0 : 1;
}

function report(checks: readonly Check[], width: number, workspace: string | undefined): string {
  const w = Math.min(18, Math.max(...checks.map((c) => displayWidth(c.check))));
  const lines = [`toolgate ${VERSION} (${COMMIT}, ${TARGET})${workspace ? ` in ${escapeControl(workspace)}` : ""}`, ""];
  for (const c of checks) {
    const head = `${MARK[c.status]} ${escapeControl(c.check).padEnd(w)}  `;
    const body = wrap(escapeControl(c.detail), width - displayWidth(head));
    lines.push(head + body[0], ...body.slice(1).map((l) => " ".repeat(displayWidth(head)) + l));
    if (c.fix && c.status !== "ok" && c.status !== "info")
      lines.push(...wrap(`fix: ${escapeControl(c.fix)}`, width, displayWidth(head) + 2, displayWidth(head)));
  }
  const count = (st: Status) => checks.filter((c) => c.status === st).length;
  const [fails, warns] = [count("fail"), count("warn")];
  lines.push(
    "",
    fails
      ? `${fails} problem${fails === 1 ? "" : "s"} (✗): something the configuration needs is missing`
      : "everything the configuration needs is here",
    ...(warns
      ? [`${warns} warning${warns === 1 ? "" : "s"} (!): missing, but nothing configured needs it, or not checked`]
      : []),
  );
  return lines.join("\n");
}
