// scratch_read: one of ls, cat, wc, head, tail, file, stat, given as an argv list (no shell, no
// globbing). Flags come from a small list per command; every other argument is a path that must
// resolve (symlinks followed) inside the scratch folder. The command never gets a name to look up:
// each checked path is opened here and verified (src/fs/opened.ts), and the child is handed that
// descriptor (/proc/<toolgate>/fd/N), so what was checked is what is read; where there is no /proc,
// the path it was verified at (platform/portable/fd-paths.ts: the weaker guarantee).
import { closeSync, fstatSync, statSync } from "node:fs";
import { defineTool } from "../../catalog/declare.ts";
import { CHANGED, changedMessage, O_NAMING, openChecked, reopenPath } from "../../fs/opened.ts";
import { resolveReal } from "../../fs/real-path.ts";
import type { Need } from "../../permission/types.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import type { StreamReport } from "../../launcher/types.ts";
import { streamView } from "./run-report.ts";
import { isInside } from "../files/workspace.ts";
import description from "./scratch-read.txt" with { type: "text" };

interface Rules {
  /** Single-letter flags without a value (combinable: -la). */
  readonly short: string;
  /** Single-letter flags taking a value (-n 5, -n5), with the value's shape. */
  readonly shortValued?: Readonly<Record<string, RegExp>>;
  /** Long flags, exactly. */
  readonly long?: readonly string[];
  /** Long flags with a value (--lines=5). */
  readonly longValued?: Readonly<Record<string, RegExp>>;
}

const COUNT = /^-?\d{1,12}$/;
const FROM = /^[+-]?\d{1,12}$/;
/**
 * Nothing here follows a link out (-L, --dereference), waits (tail -f) or descends by name
 * (ls -R: a folder swapped for a symlink mid-listing would be followed).
 */
export const RULES: Readonly<Record<string, Rules>> = {
  ls: { short: "aAlhr1tSdFinp" },
  cat: { short: "nbAEsTv" },
  wc: { short: "lwcmL" },
  head: { short: "qv", shortValued: { n: COUNT, c: COUNT }, longValued: { "--lines": COUNT, "--bytes": COUNT } },
  tail: { short: "qv", shortValued: { n: FROM, c: FROM }, longValued: { "--lines": FROM, "--bytes": FROM } },
  file: { short: "bi", long: ["--brief", "--mime", "--mime-type", "--mime-encoding"] },
  stat: { short: "t", long: ["--terse"] },
};
const COMMANDS = Object.keys(RULES);
const MAX_PATHS = 32;
const DEADLINE_MS = 10_000;
const STDOUT_BYTES = 40_000;
const STDERR_BYTES = 8_000;
/**
 * Each path reaches the child as a descriptor link, which these flags make it read as the object
 * it names (on the command line only: links inside a listed folder are still shown as links).
 */
const FOLLOW_ARGUMENT: Readonly<Record<string, readonly string[]>> = { ls: ["-H"], stat: ["-L"], file: ["-L"] };

export interface Checked {
  readonly command: string;
  readonly flags: readonly string[];
  /** Real absolute paths, inside the scratch folder. */
  readonly paths: readonly string[];
  /** The scratch folder's real path. */
  readonly root: string;
}

