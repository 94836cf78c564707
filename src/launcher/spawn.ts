// Every child process toolgate starts is started here, and only here: an explicit argv, working
// folder and complete environment (never this process's own: a child sees exactly what it is given),
// its three streams and any further descriptors, and whether it leads a new session. What each
// caller adds around it:
// - launch.ts: a run (a tool's command): the checked spec, the sandbox's wrap or the guardian's argv,
//   a new session, output captured and supervised (supervise.ts), the spawn's errors made refusals;
// - server.ts: a long-lived MCP stdio server or LSP: the sandbox's wrap, a new session, open pipes;
// - guard.ts: the guardian (a new session; started ahead, its command on fd 3) and, inside it, the
//   command in the guardian's own session and group, on the guardian's streams;
// - detached.ts: toolgate again, outliving its starter (a session, a task's supervisor, the reaper):
//   a new session, stdin /dev/null, output to a file or nowhere, Bun's switches removed;
// - reaper.ts: the shell that starts the reaper once this process has exited (a new session);
// - browser.ts: the user's browser, on a desktop environment alone, in toolgate's session.

/** A child's stdin: nothing, a pipe, this process's own, bytes written at once, or a descriptor. */
export type ChildInput = "ignore" | "pipe" | "inherit" | Uint8Array | number;
/** A child's stdout or stderr: nowhere, a pipe, this process's own, a descriptor, or a file. */
export type ChildOutput = "ignore" | "pipe" | "inherit" | number | ReturnType<typeof Bun.file>;
/** A descriptor after the three streams (fd 3, 4, ...): a pipe to this process, or one of its descriptors. */
export type ChildExtra = "pipe" | number;

export interface SpawnSpec<In extends ChildInput, Out extends ChildOutput, Err extends ChildOutput> {
  readonly argv: readonly string[];
  /** The child's working folder. */
  readonly cwd: string;
  /** The child's whole environment: nothing of this process's is added. */
  readonly env: Readonly<Record<string, string>>;
  readonly stdio: readonly [In, Out, Err, ...ChildExtra[]];
  /**
   * "new": setsid(2), the child leads a new session and process group (a signal to the group reaches
   * its whole tree, and a terminal's signals do not); "same": it stays in this process's session and group.
   */
  readonly session: "new" | "same";
}

/** Starts the child, or throws what Bun throws (an errno in `code`: ENOENT, EACCES, ...). */
export function spawnChild<In extends ChildInput, Out extends ChildOutput, Err extends ChildOutput>(
  spec: SpawnSpec<In, Out, Err>,
): Bun.Subprocess<In, Out, Err> {
  const problem = specProblem(spec);
  if (problem) throw new TypeError(`toolgate cannot start a child: ${problem}`);
  return Bun.spawn([...spec.argv], {
    cwd: spec.cwd,
    env: { ...spec.env },
    detached: spec.session === "new",
    stdio: [...spec.stdio] as [In, Out, Err, ...ChildExtra[]],
  });
}

/** Checked at run time too: a caller typed loosely (a cast, JSON) still never hands on this process's environment. */
function specProblem(spec: SpawnSpec<ChildInput, ChildOutput, ChildOutput>): string | null {
  const { argv, cwd, env } = spec;
  if (!Array.isArray(argv) || argv.length === 0 || argv.some((a) => typeof a !== "string"))
    return "its argv must be a non-empty list of strings";
  if (typeof cwd !== "string" || cwd === "") return "its working folder must be given";
  if (env === null || typeof env !== "object" || Array.isArray(env))
    return "its environment must be given whole (an object of strings)";
  if (env === process.env) return "it is never given this process's own environment";
  for (const [name, value] of Object.entries(env))
    if (typeof value !== "string") return `the environment variable ${name} is not a string`;
  if (!Array.isArray(spec.stdio) || spec.stdio.length < 3) return "stdin, stdout and stderr must each be chosen";
  if (spec.session !== "new" && spec.session !== "same") return 'its session must be "new" or "same"';
  return null;
}
