// The entry point: finds the command, loads it lazily, maps errors to exit codes.
// Only this file sets the exit code.
import { defineCommand } from "citty";
import { escapeControl } from "./result/escape.ts";
import { CliError, ExitCode } from "./result/result.ts";
import { VERSION } from "./version.ts";
import { isTerminal, useProcessStreams, writeStdout } from "./result/io.ts";
import { levelFrom, problem, raw } from "./result/human.ts";
import { markLongRunning } from "./result/lifetime.ts";
import type { CommandInfo, RunContext, World } from "./cli/context.ts";
import { scanFlags, takesValue, TOP_ARGS, type Args } from "./cli/flags.ts";
import { surelyNoSession } from "./session/none.ts";
import { actsFirst, bunSwitches } from "./launcher/bun-switches.ts";

type Loaded = { def: CommandInfo; run: (ctx: RunContext) => Promise<number> };
const COMMANDS: Record<string, () => Promise<Loaded>> = {
  call: () => import("./cli/call.ts").then((m) => ({ def: m.default, run: m.runCall })),
  tools: () => import("./cli/tools.ts").then((m) => ({ def: m.default, run: m.runTools })),
  config: () => import("./cli/config.ts").then((m) => ({ def: m.default, run: m.runConfig })),
  log: () => import("./cli/log.ts").then((m) => ({ def: m.default, run: m.runLog })),
  trust: () => import("./cli/trust.ts").then((m) => ({ def: m.default, run: m.runTrust })),
  serve: () => import("./cli/serve.ts").then((m) => ({ def: m.default, run: m.runServe })),
  session: () => import("./cli/session.ts").then((m) => ({ def: m.default, run: m.runSession })),
  tasks: () => import("./cli/tasks.ts").then((m) => ({ def: m.default, run: m.runTasks })),
  auth: () => import("./cli/auth.ts").then((m) => ({ def: m.default, run: m.runAuth })),
  approvals: () => import("./cli/approvals.ts").then((m) => ({ def: m.default, run: m.runApprovals })),
  completions: () => import("./cli/completions.ts").then((m) => ({ def: m.default, run: m.runCompletions })),
  doctor: () => import("./cli/doctor.ts").then((m) => ({ def: m.default, run: m.runDoctor })),
  version: () => import("./cli/version.ts").then((m) => ({ def: m.default, run: m.runVersion })),
  help: () => import("./cli/help.ts").then((m) => ({ def: m.default, run: m.runHelp })),
};

/** Commands whose process lives on: an MCP server, a session, a task's supervisor. */
const LONG_RUNNING = new Set(["serve", "session", "tasks"]);

/** Commands a live session may run for the caller (see src/session/client.ts). */
const FORWARDED = new Set(["call", "tools"]);

/** toolgate's own declaration: its flags, and each command's (loaded on demand) for help and completions. */
export const mainDef = defineCommand({
  meta: {
    name: "toolgate",
    version: VERSION,
    description:
      "One executable between a caller and every tool it may use: catalog, permissions, approval, output " +
      "boundary, journal.",
  },
  args: TOP_ARGS,
  subCommands: Object.fromEntries(Object.keys(COMMANDS).map((k) => [k, () => COMMANDS[k]!().then((c) => c.def)])),
});

/** Index of the command name: the first token that is neither a flag nor a global flag's value. */
function commandIndex(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const t = argv[i]!;
    if (t === "--") return -1;
    if (!t.startsWith("-") || t === "-") return i;
    if (!t.includes("=") && takesValue(t)) i++;
  }
  return -1;
}

/** toolgate's help, or a command's: wrapped to the output's width (src/cli/render-help.ts, loaded only for help). */
const printHelp = async (def: CommandInfo, env: World["env"]) =>
  (await import("./cli/render-help.ts")).printHelp(mainDef, def, env ?? process.env);

async function readStdin(): Promise<string> {
  return await Bun.stdin.text();
}

