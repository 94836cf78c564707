// Children die with their parent (docs/security.md, sandbox off): toolgate killed with
// `kill -9` can end nothing, so an unsandboxed command starts under a guardian, `toolgate __guard`
// (the same executable). The guardian asks for a signal when toolgate dies (PR_SET_PDEATHSIG) and
// checks toolgate is still its parent after asking (else it ran too late and starts nothing); it
// is a child subreaper, so every process of the command's tree stays below it, whatever session
// or group it made or whoever its parent was. On that signal it kills all of them and exits. While
// toolgate lives it only relays: the command's stdin, stdout and stderr are its own, TERM from the
// launcher reaches the command through the group (the guardian ignores it), and it ends as the
// command did (its exit code, or the same signal). A bwrap sandbox needs none (--die-with-parent
// and its PID namespace). Without prctl (not Linux) it polls its parent pid instead, and ends the
// command's process group: what left that group is not found (docs/security.md, "Platforms").
import { readFileSync, writeSync } from "node:fs";
import { closeQuietly } from "../fs/opened.ts";
import { hostPlatform, type Platform } from "../platform/host.ts";
import { watchParent } from "../platform/portable/parent-watch.ts";
import { selfArgv } from "./detached.ts";
import { isLive } from "./proc-tree.ts";
import { spawnChild } from "./spawn.ts";
import { ownChildren } from "./subreaper.ts";

export const GUARD_COMMAND = "__guard";
/** The guardian could not start the command: it exits with this code and one line naming the errno. */
export const GUARD_SPAWN_FAILED = 125;
const SPAWN_FAILED_LINE = /^toolgate: __guard: cannot start the command: ([A-Z0-9]+)$/;

/** The parent-death signal: one nothing else sends the guardian (TERM comes from the launcher's stop). */
const DEATH_SIGNAL = "SIGUSR2";
const SIGUSR2 = 12;
/** Rounds of scan-and-kill: each ends what the last one re-parented to the guardian. */
const KILL_ROUNDS = 100;
const ROUND_PAUSE_MS = 5;

/**
 * toolgate's own argv prefix when this process is toolgate (the binary, or src/main.ts run by bun):
 * what starts a guardian. Undefined elsewhere (a test runner), where runs go unguarded, and where
 * there are no process groups (Windows), which a guardian's whole relay and ending rely on.
 */
export function guardSelf(platform: Pick<Platform, "processGroups"> = hostPlatform()): readonly string[] | undefined {
  if (!platform.processGroups) return undefined;
  const main = Bun.main;
  return main.startsWith("/$bunfs/") || main === process.execPath || main.endsWith("/src/main.ts")
    ? selfArgv()
    : undefined;
}

/**
 * The guardian's argv around a command: toolgate's own argv prefix (detached.ts selfArgv), this process as the
 * parent to watch.
 */
export const guardedArgv = (self: readonly string[], argv: readonly string[]): string[] => [
  ...self,
  GUARD_COMMAND,
  String(process.pid),
  "--",
  ...argv,
];

/** The errno when a guarded run's exit says the guardian could not start the command; else null. */
export function guardStartFailure(code: number, stderr: string): string | null {
  return code === GUARD_SPAWN_FAILED ? (SPAWN_FAILED_LINE.exec(stderr.trim())?.[1] ?? null) : null;
}

/** What a waiting guardian is told to run (on its fd 3, as JSON, then EOF). */
interface GuardSpec {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
}

/** A guardian started ahead of its command (warmGuard): its streams are the command's, fd 3 says what to run. */
export interface WarmGuard {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  readonly control: number;
}

let warm: WarmGuard | undefined;

/**
 * Starts a guardian that waits for its command, so that its start (the executable's, a few ms)
 * overlaps the rest of the call instead of delaying the command. One at a time; unused, it
 * ends when this process does (its fd 3 closes).
 */
export function warmGuard(self: readonly string[]): void {
  if (warm) return;
  try {
    // No environment and cwd "/": it gets the command's own with the command; it holds no folder meanwhile.
    const proc = spawnChild({
      argv: [...self, GUARD_COMMAND, String(process.pid), "--wait"],
      cwd: "/",
      env: {},
      stdio: ["pipe", "pipe", "pipe", "pipe"],
      session: "new",
    });
    const control = proc.stdio[3];
    if (typeof control !== "number") {
      proc.kill("SIGKILL");
      return;
    }
    proc.unref(); // it must not keep this process alive while unused
    ownChildren.add(proc.pid);
    warm = { proc: proc as Bun.Subprocess<"pipe", "pipe", "pipe">, control };
  } catch {
    // Then the run starts its own guardian.
  }
}

/** The waiting guardian, if one is alive, handed over for one run (it is then the run's leader). */
export function takeWarmGuard(): WarmGuard | undefined {
  const w = warm;
  warm = undefined;
  if (!w) return undefined;
  if (w.proc.exitCode !== null || w.proc.signalCode !== null) {
    closeQuietly(w.control);
    return undefined;
  }
  w.proc.ref();
  return w;
}

