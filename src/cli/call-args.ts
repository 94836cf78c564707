// What `call` is given to call with: its arguments (one JSON object, @FILE, stdin or --arg pairs) and
// its --timeout, checked here so a bad one is a usage error before anything starts.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { usageError } from "../result/result.ts";
import { MAX_TIMEOUT_SECS } from "../runtime/timeout.ts";

/** `--timeout SECS`: seconds, more than 0 (a fraction too), at most what a timer can wait. */
export function parseTimeout(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const secs = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(secs) || secs <= 0 || secs > MAX_TIMEOUT_SECS) {
    throw usageError(`--timeout ${JSON.stringify(raw)}: expected a number of seconds, more than 0 and at most ${MAX_TIMEOUT_SECS}`, "for example --timeout 30, or --timeout 0.5");
  }
  return secs;
}

/** JSON positional, `@FILE` (relative to `cwd`), `-` (stdin), and/or `--arg k=v` pairs (values parse as JSON when they can). */
export async function parseCallArgs(json: string | undefined, pairs: readonly string[], readStdin: () => Promise<string>, cwd: string): Promise<unknown> {
  let args: unknown = {};
  if (json !== undefined) {
    const text = json === "-" ? await readStdin() : json.startsWith("@") ? argsFile(json.slice(1), cwd) : json;
    const where = json === "-" ? "stdin" : json.startsWith("@") ? json : "the arguments";
    try {
      args = JSON.parse(text);
    } catch (e) {
      throw usageError(`${where}: not valid JSON (${(e as Error).message})`, `pass one JSON object, e.g. '{"path":"README.md"}', or use --arg path=README.md`);
    }
  }
  if (pairs.length === 0) return args;
  if (args === null || typeof args !== "object" || Array.isArray(args)) throw usageError("--arg needs the JSON arguments (if any) to be an object");
  const out = { ...(args as Record<string, unknown>) };
  for (const p of pairs) {
    const eq = p.indexOf("=");
    if (eq <= 0) throw usageError(`--arg ${p}: expected key=value`, "for example --arg path=README.md or --arg limit=20");
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

/** The text of `@FILE`: a file named on the command line is the caller's own choice; one that cannot be read is a usage error. */
function argsFile(name: string, cwd: string): string {
  if (name === "") throw usageError("@: name the file holding the arguments", "toolgate call TOOL @args.json");
  const path = resolve(cwd, name);
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a folder, not a file" : code === "EACCES" ? "not readable" : (e as Error).message;
    throw usageError(`@${name}: ${why} (${path})`, "name a JSON file, relative to the current folder, e.g. @args.json");
  }
}
