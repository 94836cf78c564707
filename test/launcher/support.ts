// Shared seams for the launcher tests: a launcher wired to the real redactor, a scrubbed
// environment, bounded polling, and /proc checks on pids a fixture tree reported.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { StreamRedactor } from "../../src/boundary/redact.ts";
import { childEnv, type ChildEnv, type ChildEnvInput } from "../../src/launcher/env.ts";
import { createLauncher } from "../../src/launcher/launch.ts";
import { readStat } from "../../src/launcher/proc-tree.ts";
import type { LauncherDeps } from "../../src/launcher/types.ts";
import { waitFor } from "../support/wait.ts";

export const FIXTURES = join(import.meta.dir, "fixtures");
export const BUN = process.execPath;

export const launcherWith = (deps: Partial<LauncherDeps> = {}) =>
  createLauncher({ redactor: (s) => new StreamRedactor(s), ...deps });

/** childEnv with an empty parent unless one is given; fails the test on a refusal. */
export function env(input: Partial<ChildEnvInput> = {}): ChildEnv {
  const built = childEnv({ parent: {}, ...input });
  if (!built.ok) throw new Error(`childEnv refused: ${built.refusal.code} ${built.refusal.message}`);
  return built.value;
}

/** Bounded polling: test/support/wait.ts. */
export { waitFor };

/** The pids a fixture appended to its pid file, once it holds at least `n`. */
export async function pidsIn(file: string, n: number): Promise<number[]> {
  const read = () => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number) : []);
  await waitFor(`${n} pids in ${file}`, () => read().length >= n);
  return read();
}

/** Gone: no /proc entry, or a zombie only waiting to be reaped by an unrelated parent. */
export const gone = (pid: number) => {
  const s = readStat(pid);
  return s === null || s.state === "Z" || s.state === "X";
};

export const pidsPrinted = (tail: string) => [...tail.matchAll(/^pid (\d+)$/gm)].map((m) => Number(m[1]));