/**
 * Tells a waiting guardian its command (the environment never goes through argv: /proc/PID/cmdline is
 * world-readable).
 */
export function startWarm(w: WarmGuard, spec: GuardSpec, stdin: Uint8Array | undefined): void {
  try {
    writeSync(w.control, JSON.stringify(spec));
  } finally {
    closeQuietly(w.control);
  }
  // The command may end, or close its stdin, before reading all of it (or any, and before this
  // line runs on a busy machine): as with a cold start's stdin, that is the command's choice, not a
  // failure to start it. EPIPE now or from a later flush; any other error is still one.
  const unread = (e: unknown) => {
    if ((e as { code?: unknown } | null)?.code !== "EPIPE") throw e;
  };
  const quietly = (step: () => unknown) => {
    try {
      void Promise.resolve(step()).catch(unread);
    } catch (e) {
      unread(e);
    }
  };
  if (stdin) quietly(() => w.proc.stdin.write(stdin));
  quietly(() => w.proc.stdin.end());
}

/**
 * `toolgate __guard PARENT_PID -- ARGV...`, or `--wait` for the command on fd 3: the guardian's
 * whole life; its exit is the command's.
 */
export async function runGuard(args: readonly string[], platform: Platform = hostPlatform()): Promise<number> {
  const parent = Number(args[0]);
  const waits = args[1] === "--wait" && args.length === 2;
  if (!(parent > 1) || !(waits || (args[1] === "--" && args.length >= 3))) {
    process.stderr.write("toolgate: __guard is internal: it takes the command toolgate gives it\n");
    return 2;
  }
  const prctl = await platform.prctl();
  const end = () => endAll(platform);
  if (prctl) {
    prctl.becomeSubreaper();
    prctl.parentDeathSignal(SIGUSR2);
    process.on(DEATH_SIGNAL, end);
  } else watchParent(parent, end);
  // Asked after the parent may already have died: then the signal never comes, and nothing starts.
  if (process.ppid !== parent) return 1;
  // The launcher's TERM (a deadline, a cancel) is for the command; it reaches it through the group.
  const ignore = () => {};
  process.on("SIGTERM", ignore);
  process.on("SIGINT", ignore);
  let spec: GuardSpec = { argv: args.slice(2), env: process.env as Record<string, string>, cwd: process.cwd() };
  if (waits) {
    // Blocks until toolgate writes the command and closes its end (or dies: then there is none).
    const text = readFileSync(3, "utf8");
    if (text === "") return 0;
    spec = JSON.parse(text) as GuardSpec;
  }
  let child: ReturnType<typeof spawnChild>;
  try {
    // In the guardian's session and group: the launcher's TERM to the group reaches the command.
    child = spawnChild({
      argv: spec.argv,
      cwd: spec.cwd,
      env: { ...spec.env },
      stdio: ["inherit", "inherit", "inherit"],
      session: "same",
    });
  } catch (e) {
    const errno = typeof (e as { code?: unknown })?.code === "string" ? (e as { code: string }).code : "EUNKNOWN";
    process.stderr.write(`toolgate: __guard: cannot start the command: ${errno}\n`);
    return GUARD_SPAWN_FAILED;
  }
  const code = await child.exited;
  if (child.signalCode) {
    process.off("SIGTERM", ignore);
    process.off("SIGINT", ignore);
    process.kill(process.pid, child.signalCode);
    // Still here (a signal whose default is not to end a process): the shell's way of saying it.
    const { constants } = require("node:os") as typeof import("node:os");
    return 128 + (constants.signals[child.signalCode as keyof typeof constants.signals] ?? 0);
  }
  return code;
}

/**
 * Kills every descendant (all of them are below the subreaper), round after round, then exits.
 * Without a process table, the guardian's own process group (it leads it: the launcher spawned it
 * detached), itself included.
 */
function endAll(platform: Pick<Platform, "processes">): never {
  const table = platform.processes;
  if (!table) {
    try {
      process.kill(-process.pid, "SIGKILL");
    } catch {
      // Not a group leader after all: the command's own group is all there is to end.
    }
    process.exit(137);
  }
  const self = process.pid;
  for (let round = 0; round < KILL_ROUNDS; round++) {
    const all = table.scan() ?? [];
    const children = new Map<number, number[]>();
    for (const s of all) if (isLive(s)) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s.pid]);
    const below: number[] = [];
    for (let queue = [...(children.get(self) ?? [])]; queue.length > 0; ) {
      const pid = queue.pop()!;
      below.push(pid);
      queue.push(...(children.get(pid) ?? []));
    }
    if (below.length === 0) break;
    for (const pid of below) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
    Bun.sleepSync(ROUND_PAUSE_MS);
  }
  process.exit(137);
}