export default defineTool({
  name: "scratch_read",
  description: description.trimEnd().replace("{commands}", COMMANDS.join(", ")),
  input: (type) =>
    type({
      "+": "reject",
      argv: "1 <= string[] <= 64",
    }),
  effect: "read",
  approval: "required",
  needs: (args, ctx) => {
    const c = checkArgv(args.argv, ctx.scratch);
    if (!c.ok) return c;
    const paths = c.value.paths.length > 0 ? c.value.paths : [c.value.root];
    return ok(paths.map((value): Need => ({ kind: "read", value })));
  },
  handler: async (args, ctx) => {
    const c = checkArgv(args.argv, ctx.scratch);
    if (!c.ok) return c;
    const { command, flags, root } = c.value;
    // The real paths the permission stage checked (the pipeline passes them), else those just resolved.
    const paths = ctx.checked && c.value.paths.length > 0 ? ctx.checked.map((n) => n.value) : c.value.paths;
    const opened = openAll(root, [root, ...paths]);
    if (!opened.ok) return opened;
    const [rootLink, ...links] = opened.value.links;
    try {
      const rel = paths.map((p) => (p === root ? "." : p.slice(root.length + 1)));
      const argv = [command, ...(FOLLOW_ARGUMENT[command] ?? []), ...flags, ...(rel.length > 0 ? ["--", ...rel] : [])];
      const childArgv = [...argv.slice(0, argv.length - rel.length), ...links];
      // No sandbox needed: the program and its arguments are checked here; the environment is the scrubbed one.
      const run = await ctx.processes.run({
        argv: childArgv,
        cwd: rootLink!,
        deadlineMs: DEADLINE_MS,
        sandboxed: false,
      });
      if (!run.ok) return run;
      const e = run.value;
      // The child names the descriptor links; the result names the paths they stand for.
      const named = (r: typeof e.stdout) => renamed(r, links, rel);
      const report = {
        argv,
        exitCode: e.ended === "exited" ? e.code : null,
        ended: e.ended,
        stdout: streamView(named(e.stdout), STDOUT_BYTES),
        stderr: streamView(named(e.stderr), STDERR_BYTES),
      };
      if (e.ended === "exited" && e.code === 0) return ok(report);
      const how =
        e.ended === "exited"
          ? `exit code ${e.code}`
          : e.ended === "timeout"
            ? `a timeout after ${DEADLINE_MS / 1000} s`
            : e.ended;
      return refuse("scratch.exit", `${command} ended with ${how}; its stdout and stderr tails are in details`, report);
    } finally {
      for (const fd of opened.value.fds) closeSync(fd);
    }
  },
});

/** A stream with each descriptor link replaced by the path it stands for (the counts follow the tail). */
function renamed(r: StreamReport, links: readonly string[], rel: readonly string[]): StreamReport {
  if (links.length === 0) return r;
  // The longest first: one link may begin another (/proc/1/fd/1, /proc/1/fd/12).
  const any = new RegExp(
    [...links]
      .sort((a, b) => b.length - a.length)
      .map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("|"),
    "g",
  );
  const tail = r.tail.replace(any, (m) => rel[links.indexOf(m)]!);
  if (tail === r.tail) return r;
  const chars = (t: string) => [...t].length;
  return {
    ...r,
    tail,
    bytes: r.bytes + Buffer.byteLength(tail) - Buffer.byteLength(r.tail),
    chars: r.chars + chars(tail) - chars(r.tail),
  };
}

/**
 * Opens each checked path (O_PATH: any kind of file, no blocking), keeping it only if the descriptor
 * is the object at exactly that path; hands back the links a child opens them by.
 */
function openAll(root: string, paths: readonly string[]): Outcome<{ fds: number[]; links: string[] }> {
  const fds: number[] = [];
  const fail = (r: Outcome<never>) => {
    for (const fd of fds) closeSync(fd);
    return r;
  };
  for (const p of paths) {
    const rel = p === root ? "." : p.slice(root.length + 1);
    if (!isInside(root, p))
      return fail(
        refuse(
          "path.changed",
          `"${rel}" changed between its check and its use: it now resolves outside the scratch folder; nothing was run`,
        ),
      );
    const o = openChecked(p, O_NAMING);
    if (!o.ok && o.code === "ENOENT")
      return fail(refuse("scratch.path_missing", `"${rel}" does not exist in the scratch folder; ls lists what does`));
    if (!o.ok)
      return fail(
        o.code === CHANGED
          ? refuse("path.changed", changedMessage(rel, "nothing was run"))
          : refuse("scratch.path_invalid", `"${rel}" cannot be opened (${o.code})`),
      );
    fds.push(o.fd);
    // O_PATH with O_NOFOLLOW opens a symlink itself: the checked path was resolved, so one here is new.
    if (fstatSync(o.fd).isSymbolicLink()) return fail(refuse("path.changed", changedMessage(rel, "nothing was run")));
  }
  const links = fds.map(reopenPath);
  if (links.some((l) => l === null)) return fail(refuse("path.changed", changedMessage(".", "nothing was run")));
  return ok({ fds, links: links as string[] });
}

