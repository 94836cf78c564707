// What `toolgate doctor` checks, one function per area: the config and its trust, the sandbox modes
// (bubblewrap, user namespaces, each mode probed as a call would), the state folders, each
// configured server started and listed (the boot's own discovery, bounded by connect_timeout_secs),
// the telemetry endpoint. A check fails only when something configured needs what is missing.
import type { Effective } from "../config/resolve.ts";
import type { ConfigFile } from "../config/file.ts";
import { findOnPath } from "../fs/real-path.ts";
import { reach } from "../http/reach.ts";
import { BASE_ENV } from "../launcher/env.ts";
import { SANDBOX_HINT, sandboxFor, sandboxProblem } from "../launcher/sandbox.ts";
import { hostPlatform, sysctl } from "../platform/host.ts";
import { escapeControl } from "../result/escape.ts";
import { authoredLoader } from "../runtime/authored.ts";
import { boot, type BootInput } from "../runtime/boot.ts";
import { probeState, whyUnusable } from "../state/unusable.ts";
import { stateFolderProblem } from "../fs/state-folder.ts";
import { endpointView, telemetrySettings } from "../telemetry/env.ts";
import { NO_USER_STATE, stateInWorkspace, stateInWorkspaceHint, userFolders, userStateDir } from "../trust/paths.ts";
import { widenings } from "../trust/rule.ts";
import { trustOf } from "../trust/trust.ts";

export type Status = "ok" | "fail" | "warn" | "info";
export interface Check {
  readonly check: string;
  readonly status: Status;
  readonly detail: string;
  readonly fix?: string;
}

const check = (name: string, status: Status, detail: string, fix?: string): Check => ({
  check: name,
  status,
  detail,
  ...(fix ? { fix } : {}),
});

const BY: Record<string, string> = {
  flag: "it is yours (--config)",
  "user-env": "it is yours ($TOOLGATE_CONFIG outside the checkout)",
  TOOLGATE_TRUST: "TOOLGATE_TRUST pins its digest",
  record: "your trust record",
};

export async function configChecks(config: Effective, file: ConfigFile | null, input: BootInput): Promise<Check[]> {
  if (!file)
    return [
      check("config", "ok", "none found: the embedded default (the built-in tools over this folder, no servers)"),
    ];
  const where = `${file.path}${file.client ? " (another client's config: its servers only)" : ""}`;
  const authored = await authoredLoader(config);
  const trust = trustOf(file, {
    env: input.env,
    cwd: input.cwd,
    workspaceFlag: input.workspaceFlag,
    workspace: config.values.workspace,
    ...(authored ? { authoredDigests: authored.digests } : {}),
  });
  if (trust) return [check("config", "ok", `${where}, trusted: ${BY[trust.by] ?? trust.by}`)];
  const wide = widenings({ file, values: config.values, workspaceFlag: input.workspaceFlag !== undefined });
  if (wide.length === 0)
    return [
      check(
        "config",
        "ok",
        `${where}, not trusted: it only narrows, which needs no trust`,
        `toolgate trust ${file.path} lets it widen too`,
      ),
    ];
  return [
    check(
      "config",
      "fail",
      `${where} is not trusted, and it would widen: ${wide.map((w) => w.key).join(", ")}; every command ` +
        `refuses it (exit 5)`,
      `review it, then toolgate trust ${file.path}`,
    ),
  ];
}

/** Unprivileged user namespaces, which bubblewrap needs unless it runs as root. */
function userNamespaces(): { ok: boolean; detail: string; fix?: string } {
  if (process.geteuid?.() === 0)
    return {
      ok: true,
      detail: `not needed: toolgate runs as root${hostPlatform().seccompFilter !== null ? "" : ` (but there is no seccomp filter for ${process.arch})`}`,
    };
  if (sysctl("user/max_user_namespaces") === "0")
    return { ok: false, detail: "off: user.max_user_namespaces is 0", fix: "sysctl -w user.max_user_namespaces=15000" };
  if (sysctl("kernel/unprivileged_userns_clone") === "0")
    return {
      ok: false,
      detail: "off for users: kernel.unprivileged_userns_clone is 0",
      fix: "sysctl -w kernel.unprivileged_userns_clone=1",
    };
  if (sysctl("kernel/apparmor_restrict_unprivileged_userns") === "1")
    return {
      ok: false,
      detail: "restricted by AppArmor (kernel.apparmor_restrict_unprivileged_userns is 1)",
      fix:
        "give bwrap an AppArmor profile that allows userns, or sysctl -w " +
        "kernel.apparmor_restrict_unprivileged_userns=0",
    };
  return { ok: true, detail: "allowed" };
}

