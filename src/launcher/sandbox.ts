// The sandbox modes (docs/security.md): `off` is the scrubbed environment only; `product` and
// `bench` wrap every sandboxed run in bubblewrap. The boot probe runs that same wrapper around
// `true` through the launcher, so a mode that cannot be had fails the boot instead of running quieter;
// on a platform without bubblewrap the boot refuses them before (platform/facilities.ts sandboxUnavailable).
import { chownSync, mkdirSync } from "node:fs";
import type { SandboxMode } from "../catalog/declare.ts";
import { hostPlatform } from "../platform/host.ts";
import type { Facilities } from "../platform/facilities.ts";
import { childEnv } from "./env.ts";
import { createLauncher } from "./launch.ts";
import { bind, mountArgs, roBind, tmpfs, type Mount } from "./mount-list.ts";
import {
  controlMounts,
  hiddenFolders,
  inside,
  reachable,
  real,
  realHost,
  releasePlaceholders,
  socketMasks,
  systemMounts,
  type Host,
  type SystemView,
} from "./sandbox-mounts.ts";
import type { ArtifactSink, Sandbox, WrapContext } from "./types.ts";

export interface BwrapOptions {
  readonly mode: "product" | "bench";
  /** Bound read-write at its own path; the rest of the system is read-only. */
  readonly workspace: string;
  /**
   * Folders inside the workspace bound read-only again (the state folder: a sandboxed command must
   * not rewrite the journal or remembered approvals). A run's own working folder stays writable.
   */
  readonly readOnly?: readonly string[];
  /**
   * Control paths inside the workspace (.git, the config, the lock, the authored-tools folder):
   * read-only whether or not they exist yet (see controlMounts).
   */
  readonly protect?: readonly string[];
  /**
   * Folders inside a read-only one that stay writable (the scratch folder, where commands leave
   * what scratch_read reads). Made (0700) at a run when missing, unless `makeWritable` is false.
   */
  readonly writable?: readonly string[];
  readonly makeWritable?: boolean;
  /** The user's own toolgate folders: hidden wherever the sandbox would see them (hiddenFolders). */
  readonly hide?: readonly string[];
  /**
   * product: share the host network (a server whose config says it needs it, started on a bare
   * --allow-net). Never because a tool has a net grant: that is for toolgate's own requests.
   * bench always shares it.
   */
  readonly network: boolean;
  /** The bubblewrap program: a bare name is found on the child's fixed PATH. */
  readonly program?: string;
  /** The host as the mounts see it (tests inject one); default: this process's euid and the real files. */
  readonly host?: Partial<Host>;
  /**
   * Run the child under the seccomp filter that refuses setuid and setgid bits (platform/linux/seccomp.ts),
   * handed to bwrap as fd 3. Default: whenever this architecture has one; never where it has none.
   */
  readonly seccomp?: boolean;
}

/** A folder that cannot be made is left to bwrap, which then skips it (--bind-try). Made for `owner` when given. */
function makeFolder(p: string, owner: { readonly uid: number; readonly gid: number } | null): void {
  try {
    if (mkdirSync(p, { recursive: true, mode: 0o700 }) !== undefined && owner) chownSync(p, owner.uid, owner.gid);
  } catch {
    // Reported by what the command finds (a read-only folder), not by the launcher.
  }
}