/** Splits argv into allowed flags and confined paths, or refuses naming what to change. */
export function checkArgv(argv: readonly string[], scratch: string): Outcome<Checked> {
  const [command, ...rest] = argv;
  const rules = command !== undefined && Object.hasOwn(RULES, command) ? RULES[command] : undefined;
  if (command === undefined || rules === undefined) {
    return refuse(
      "scratch.command_refused",
      `"${command ?? ""}" is not one of the commands scratch_read runs: ${COMMANDS.join(", ")}`,
      { commands: COMMANDS },
    );
  }
  const root = resolveReal(scratch, "/");
  if (root === null || !isDir(root))
    return refuse(
      "scratch.missing",
      `the scratch folder ${scratch} does not exist yet: toolgate makes it when a command runs (bash), and ` +
        `commands leave there what scratch_read reads (config key "scratch")`,
    );
  const flags: string[] = [];
  const paths: string[] = [];
  let onlyPaths = false;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (!onlyPaths && a === "--") {
      onlyPaths = true;
      continue;
    }
    if (!onlyPaths && a.startsWith("-")) {
      const took = checkFlag(command, rules, a, rest[i + 1]);
      if (!took.ok) return took;
      flags.push(...took.value);
      i += took.value.length - 1;
      continue;
    }
    const p = confine(a, root);
    if (!p.ok) return p;
    paths.push(p.value);
  }
  if (paths.length > MAX_PATHS)
    return refuse("scratch.too_many_paths", `at most ${MAX_PATHS} paths per call (got ${paths.length})`);
  return ok({ command, flags, paths, root });
}

/** The flag tokens consumed (one, or two for "-n 5"). */
function checkFlag(command: string, rules: Rules, a: string, next: string | undefined): Outcome<string[]> {
  const refused = () =>
    refuse("scratch.flag_refused", `${command} does not take "${a}" here; allowed: ${describe(rules)}`, {
      command,
      flag: a,
      allowed: describe(rules),
    });
  if (a.startsWith("--")) {
    if (rules.long?.includes(a)) return ok([a]);
    const eq = a.indexOf("=");
    const shape = eq > 0 ? rules.longValued?.[a.slice(0, eq)] : undefined;
    return shape?.test(a.slice(eq + 1)) ? ok([a]) : refused();
  }
  const letters = a.slice(1);
  if (letters === "") return refused(); // "-" is stdin, which is empty here
  for (let j = 0; j < letters.length; j++) {
    const l = letters[j]!;
    if (rules.short.includes(l)) continue;
    const shape = rules.shortValued?.[l];
    if (!shape) return refused();
    const attached = letters.slice(j + 1);
    if (attached !== "") return shape.test(attached) ? ok([a]) : refused();
    return next !== undefined && shape.test(next) ? ok([a, next]) : refused();
  }
  return ok([a]);
}

function describe(r: Rules): string {
  const parts = [...r.short].map((l) => `-${l}`);
  for (const l of Object.keys(r.shortValued ?? {})) parts.push(`-${l} N`);
  parts.push(...(r.long ?? []));
  for (const l of Object.keys(r.longValued ?? {})) parts.push(`${l}=N`);
  return parts.join(" ");
}

function confine(p: string, root: string): Outcome<string> {
  if (p.includes("\0")) return refuse("scratch.path_invalid", "a path contains a NUL character");
  if (p.startsWith("/"))
    return refuse("scratch.path_outside", `"${p}" is absolute; give a path relative to the scratch folder`);
  const real = resolveReal(p, root);
  if (real === null) return refuse("scratch.path_invalid", `"${p}" cannot be resolved (a symlink loop?)`);
  if (!isInside(root, real))
    return refuse("scratch.path_outside", `"${p}" resolves outside the scratch folder (scratch_read never leaves it)`);
  return ok(real);
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
