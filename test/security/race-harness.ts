// Seams of the race tests: the swapper process (swapper.ts) started and stopped around a test,
// the whole call pipeline in process (real catalog, real Permissions, real launcher) for many
// attempts per second, and the compiled binary for the end-to-end attempts.
import { join } from "node:path";
import type { PermissionGrants } from "../../src/permission/types.ts";
import type { Envelope } from "../../src/result/result.ts";
import { callScope, run } from "../helpers.ts";
import { approving, callThrough, permissionsOf, pipelineDeps, unsandboxed } from "../support/pipeline.ts";

const SWAPPER = join(import.meta.dir, "swapper.ts");

export interface Swapper extends AsyncDisposable {
  /** Stops the loop and returns how many swaps it made. */
  stop(): Promise<number>;
}

/** Starts swapping `a` and `b` (renameat2 RENAME_EXCHANGE) in another process; resolves once it swaps. */
export async function startSwapper(a: string, b: string, ms = 20_000): Promise<Swapper> {
  const proc = Bun.spawn([process.execPath, SWAPPER, a, b, String(ms)], { stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`swapper did not start: ${await new Response(proc.stderr).text()}`);
    out += new TextDecoder().decode(chunk.value);
  }
  if (!out.startsWith("ready")) throw new Error(`swapper said ${out}`);
  let stopped: Promise<number> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      proc.kill("SIGKILL");
      await proc.exited;
      reader.releaseLock();
      return 0;
    })());
  return { stop, [Symbol.asyncDispose]: async () => void (await stop()) };
}

export type Call = (tool: string, args: Record<string, unknown>) => Promise<Envelope>;

/** The call pipeline in this process, as `toolgate call` runs it: every tool approved, no prompts. */
export function inProcess(workspace: string, grants: PermissionGrants, scratch?: string): Call {
  const scope = callScope(workspace, {
    controlFiles: [join(workspace, "toolgate.json"), join(workspace, "toolgate.lock"), join(workspace, "tools")],
    ...(scratch ? { scratch } : {}),
  });
  const deps = pipelineDeps({
    scope,
    processes: unsandboxed(scope.stateDir),
    permissions: permissionsOf(grants, workspace),
    approval: approving(["all"]),
    now: () => performance.now(),
  });
  return (tool, args) => callThrough(tool, args, deps);
}

/** The same call through dist/toolgate: `flags` grant (nothing comes from a toolgate.json); HOME and state in `home`. */
export function throughBinary(workspace: string, home: string, flags: readonly string[]): Call {
  return async (tool, args) => {
    const r = await run(["call", tool, JSON.stringify(args), "--approve", tool, ...flags], {
      cwd: workspace,
      env: { HOME: home, XDG_STATE_HOME: join(home, "state") },
    });
    if (r.code === 5 && r.stdout === "") {
      // A boot failure (e.g. the state database busy under four concurrent calls): nothing ran, so
      // no escape; counted as a refusal, and every race still needs successes to pass.
      return { status: "failed", tool, error_code: "boot_failed", message: r.stderr } as unknown as Envelope;
    }
    try {
      return JSON.parse(r.stdout) as Envelope;
    } catch {
      throw new Error(`toolgate call ${tool} printed no result (exit ${r.code}): ${r.stderr}`);
    }
  };
}

/** How many times the planned attempts a race may make while it has no success yet. */
export const EXTRA = 5;

export interface Tally {
  /** Attempts whose result (or whose effect) reached outside what was checked. */
  escapes: number;
  successes: number;
  attempts: number;
  /** Error codes of the refused attempts, counted. */
  refused: Record<string, number>;
}

/**
 * Makes `attempts` calls, `parallel` at a time; `escaped` judges each result (and may look at the
 * file system). Returns the tally; the caller asserts zero escapes and some successes. On a loaded
 * machine a tight swap loop can make every one of `attempts` calls see a swapped name, so without a
 * success it goes on, up to `EXTRA` times as many calls in all (each judged the same way): the
 * success proves the tool still works under the race, and the bound keeps the loop finite.
 */
export async function race(
  attempts: number,
  parallel: number,
  attempt: (i: number) => Promise<Envelope>,
  escaped: (e: Envelope, i: number) => boolean,
): Promise<Tally> {
  const tally: Tally = { escapes: 0, successes: 0, attempts: 0, refused: {} };
  const most = attempts * EXTRA;
  let next = 0;
  const more = (i: number) => i < attempts || (i < most && tally.successes === 0);
  const lane = async () => {
    for (let i = next++; more(i); i = next++) {
      tally.attempts++;
      const e = await attempt(i);
      if (escaped(e, i)) tally.escapes++;
      if (e.status === "success") tally.successes++;
      else tally.refused[e.error_code] = (tally.refused[e.error_code] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return tally;
}