/** The environment passes through unchanged, except that bwrap always sets PWD to the working folder. */
export function bwrapSandbox(o: BwrapOptions): Sandbox {
  const program = o.program ?? "bwrap";
  const shareNet = o.mode === "bench" || o.network;
  const workspace = real(o.workspace);
  const readOnly = (o.readOnly ?? []).map(real);
  const writable = (o.writable ?? []).map(real);
  const protect = [...new Set((o.protect ?? []).map(real))].filter((p) => inside(workspace, p) && p !== workspace);
  const host = o.host ? { ...realHost, ...o.host } : realHost;
  // Always, not only as root: the cost is one open per run, and every mode behaves the same.
  const filter = o.seccomp === false ? null : hostPlatform().seccompFilter;
  const seccomp = filter !== null;
  // Built once: the system's view is the same for every run of this process.
  let system: SystemView | undefined;
  // Host sockets its wraps covered: one gone before bwrap mounted over it is a reason to wrap again.
  const covered = new Set<string>();
  // Placeholders this sandbox's runs hold, removed by release() when the last run using one ends.
  const held: string[][] = [];
  /**
   * The run's mounts, in order. The workspace is writable, or read-only with only the run's own
   * folders writable (`ctx.writable`: a gate's copy, a child's state folder and worktree); the state
   * folder and control paths are read-only again over it. The working folder is never made
   * writable for being the working folder: one the system view hides (under /tmp or a home) is
   * shown read-only, before the workspace's own mounts, so it can uncover none of them.
   */
  const plan = (ctx: WrapContext): { mounts: Mount[]; placeholders: string[] } => {
    system ??= systemMounts({ workspace, shareNet, host });
    const runAs = system.runAs;
    const canReach = (p: string) => runAs === null || reachable(p, workspace, runAs);
    const cwd = real(ctx.cwd);
    const only = ctx.writable?.map(real);
    const open = [workspace, ...(only ?? writable), ...(ctx.home ? [ctx.home] : [])];
    const hiddenCwd = !open.some((p) => inside(p, cwd)) && system.covered.some((c) => inside(c, cwd));
    // Over the working folder again: the system's masks that lie in it, or hold it.
    const masksAgain = hiddenCwd ? system.masks.filter((m) => inside(cwd, m.target) || inside(m.target, cwd)) : [];
    // A read-only workspace holds its missing control paths already: no placeholder is made.
    const control = only ? { mounts: [], placeholders: [] } : controlMounts(protect, workspace, host);
    const mounts: Mount[] = [
      ...system.mounts,
      ...(hiddenCwd ? [roBind(cwd), ...masksAgain] : []),
      only ? roBind(workspace) : bind(workspace),
      ...readOnly.filter(canReach).map((p) => roBind(p, true)),
      ...control.mounts,
      ...(only ? [] : writable).filter(canReach).map((p) => bind(p, true)),
      ...(only ?? []).map((p) => bind(p)),
      // The run's own HOME, inside the read-only state folder.
      ...(ctx.home && canReach(ctx.home) ? [bind(ctx.home)] : []),
      // Last: a socket in the workspace would otherwise be uncovered by its bind.
      ...socketMasks(system, hiddenCwd ? [workspace, cwd] : [workspace], host, covered),
      // Then the user's own folders over all of it (a socket masked inside one lies under the tmpfs).
      ...hiddenFolders(o.hide ?? [], { workspace, cwd, host, system }).map((p) => tmpfs(p, true)),
    ];
    return { mounts, placeholders: control.placeholders };
  };
  return {
    name: o.mode,
    plan(ctx) {
      const { mounts, placeholders } = plan(ctx);
      releasePlaceholders(placeholders, host);
      return mounts;
    },
    wrap(argv, ctx) {
      const { mounts, placeholders } = plan(ctx);
      if (o.makeWritable !== false) for (const p of writable) makeFolder(p, system!.runAs);
      held.push(placeholders);
      return [
        ...system!.before,
        program,
        ...system!.flags,
        ...mountArgs(mounts),
        ...(seccomp ? ["--seccomp", "3"] : []),
        "--chdir",
        real(ctx.cwd),
        "--",
        ...argv,
      ];
    },
    ...(filter ? { openFds: () => [filter.open()] } : {}),
    vanished: (stderr) => {
      const at = /^bwrap: Can't (?:create file|mount [^:]*) at ([^:]+):/.exec(stderr.trim())?.[1];
      return at !== undefined && covered.has(at) && !host.sockets().includes(at);
    },
    release() {
      const placeholders = held.shift();
      if (placeholders) releasePlaceholders(placeholders, host);
    },
    startFailure: bwrapStartFailure,
  };
}

/**
 * bwrap reports its own failures as one "bwrap: ..." line and exit code 1: the program never ran.
 * execvp failures name the errno; any other such line is a sandbox set-up failure.
 */
export function bwrapStartFailure(code: number, stderr: string): string | null {
  const text = stderr.trim();
  if (code !== 1 || !text.startsWith("bwrap: ") || text.includes("\n")) return null;
  const exec = /^bwrap: execvp .*: (.+)$/.exec(text);
  if (!exec) return "ESANDBOX";
  const reason = exec[1]!;
  return reason.startsWith("No such file") ? "ENOENT" : reason.startsWith("Permission denied") ? "EACCES" : "EEXEC";
}

/** What the boot says about the sandbox, and the wrapper handed to the process runner. */
export interface BootSandbox {
  readonly mode: SandboxMode;
  /** undefined for `off`. */
  readonly wrapper: Sandbox | undefined;
  /** One line for people: the mode and what it isolates. */
  readonly summary: string;
  /** The same wrapper for the boot probe, which creates nothing. */
  readonly probe?: Sandbox;
}

export interface SandboxInput {
  readonly mode: SandboxMode;
  readonly workspace: string;
  readonly stateDir: string;
  /** Writable even when it lies in the (read-only) state folder. */
  readonly scratch: string;
  /**
   * product: the wrapper shares the host network (a server that declares it needs it, on a bare
   * --allow-net). The boot's own wrapper never does: a net grant is for toolgate's own requests.
   */
  readonly network: boolean;
  /** Read-only even inside the writable workspace (.git, toolgate's config, lock, authored tools). */
  readonly protect?: readonly string[];
  /** The user's own toolgate folders (trust/paths.ts userFolders): no sandbox sees them. */
  readonly hide?: readonly string[];
  /** The host as the mounts see it (tests inject one). */
  readonly host?: Partial<Host>;
  /** What this platform has (default: this process's); a boot refuses product and bench without bubblewrap first. */
  readonly platform?: Facilities;
}

