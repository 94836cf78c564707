// Bun's own runtime switches read from the environment: toolgate's, never the caller's. A process
// of toolgate's never runs with one (src/main.ts refuses it or starts again without it), none is
// passed to one it starts itself (detached.ts), and a command may not be given one (env.ts: the
// guardian that runs it is toolgate). The entry imports this module on every start: no imports.
// docs/security.md has the survey of Bun's variables these come from.

/**
 * Acted on by Bun before any of toolgate's code runs, and no build option stops them: BUN_INSPECT
 * (a debugger, which can run anything), BUN_INSPECT_PRELOAD (a module run first), their companions
 * BUN_INSPECT_CONNECT_TO and BUN_INSPECT_NOTIFY. Refused at start.
 */
const FIRST = "BUN_INSPECT";

/**
 * Acted on later, or made inert by the build: BUN_OPTIONS (--preload, --cpu-prof, ...: inert, the
 * binary's own exec argv is "--"), BUN_BE_BUN (a true value makes the binary Bun's CLI, and toolgate
 * never runs), NODE_REDIRECT_WARNINGS (warnings appended to a file), BUN_BYTECODE_* (a profile
 * written at exit), BUN_JSC_* (engine options; a sampling profile written at exit). Removed at start.
 */
const NAMES = new Set(["BUN_OPTIONS", "BUN_BE_BUN", "NODE_REDIRECT_WARNINGS"]);
const PREFIXES = ["BUN_BYTECODE_", "BUN_JSC_"];

export const actsFirst = (name: string): boolean => name.startsWith(FIRST);

export const isBunSwitch = (name: string): boolean =>
  actsFirst(name) || NAMES.has(name) || PREFIXES.some((p) => name.startsWith(p));

/** The switches `env` sets, in its order; `keep` is let through (the build's profiling run alone). */
export function bunSwitches(env: Readonly<Record<string, string | undefined>>, keep?: string): string[] {
  const found: string[] = [];
  for (const name of Object.keys(env))
    if (name !== keep && isBunSwitch(name) && env[name] !== undefined) found.push(name);
  return found;
}

/** `env` without any switch: what a process toolgate starts itself is given. */
export function withoutBunSwitches<T extends string | undefined>(env: Readonly<Record<string, T>>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [name, value] of Object.entries(env)) if (!isBunSwitch(name)) out[name] = value;
  return out;
}