export async function main(argv: readonly string[], world: World = {}): Promise<number> {
  // A command's guardian (src/launcher/guard.ts): the first thing, before any other import.
  if (argv[0] === "__guard" && world.via === undefined)
    return (await import("./launcher/guard.ts")).runGuard(argv.slice(1));
  // A cold call's servers, shut down off its caller's path (src/launcher/reaper.ts): not a command.
  // It also sends a one-shot call's spans when it was handed some (src/telemetry/telemetry.ts).
  if (argv[0] === "__reap" && world.via === undefined) {
    const env = world.env ?? process.env;
    const spans =
      env.TOOLGATE_REAP_SPANS === undefined
        ? undefined
        : import("./telemetry/telemetry.ts").then((t) => t.exportHandedOver(env, (line) => raw(`${line}\n`)));
    const code = await (await import("./launcher/reaper.ts")).runReaper(argv[1], env);
    await spans;
    return code;
  }
  const wantsHelp = argv.includes("--help") || argv.includes("-h");
  const at = commandIndex(argv);
  // A session runs what its client forwards, and only that, whatever a connection sends it.
  if (world.via === "session" && (at < 0 || !FORWARDED.has(argv[at]!) || wantsHelp)) {
    const what = at < 0 ? "no command" : wantsHelp ? "--help" : `"${argv[at]}"`;
    throw new CliError(
      ExitCode.usage,
      `a session runs only call and tools, not ${what}: nothing was run`,
      "other commands run only as commands of their own; a client forwards only call and tools without --help",
    );
  }
  if (at < 0) {
    if (argv.includes("--version") || argv.includes("-V")) {
      writeStdout(`toolgate ${VERSION}\n`);
      return 0;
    }
    // No command: a flag toolgate does not know is named (what, and the --help hint), not met with the whole usage.
    if (!wantsHelp) scanFlags(argv, TOP_ARGS);
    await printHelp(mainDef, world.env);
    return wantsHelp ? 0 : ExitCode.usage;
  }
  const name = argv[at]!;
  const load = COMMANDS[name];
  if (!load) {
    throw new CliError(
      ExitCode.usage,
      `unknown command "${name}"`,
      `the commands are: ${Object.keys(COMMANDS).join(", ")}; run toolgate --help`,
      { name, among: Object.keys(COMMANDS) },
    );
  }
  // The binary starts with the JIT reluctant (scripts/build.ts, jitPolicy): right for a cold command,
  // not for a process that serves or supervises for minutes, which gets the normal policy back. A
  // session makes it more reluctant still (src/cli/session-run.ts): each forwarded call is a short
  // run of mostly run-once code, and tiering up held memory for no faster call (scripts/bench-session.ts).
  // They write through process.stdout and process.stderr too (src/result/io.ts; serve guards stdout).
  if (LONG_RUNNING.has(name)) {
    if (name !== "session") Bun.unsafe.setJITPolicy(1);
    useProcessStreams();
    markLongRunning();
  }
  // A session for this workspace answers before anything heavy loads; none (or a stale one): cold.
  // Without a sessions folder, the client (its chunk, node:path) is not even loaded.
  if (
    FORWARDED.has(name) &&
    world.via === undefined &&
    !wantsHelp &&
    !argv.includes("--no-session") &&
    process.env.TOOLGATE_SESSION !== "off" &&
    !surelyNoSession(process.env)
  ) {
    const { forward } = await import("./session/client.ts");
    const code = await forward(argv, at, process.cwd(), process.env);
    if (code !== null) return code;
  }
  const cmd = await load();
  if (wantsHelp) {
    await printHelp(cmd.def, world.env);
    return 0;
  }
  const own = [...argv.slice(0, at), ...argv.slice(at + 1)];
  // Read with the command's own declaration, the one its help and completions show.
  const flags = scanFlags(own, (cmd.def.args ?? {}) as Args);
  levelFrom(flags.flags);
  return cmd.run({
    argv: own,
    flags,
    cwd: process.cwd(),
    env: process.env,
    stdoutIsTTY: isTerminal(1),
    readStdin,
    // The session runs each forwarded call through here (importing this module would be a cycle).
    dispatch: runMain,
    top: mainDef,
    ...world,
  });
}

/** main, with an error turned into its message on stderr and its exit code (a session's forwarded call too). */
export async function runMain(argv: readonly string[], world: World = {}): Promise<number> {
  try {
    return await main(argv, world);
  } catch (e) {
    if (e instanceof CliError) {
      problem(e.message + (await nearestOf(e.unknown)), e.hint);
      return e.exitCode;
    }
    if (world.via !== undefined && e instanceof Error && e.name === "NotThisSession") throw e;
    raw(`toolgate: internal error: ${((e as Error)?.stack ?? String(e)).split("\n").map(escapeControl).join("\n")}\n`);
    return ExitCode.failed;
  }
}

/** The words naming the nearest valid name to an unknown one, when one is close: loaded only for such a refusal. */
async function nearestOf(unknown: CliError["unknown"]): Promise<string> {
  if (unknown === undefined) return "";
  const { didYouMean, nearest } = await import("./result/suggest.ts");
  return didYouMean(nearest(unknown.name, unknown.among), unknown.show);
}

/** Set by scripts/build.ts for the one run that records the bytecode layout, never for dist/toolgate. */
declare const TOOLGATE_RECORDS_ORDER: boolean | undefined;

/**
 * Bun's runtime switches in the caller's environment (src/launcher/bun-switches.ts) are not obeyed.
 * Those Bun acted on before this code could run are refused (exit 2). The others toolgate starts
 * again without, same argv and pid: execve(2) runs nothing at exit, where some of them write.
 */
function withoutBunSwitches(found: readonly string[]): number {
  const first = found.filter(actsFirst);
  if (first.length > 0)
    return refuseSwitches(
      first,
      "Bun acted on them before toolgate's own code ran (a debugger, a module loaded first)",
      " (a VS Code terminal with Bun's extension sets BUN_INSPECT and BUN_INSPECT_NOTIFY)",
    );
  const env = { ...process.env };
  for (const name of found) delete env[name];
  const entry = Bun.main.startsWith("/$bunfs/") || Bun.main === process.execPath ? [] : [Bun.main];
  try {
    process.execve!(
      process.execPath,
      [process.argv0, ...entry, ...process.argv.slice(2)],
      env as Record<string, string>,
    );
  } catch (e) {
    return refuseSwitches(
      found,
      `toolgate could not start again without them (${(e as { code?: string })?.code ?? String(e)})`,
      "",
    );
  }
  return ExitCode.failed; // execve returns only by throwing
}

function refuseSwitches(names: readonly string[], why: string, where: string): number {
  problem(
    `${names.join(", ")} set: Bun's runtime switches are toolgate's own, not its caller's, and ${why}; nothing was run`,
    `unset ${names.join(" ")}${where}`,
  );
  return ExitCode.usage;
}

if (import.meta.main) {
  const found = bunSwitches(
    process.env,
    typeof TOOLGATE_RECORDS_ORDER === "boolean" && TOOLGATE_RECORDS_ORDER ? "BUN_BYTECODE_ORDER_OUT" : undefined,
  );
  process.exitCode = found.length > 0 ? withoutBunSwitches(found) : await runMain(process.argv.slice(2));
}