export async function sandboxChecks(
  config: Effective | undefined,
  cwd: string,
  env: BootInput["env"],
): Promise<Check[]> {
  const mode = config?.values.sandbox ?? "off";
  const origin = config?.leaves.get("sandbox")?.origin ?? "default";
  // A missing piece fails the doctor only when the configured mode needs it.
  const needed = (m: string) => (m === mode ? "fail" : "warn");
  const configured = (m: string) => (m === mode ? ` (configured: sandbox, from ${origin})` : "");
  const out: Check[] = [];
  const bwrap = findOnPath("bwrap", BASE_ENV.PATH!);
  const anyNeeds = mode === "off" ? "warn" : "fail";
  out.push(
    bwrap
      ? check("bubblewrap", "ok", bwrap.real)
      : check(
          "bubblewrap",
          anyNeeds,
          `not found on the children's PATH (${BASE_ENV.PATH}): the product and bench modes cannot be had`,
          "apt-get install -y bubblewrap",
        ),
  );
  const ns = userNamespaces();
  out.push(check("user namespaces", ns.ok ? "ok" : anyNeeds, ns.detail, ns.fix));
  out.push(check("sandbox off", "ok", `always: the scrubbed environment only, no isolation${configured("off")}`));
  const workspace = config?.values.workspace ?? cwd;
  for (const m of ["product", "bench"] as const) {
    if (process.platform !== "linux") {
      out.push(
        check(
          `sandbox ${m}`,
          needed(m),
          `needs Linux (this is ${process.platform})${configured(m)}`,
          'set "sandbox": "off"',
        ),
      );
      continue;
    }
    const state = config?.values.state ?? `${workspace}/.toolgate`;
    const sb = sandboxFor({
      mode: m,
      workspace,
      stateDir: state,
      scratch: config?.values.scratch ?? `${state}/scratch`,
      network: false,
      hide: userFolders(env),
    });
    const problem = await sandboxProblem(sb, workspace);
    out.push(
      problem === null
        ? check(`sandbox ${m}`, "ok", `bubblewrap runs a program in it${configured(m)}`)
        : check(`sandbox ${m}`, needed(m), `${problem}${configured(m)}`, SANDBOX_HINT),
    );
  }
  return out;
}

export function stateChecks(config: Effective, env: BootInput["env"]): Check[] {
  const dir = config.values.state;
  const origin = config.leaves.get("state")?.origin ?? "default";
  const out: Check[] = [];
  const refused = stateFolderProblem(dir, true);
  const unusable = refused ? null : probeState(dir);
  if (refused) out.push(check("state folder", "fail", refused.message, refused.hint));
  else if (unusable)
    out.push(
      check(
        "state folder",
        "fail",
        `${dir} cannot be written (${whyUnusable(unusable)}; state, from ${origin})`,
        'make it a writable folder, or set "state" in the config to one',
      ),
    );
  else
    out.push(check("state folder", "ok", `${dir}: writable (state, from ${origin}); the journal, tasks and artifacts`));
  const user = userStateDir(env);
  const workspace = config.values.workspace;
  if (user === null)
    out.push(
      check(
        "user state folder",
        "warn",
        `${NO_USER_STATE}: no trust record or remembered approval can be kept`,
        "set HOME, or XDG_STATE_HOME",
      ),
    );
  else if (stateInWorkspace(user, workspace))
    out.push(
      check(
        "user state folder",
        "warn",
        `${user} lies inside the workspace: its trust records and remembered approvals are never read`,
        stateInWorkspaceHint,
      ),
    );
  else {
    const problem = probeState(user);
    out.push(
      problem
        ? check(
            "user state folder",
            "warn",
            `${user} cannot be written (${whyUnusable(problem)})`,
            "make it writable, or set XDG_STATE_HOME",
          )
        : check("user state folder", "ok", `${user}: trust records, remembered approvals, tokens`),
    );
  }
  return out;
}

