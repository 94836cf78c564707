// What `call` is given: its declaration (flags and help), then its command line checked and its
// arguments read (one JSON object, @FILE, stdin or --arg pairs), so that a bad one is a usage error
// before anything starts.
import { readFileSync } from "node:fs";
import { defineCommand } from "citty";
import { isTerminal, READING_STDIN, writeStderr } from "../result/io.ts";
import type { RunContext } from "./context.ts";
import { bool, multi, str, type Scanned } from "./flags.ts";
import { resolve } from "node:path";
import { usageError } from "../result/result.ts";
import { MAX_TIMEOUT_SECS } from "../runtime/timeout.ts";

export const callCommand = defineCommand({
  meta: {
    name: "call",
    description: "Run one tool call and print its result JSON (stdout) with the outcome's exit code",
  },
  args: {
    tool: { type: "positional", description: "Tool name (see `toolgate tools`)", required: false, complete: "tools" },
    args: {
      type: "positional",
      description:
        "Arguments as one JSON object, @FILE to read it from a file (relative to the current folder), or - to " +
        "read it from stdin",
      required: false,
    },
    arg: {
      type: "string",
      repeat: true,
      description: "key=value argument (repeatable); the value parses as JSON when it can, else is a string",
      valueHint: "k=v",
    },
    background: {
      type: "boolean",
      description:
        "Check permissions and approval here, then run the call as a background task: prints " +
        '{"task_id","status":"queued"} at once (see `toolgate tasks`)',
    },
    "write-scope": {
      type: "string",
      description:
        "With --background: a name only one active task may hold at a time (a second is refused task.write_scope_busy)",
      valueHint: "S",
    },
    profile: {
      type: "string",
      description:
        "Narrow the catalog for this call to a profile's tools (scout, writer, full, or one from the config's " +
        "profiles): a tool it leaves out is refused profile.excluded",
      valueHint: "NAME",
    },
    "dry-run": {
      type: "boolean",
      description:
        "Say what the call would need (each permission, the approval) and whether it would run now, as JSON: " +
        "nothing is asked, run or journaled; flags lists what to add",
    },
    timeout: {
      type: "string",
      description:
        "This call's deadline in seconds, in place of the tool's own, never past what the tool allows (an MCP " +
        "server's timeout_secs, an authored tool's timeout_secs, bash.max_timeout_secs, 300 s for other " +
        "built-ins; a longer one is cut to that, with a note); when it passes, the call's process tree is ended",
      valueHint: "SECS",
    },
  },
});

/** One `call` command line, checked: the tool, its arguments, and how to call it. */
export interface CallRequest {
  readonly s: Scanned;
  readonly tool: string;
  readonly args: unknown;
  readonly lane: string;
  readonly timeout: number | undefined;
  readonly background: boolean;
  readonly writeScope: string | undefined;
  readonly dryRun: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
}

export async function callRequest(ctx: RunContext): Promise<CallRequest> {
  const s = ctx.flags;
  const timeout = parseTimeout(str(s, "timeout"));
  const [background, dryRun, quiet, verbose] = [
    bool(s, "background"),
    bool(s, "dry-run"),
    bool(s, "quiet"),
    bool(s, "verbose"),
  ];
  if (dryRun && background)
    throw usageError(
      "--dry-run runs nothing, so nothing goes to the background",
      "drop one of --dry-run and --background",
    );
  const writeScope = str(s, "write-scope");
  if (writeScope !== undefined && !background)
    throw usageError("--write-scope goes with --background", "toolgate call TOOL ARGS --background --write-scope NAME");
  if (writeScope !== undefined && (writeScope === "" || writeScope.length > 200))
    throw usageError("--write-scope: give a name of 1-200 characters");
  const [tool, json, ...extra] = s.positionals;
  if (tool === undefined)
    throw usageError(
      "call needs a tool name",
      'toolgate call TOOL \'{"key":"value"}\' (toolgate tools lists the names)',
    );
  if (extra.length > 0)
    throw usageError(
      `unexpected argument "${extra[0]}"`,
      "give the arguments as ONE JSON object (quote it), as @FILE, as -, or as --arg key=value",
    );
  const lane = str(s, "lane") ?? "default";
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(lane))
    throw usageError(`--lane ${JSON.stringify(lane)}: a lane name is 1-64 letters, digits, "_", "." or "-"`);
  // On a terminal, `-` waits for typing: say so (a forwarded call's client says it: session/client.ts).
  if (json === "-" && ctx.via === undefined && !quiet && isTerminal(0)) writeStderr(READING_STDIN);
  const args = await parseCallArgs(json, multi(s, "arg"), ctx.readStdin, ctx.cwd);
  return { s, tool, args, lane, timeout, background, writeScope, dryRun, quiet, verbose };
}

/** `--timeout SECS`: seconds, more than 0 (a fraction too), at most what a timer can wait. */
export function parseTimeout(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const secs = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(secs) || secs <= 0 || secs > MAX_TIMEOUT_SECS) {
    throw usageError(
      `--timeout ${JSON.stringify(raw)}: expected a number of seconds, more than 0 and at most ${MAX_TIMEOUT_SECS}`,
      "for example --timeout 30, or --timeout 0.5",
    );
  }
  return secs;
}

/**
 * JSON positional, `@FILE` (relative to `cwd`), `-` (stdin), and/or `--arg k=v` pairs (values parse as JSON when
 * they can).
 */
export async function parseCallArgs(
  json: string | undefined,
  pairs: readonly string[],
  readStdin: () => Promise<string>,
  cwd: string,
): Promise<unknown> {
  let args: unknown = {};
  if (json !== undefined) {
    const text = json === "-" ? await readStdin() : json.startsWith("@") ? argsFile(json.slice(1), cwd) : json;
    const where = json === "-" ? "stdin" : json.startsWith("@") ? json : "the arguments";
    try {
      args = JSON.parse(text);
    } catch (e) {
      throw usageError(
        `${where}: not valid JSON (${(e as Error).message})`,
        `pass one JSON object, e.g. '{"path":"README.md"}', or use --arg path=README.md`,
      );
    }
  }
  if (pairs.length === 0) return args;
  if (args === null || typeof args !== "object" || Array.isArray(args))
    throw usageError("--arg needs the JSON arguments (if any) to be an object");
  const out = { ...(args as Record<string, unknown>) };
  for (const p of pairs) {
    const eq = p.indexOf("=");
    if (eq <= 0)
      throw usageError(`--arg ${p}: expected key=value`, "for example --arg path=README.md or --arg limit=20");
    const raw = p.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // not JSON: the string itself
    }
    out[p.slice(0, eq)] = value;
  }
  return out;
}

/**
 * The text of `@FILE`: a file named on the command line is the caller's own choice; one that cannot be read is a
 * usage error.
 */
function argsFile(name: string, cwd: string): string {
  if (name === "") throw usageError("@: name the file holding the arguments", "toolgate call TOOL @args.json");
  const path = resolve(cwd, name);
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why =
      code === "ENOENT"
        ? "no such file"
        : code === "EISDIR"
          ? "a folder, not a file"
          : code === "EACCES"
            ? "not readable"
            : (e as Error).message;
    throw usageError(`@${name}: ${why} (${path})`, "name a JSON file, relative to the current folder, e.g. @args.json");
  }
}
