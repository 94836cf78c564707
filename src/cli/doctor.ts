// `toolgate doctor [--json]`: what this machine gives toolgate, one line a check (doctor-checks.ts)
// with ✓, ✗ (something configured needs it), ! (missing, but nothing configured needs it) or ·,
// and the fix. Exit 1 when a check fails. The servers are started with the flags given, as for a
// call: a config cannot grant their start, so without a grant they are named, not started.
import { defineCommand } from "citty";
import { CliError, usageError } from "../result/result.ts";
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
} from "./doctor-checks.ts";
import { bool } from "./flags.ts";
import { doctorReport } from "./render-doctor.ts";
import { outputWidth, writeOut } from "./ui.ts";

export default defineCommand({
  meta: {
    name: "doctor",
    description:
      "Check what this machine gives toolgate: the config here and its trust, bubblewrap, user namespaces and " +
      "each sandbox mode, the state folders, each configured MCP server started and listed (with the " +
      "permission flags given; bounded by its connect_timeout_secs), the telemetry endpoint. Exit 1 when " +
      "something the configuration needs is missing (JSON when piped or with --json)",
  },
  args: {},
});

export async function runDoctor(ctx: RunContext): Promise<number> {
  const s = ctx.flags;
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
        workspace: (loaded?.config.values.workspace as string | undefined) ?? ctx.cwd,
        checks,
      }),
    );
  } else writeOut(doctorReport(checks, outputWidth(ctx), loaded?.config.values.workspace as string | undefined));
  return failed === 0 ? 0 : 1;
}