/** Each configured server started and listed now (the catalog cache is not used), as `tools --refresh` does. */
export async function serverChecks(input: BootInput, config: Effective): Promise<Check[]> {
  const servers = Object.keys(config.values.mcpServers ?? {});
  const las = config.values.las.enabled === true;
  if (servers.length === 0 && !las) return [check("servers", "info", "none configured (mcpServers, las)")];
  let booted: Awaited<ReturnType<typeof boot>>;
  try {
    booted = await boot({ ...input, refresh: true });
  } catch (e) {
    return [
      check(
        "servers",
        "fail",
        `the boot failed, so no server was checked: ${(e as Error).message}`,
        (e as { hint?: string }).hint,
      ),
    ];
  }
  try {
    return (booted.remote?.status ?? []).map((st) => {
      const name = st.origin;
      if (st.withheld !== undefined) return check(name, "fail", `started, but its tools are withheld: ${st.withheld}`);
      if (st.ok) return check(name, "ok", `started and listed ${st.tools} tool${st.tools === 1 ? "" : "s"}`);
      const refusal = st.refused;
      const flag = (refusal?.details as { flag?: string } | undefined)?.flag;
      if (refusal)
        return check(
          name,
          "warn",
          refusal.message,
          `a config cannot grant a server's start: run toolgate doctor ${flag ?? "--allow-run"} to check it`,
        );
      return check(name, "fail", `${st.error ?? "failed"}`, `toolgate tools --refresh lists it again once fixed`);
    });
  } finally {
    await booted.remote?.shutdown();
  }
}

const OTLP_TIMEOUT_MS = 3_000;

/** The telemetry endpoint, when the environment names one: an empty export it must accept. */
export async function telemetryChecks(env: BootInput["env"]): Promise<Check[]> {
  const t = telemetrySettings(env);
  if (!t.on)
    return [
      t.problem
        ? check("telemetry", "fail", t.problem, "fix the OTEL_* variable, or unset it")
        : check("telemetry", "info", "off (OTEL_EXPORTER_OTLP_ENDPOINT is not set)"),
    ];
  const headers: Record<string, string> = {
    "content-type": t.protocol === "http/json" ? "application/json" : "application/x-protobuf",
  };
  for (const name of ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"]) {
    for (const pair of (env[name] ?? "").split(",")) {
      const eq = pair.indexOf("=");
      if (eq > 0) headers[pair.slice(0, eq).trim().toLowerCase()] = decodeURIComponent(pair.slice(eq + 1).trim());
    }
  }
  // An export with no spans: what an idle exporter would send, accepted by any OTLP receiver.
  const r = await reach(
    t.endpoint,
    { method: "POST", headers, body: t.protocol === "http/json" ? "{}" : "" },
    OTLP_TIMEOUT_MS,
  );
  const where = `${endpointView(t.endpoint)} (${t.endpointVar}, ${t.protocol})`;
  if (!r.ok)
    return [
      check(
        "telemetry",
        "fail",
        `${where}: unreachable: ${escapeControl(r.error)}`,
        `start the collector, or correct ${t.endpointVar}`,
      ),
    ];
  if (r.status >= 200 && r.status < 300)
    return [check("telemetry", "ok", `${where}: accepted an empty export (${r.status})`)];
  return [
    check(
      "telemetry",
      "fail",
      `${where}: answered ${r.status} to an empty export: spans would be refused`,
      r.status === 401 || r.status === 403 ? "check OTEL_EXPORTER_OTLP_HEADERS" : `check the path (${t.endpointVar})`,
    ),
  ];
}
