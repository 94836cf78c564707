// The factory that turns authored tools (a folder per tool: tool.json and an executable) into
// catalog sources, as builtin.ts does for built-ins. A call runs the executable through the
// launcher (ctx.processes, sandboxed) with the JSON arguments on stdin; the one JSON value it
// prints is the success value, so the pipeline's full output boundary checks exactly that.
import { readFileSync } from "node:fs";
import { basename, isAbsolute, resolve } from "node:path";
import type { Execution } from "../launcher/types.ts";
import type { Need, PermKind } from "../permission/types.ts";
import { ok, refuse, type Outcome, type Refusal } from "../result/result.ts";
import { NEED_KINDS, type Manifest } from "./authored-manifest.ts";
import { normalizeName, type ToolSource } from "./catalog.ts";
import type { ToolContext } from "./declare.ts";
import type { Terms } from "./terms.ts";

export const AUTHORED_ORIGIN = "authored";
/** stdout past this is refused unread: the output boundary allows 64 KiB, pretty-printing some more. */
export const MAX_STDOUT_BYTES = 1024 * 1024;
/** The end of stderr a failed run reports (code points). */
export const STDERR_TAIL_CHARS = 2_000;
/** What `toolgate tools` says for a tool whose manifest's own "never" was ignored: the config is not trusted. */
export const WAIVER_IGNORED =
  'its tool.json says "approval": "never", which holds only under a trusted config (`toolgate trust`): ' +
  "approval is required";
/** ... or the trust does not cover this manifest: it was added or changed after `toolgate trust`. */
export const WAIVER_STALE =
  'its tool.json says "approval": "never", but this tool was added or changed after the config was trusted ' +
  "(`toolgate trust` records each authored tool it covers): approval is required until you review it and run " +
  "`toolgate trust` again (in CI: TOOLGATE_TRUST from `toolgate trust --print`)";

/**
 * Whether a manifest's own "approval": "never" holds (trust covers what the repository
 * runs): only when the trust covers this manifest as it is now; otherwise the config is
 * untrusted, or the tool was added or changed since it was trusted.
 */
export type Waiver = "honoured" | "untrusted" | "changed";
/** The call's deadline outlasts the tool's timeout by the launcher's TERM-to-KILL grace and the reaping. */
const DEADLINE_SLACK_MS = 10_000;

/**
 * The loaded manifests (loadManifests) as catalog sources. Fails (a boot failure) when a name
 * equals another tool's after normalization: no source has priority. `waiver` is asked only for
 * a manifest that says "approval": "never".
 */
export function authoredSources(
  manifests: readonly Manifest[],
  others: readonly ToolSource[],
  waiver: (m: Manifest) => Waiver,
  parentEnv: Readonly<Record<string, string | undefined>> = {},
): Outcome<ToolSource[]> {
  const collision = findCollision(manifests, others);
  if (collision) return { ok: false, refusal: collision };
  return ok(
    manifests.map((m) =>
      withSecrets(toSource(m, m.approval === "never" ? waiver(m) : "honoured"), envSecrets(m, parentEnv)),
    ),
  );
}

/** Named with both provenances (the manifest path for an authored one) so the rename is obvious. */
export function findCollision(manifests: readonly Manifest[], others: readonly ToolSource[]): Refusal | null {
  const seen = new Map<string, { name: string; from: string; manifest?: string }>();
  for (const s of others) seen.set(normalizeName(s.name), { name: s.name, from: s.origin });
  for (const m of manifests) {
    const key = normalizeName(m.name);
    const prior = seen.get(key);
    if (prior) {
      const rename = prior.manifest
        ? `rename one of them in ${prior.manifest} or ${m.path}`
        : `rename the authored tool in ${m.path}`;
      return {
        code: "catalog.collision",
        message:
          `tool name collision: "${prior.name}" from ${prior.from} and "${m.name}" from ${AUTHORED_ORIGIN} ` +
          `(${m.path}) are the same name after normalization ("${key}"); ${rename} (no source has priority)`,
      };
    }
    seen.set(key, { name: m.name, from: `${AUTHORED_ORIGIN} (${m.path})`, manifest: m.path });
  }
  return null;
}

/**
 * The parent's values of the variables a manifest's `needs.env` passes to the tool: secrets, like
 * a server's `${NAME}` bindings, so they are redacted from its result, refusals and the journal.
 */
export function envSecrets(m: Manifest, parentEnv: Readonly<Record<string, string | undefined>>): string[] {
  return (m.needs.env ?? []).map((n) => parentEnv[n]).filter((v): v is string => v !== undefined && v !== "");
}

const withSecrets = (s: ToolSource, secrets: readonly string[]): ToolSource =>
  secrets.length > 0 ? { ...s, terms: { ...s.terms, secrets } } : s;

/** `waiver`: whether the manifest's own "never" holds (default: it does not, as for an untrusted config). */
export function toSource(m: Manifest, waiver: Waiver = "untrusted"): ToolSource {
  const waived = m.approval === "never" && waiver === "honoured";
  return {
    origin: AUTHORED_ORIGIN,
    rawName: m.name,
    name: m.name,
    description: m.description,
    inputSchema: m.inputSchema,
    effect: m.effect,
    approval: waived ? "never" : "required",
    ...(m.approval === "never" && !waived ? { note: waiver === "changed" ? WAIVER_STALE : WAIVER_IGNORED } : {}),
    executable: m.identity,
    terms: authoredTerms(m),
    adapter: {
      needs: (_args, ctx) => ok(needsOf(m, ctx.workspace)),
      run: (args, ctx) => runAuthored(m, args, ctx),
    },
  };
}

