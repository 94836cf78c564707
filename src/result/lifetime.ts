// Whether this process is a one-shot command (the default) or a long-running one (serve, a session,
// a task's supervisor), set by src/main.ts: a few choices trade a start's cost against a long life's
// speed (the JIT policy, process.stdout, how zod runs the MCP SDK's schemas).
let longRunning = false;

export function markLongRunning(): void {
  longRunning = true;
}

export function isLongRunning(): boolean {
  return longRunning;
}