export function sandboxFor(input: SandboxInput): BootSandbox {
  if (input.mode === "off")
    return { mode: "off", wrapper: undefined, summary: "off (the scrubbed environment only: no isolation)" };
  const platform = input.platform ?? hostPlatform();
  // Never a quieter run: the boot checked this (runtime/boot.ts); reaching here without is a bug.
  if (!platform.bubblewrap)
    throw new Error(`the sandbox mode "${input.mode}" needs bubblewrap, which ${platform.os} does not have`);
  const net =
    input.mode === "bench" ? "network shared" : input.network ? "network shared: a server that needs it" : "no network";
  const [workspace, stateDir, scratch] = [real(input.workspace), real(input.stateDir), real(input.scratch)];
  const stateInside = inside(workspace, stateDir) && stateDir !== workspace;
  const readOnly = stateInside ? [stateDir] : [];
  const writable = stateInside && inside(stateDir, scratch) ? [scratch] : [];
  const protect = input.protect ?? [];
  const options: BwrapOptions = {
    mode: input.mode,
    workspace: input.workspace,
    network: input.network,
    readOnly,
    protect,
    writable,
    hide: input.hide ?? [],
    ...(input.host ? { host: input.host } : {}),
  };
  return {
    mode: input.mode,
    wrapper: bwrapSandbox(options),
    probe: bwrapSandbox({ ...options, makeWritable: false }),
    summary: `${input.mode} (bubblewrap: read-only system, writable workspace, private /tmp, new PID namespace, ${net})`,
  };
}

const PROBE_DEADLINE_MS = 10_000;

/** Output of the probe is read from its tail; nothing is written to the state folder at boot. */
const discard = (path: string): ArtifactSink => ({ path, write() {}, close() {} });

/**
 * Runs `true` inside the wrapper through the launcher. Null when the sandbox works; otherwise the
 * reason (bwrap missing, namespaces refused), for a boot failure.
 */
export async function probeSandbox(sandbox: Sandbox, cwd: string): Promise<string | null> {
  const env = childEnv({ parent: {} });
  if (!env.ok) return env.refusal.message;
  const launcher = createLauncher({ redactor: () => ({ push: (s) => s, flush: () => "" }), openSink: discard });
  const r = await launcher.launch({
    argv: ["true"],
    env: env.value,
    cwd,
    deadlineMs: PROBE_DEADLINE_MS,
    graceMs: 200,
    artifactsDir: cwd,
    sandbox,
  });
  if (!r.ok) {
    const { refusal } = r;
    if (refusal.code !== "launch.spawn_failed") return refusal.message;
    const { errno, stderr } = refusal.details;
    if (stderr) return `bubblewrap could not set up the ${sandbox.name} sandbox: ${lastLine(stderr)}`;
    if (errno === "ENOENT")
      return `bubblewrap (bwrap) is not installed: not found on the child's PATH (${env.value.vars.PATH})`;
    return `bubblewrap (bwrap) cannot be started (${errno}): ${refusal.message}`;
  }
  const v = r.value;
  if (v.ended === "exited" && v.code === 0) return null;
  if (v.ended === "timeout")
    return `bubblewrap did not set up the ${sandbox.name} sandbox within ${PROBE_DEADLINE_MS / 1000} s`;
  const how = v.ended === "exited" ? `exit code ${v.code}` : v.ended === "signalled" ? `signal ${v.signal}` : v.ended;
  return (
    `bubblewrap could not run a program in the ${sandbox.name} sandbox ` +
    `(${how})${v.stderr.tail.trim() ? `: ${lastLine(v.stderr.tail)}` : ""}`
  );
}

/** Probes a boot's sandbox: null when it works (or is off), else the boot failure's message. */
export async function sandboxProblem(sb: BootSandbox, cwd: string): Promise<string | null> {
  if (!sb.wrapper) return null;
  // As root without the filter, a child could leave a setuid-root program in the workspace.
  if (realHost.asRoot && !hostPlatform().seccomp) {
    return (
      `the sandbox mode "${sb.mode}" cannot be had as root on ${process.arch}: toolgate has a seccomp filter ` +
      `against setuid and setgid bits only for x64 and arm64; run toolgate as an ordinary user, or set ` +
      `"sandbox": "off" in toolgate.json`
    );
  }
  const why = await probeSandbox(sb.probe ?? sb.wrapper, cwd);
  return why === null ? null : `the sandbox mode "${sb.mode}" cannot be had: ${why}`;
}

const lastLine = (s: string) => s.trim().split("\n").pop()!.trim();

/** The fix a failed probe's message ends with. */
export const SANDBOX_HINT =
  "install bubblewrap (`apt-get install -y bubblewrap`) and allow unprivileged user namespaces, or set " +
  '"sandbox": "off" in toolgate.json';