/**
 * What an authored tool needs from the pipeline: the complete validator with the schema's defaults
 * filled in, the call's grants, the local-path rule on its output, its manifest's timeout_secs (the
 * longest `--timeout`, applied to its own run), and no secrets until its `needs.env` binds some.
 */
const authoredTerms = (m: Manifest): Terms => ({
  validation: { kind: "external", defaults: true },
  settle: { by: "grants" },
  boundary: { localPaths: { rule: "on" }, apps: false },
  secrets: [],
  audit: null,
  time: {
    kind: "own",
    deadlineMs: m.timeoutSecs * 1000 + DEADLINE_SLACK_MS,
    limit: () => ({ secs: m.timeoutSecs, setBy: `timeout_secs in ${m.name}'s tool.json` }),
  },
  acts: "outside",
});

/**
 * Static: running the tool itself, named by its folder (an authored tool is its own tool: a grant
 * of the program it starts, `--allow-run=bash`, does not cover it), the program checked against
 * denies only (`--deny-run=bash` still refuses it), then what the manifest declares, in kind order.
 */
export function needsOf(m: Manifest, workspace: string): Need[] {
  const note =
    `that is the authored tool ${m.name}, granted by its folder (or --allow-run for every program and ` +
    `tool); a grant of the program it starts (${basename(m.argv[0]!)}) does not cover it`;
  const needs: Need[] = [
    { kind: "run", value: m.folder, note },
    { kind: "run", value: m.program, denyOnly: true },
  ];
  for (const kind of NEED_KINDS) {
    for (const v of m.needs[kind] ?? [])
      needs.push({ kind, value: isPath(kind) && !isAbsolute(v) ? resolve(workspace, v) : v });
  }
  return needs;
}
const isPath = (k: PermKind) => k === "read" || k === "write";

export async function runAuthored(m: Manifest, args: unknown, ctx: ToolContext): Promise<Outcome<unknown>> {
  // The caller's --timeout, when shorter than the manifest's (it is never longer).
  const secs = Math.min(m.timeoutSecs, ctx.timeoutSecs ?? m.timeoutSecs);
  const setBy = secs < m.timeoutSecs ? "--timeout" : "timeout_secs in its tool.json";
  const ran = await ctx.processes.run({
    argv: m.argv,
    cwd: ctx.workspace,
    stdin: `${JSON.stringify(args)}\n`,
    deadlineMs: secs * 1000,
    allowEnv: m.needs.env ?? [],
    sandboxed: true,
  });
  // The launcher's details carry artifact paths; the code and message say what went wrong.
  if (!ran.ok) return refuse(ran.refusal.code, `${m.name}: ${ran.refusal.message}`);
  const x = ran.value;
  switch (x.ended) {
    case "timeout":
      return refuse(
        "authored.timeout",
        `${m.name} did not finish within ${secs} s (${setBy}); its process tree was ended`,
        {
          timeout_secs: secs,
          ...stderrOf(x),
        },
      );
    case "cancelled":
      return refuse("authored.cancelled", `${m.name} was cancelled; its process tree was ended`);
    case "signalled":
      return refuse("authored.exit", `${m.name} was ended by ${x.signal}`, { signal: x.signal, ...stderrOf(x) });
    case "exited":
      if (x.code !== 0)
        return refuse("authored.exit", `${m.name} exited with code ${x.code}`, { code: x.code, ...stderrOf(x) });
      return readResult(m.name, x);
  }
}

function stderrOf(x: Execution): { stderr: string; stderr_truncated: boolean } {
  const chars = Array.from(x.stderr.tail);
  const clipped = chars.length > STDERR_TAIL_CHARS;
  return {
    stderr: clipped ? chars.slice(-STDERR_TAIL_CHARS).join("") : x.stderr.tail,
    stderr_truncated: clipped || x.stderr.truncated,
  };
}

/** stdout must be exactly one JSON value; it is never echoed back when it is not. */
function readResult(name: string, x: Execution): Outcome<unknown> {
  const bad = (why: string) =>
    refuse(
      "authored.bad_output",
      `${name} ${why}; an authored tool prints exactly one JSON value on stdout (logs go to stderr). The ` +
        `output is not shown.`,
      { stdout_bytes: x.stdout.bytes },
    );
  if (x.outputAbandoned) return bad("left a process holding its stdout open, so the output may be incomplete");
  if (x.stdout.bytes > MAX_STDOUT_BYTES) {
    return refuse(
      "authored.output_too_large",
      `${name} printed ${x.stdout.bytes} bytes on stdout; at most ${MAX_STDOUT_BYTES} are read (and a result ` +
        `passes the output boundary only up to 64 KiB)`,
      {
        stdout_bytes: x.stdout.bytes,
        limit_bytes: MAX_STDOUT_BYTES,
      },
    );
  }
  let text = x.stdout.tail;
  // The launcher keeps a tail; the whole (redacted) stream is in its 0600 artifact file.
  if (x.stdout.truncated) {
    if (x.artifacts.stdout === null)
      return bad("printed more than the launcher kept, and its stdout artifact is missing");
    try {
      text = readFileSync(x.artifacts.stdout, "utf8");
    } catch {
      return bad("printed more than the launcher kept, and its stdout artifact cannot be read");
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") return bad("printed nothing");
  try {
    return ok(JSON.parse(text));
  } catch {
    return bad(`printed ${x.stdout.bytes} bytes that are not one JSON value`);
  }
}
