// Where the state and scratch folders may lie, whatever the trust (docs/security.md): the
// sandbox keeps the state folder read-only and the scratch folder writable, so a state folder
// that is the workspace root (or above it) or a scratch folder that is (or holds) the state folder
// would hand the journal and toolgate's records to the sandboxed child. Refused at boot, exit 5.
import { resolveReal } from "../fs/real-path.ts";
import { stateFolderProblem } from "../fs/state-folder.ts";
import { bootError } from "../result/result.ts";
import type { Effective } from "./resolve.ts";

const real = (p: string) => resolveReal(p, "/") ?? p;
const within = (root: string, p: string) => p === root || p.startsWith(root === "/" ? "/" : `${root}/`);

/** Throws a boot error naming the key and where it was set; returns quietly for a sound layout. */
export function checkLayout(config: Effective): void {
  const ws = real(config.values.workspace);
  const state = real(config.values.state);
  const scratch = real(config.values.scratch);
  const origin = (key: string) => {
    const o = config.leaves.get(key)?.origin ?? "default";
    return o === "default" ? "the default" : o;
  };
  if (within(state, ws)) {
    const what = state === ws ? "is the workspace root" : `lies above the workspace ${ws}`;
    throw bootError(
      `state: ${state} ${what} (from ${origin("state")}): the journal and toolgate's records there could not ` +
        `be kept from the tools and the sandbox`,
      'set "state" to a folder inside the workspace (the default ".toolgate") or outside it',
    );
  }
  if (within(scratch, state)) {
    const what = scratch === state ? "is the state folder" : `holds the state folder ${state}`;
    throw bootError(
      `scratch: ${scratch} ${what} (from ${origin("scratch")}): the sandbox makes scratch writable, and with ` +
        `it the journal`,
      `${origin("scratch") === "flag:--scratch" ? "give --scratch" : 'set "scratch" to'} a folder of its own ` +
        `(the default ".toolgate/scratch"), not the state folder or one above it`,
    );
  }
}

/**
 * The state folder is toolgate's own: one that is a link, holds a link, belongs to
 * another user or was not made by toolgate (a clone's) fails the boot, naming it and how to clear
 * it. Read only; called once the trust gate has passed (an untrusted config chose no folder).
 */
export function checkStateFolder(config: Effective): void {
  const problem = stateFolderProblem(config.values.state);
  if (problem) throw bootError(problem.message, problem.hint);
}
