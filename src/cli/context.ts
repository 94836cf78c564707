// What a command receives from the entry point: the world, injected (tests pass their own).
export interface RunContext {
  /** The command's own argv (after the command name), global flags included. */
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdoutIsTTY: boolean;
  readonly readStdin: () => Promise<string>;
}
