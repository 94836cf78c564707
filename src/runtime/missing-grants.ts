// Every grant a call lacks, named at once. When nobody can be asked, the permission stage does not
// stop at the first need refused for want of a grant: it checks the rest (no prompt can show), and
// the one refusal lists each flag and the approval the call also needs, in one line and in
// details.flags, so following them once makes the call run. A deny is different: no allow flag can
// help, so it is refused at once, naming the deny rule and no allow flag.
import type { Refusal } from "../result/result.ts";
import type { Need, Refused } from "../permission/types.ts";

export class MissingGrants {
  #first: Refused | undefined;
  readonly #flags: string[] = [];

  /** Whether `r` is a grant that could be given (kept, and the check goes on); false: refuse with it now. */
  add(r: Refused, nobodyAsks: boolean): boolean {
    if (!nobodyAsks || r.flag === undefined || r.deniedBy !== undefined) return false;
    this.#first ??= r;
    if (!this.#flags.includes(r.flag)) this.#flags.push(r.flag);
    return true;
  }

  get any(): boolean {
    return this.#first !== undefined;
  }

  /** The flags kept so far, in the order the needs were checked. */
  get flags(): readonly string[] {
    return this.#flags;
  }

  /** The refusal naming all of them, and `--approve TOOL` when the call would need that too. */
  refusal(approve: string | undefined): Refusal {
    const first = this.#first!;
    const flags = [...this.#flags, ...(approve ? [approve] : [])];
    const message =
      flags.length === 1 ? first.message : `${first.message}; this call needs, in all: ${flags.join(" ")}`;
    return { code: first.code, message, details: { flag: first.flag, flags } };
  }
}

/** A refusal of the permission stage as the result carries it: a deny names its rule, never an allow flag. */
export function gateRefusal(r: Refused): Refusal {
  if (r.deniedBy !== undefined) return { code: r.code, message: r.message, details: { denied_by: r.deniedBy } };
  return { code: r.code, message: r.message, ...(r.flag ? { details: { flag: r.flag, flags: [r.flag] } } : {}) };
}

/**
 * `call --dry-run`: what the call needs and whether it would run now, nobody asked: each need as
 * checked, whether its approval is given, and the flags that would make it run (none: it would).
 * Nothing runs and nothing is journaled (the caller silences the journal).
 */
export function dryRunReport(tool: string, needs: readonly Need[], missing: MissingGrants, approved: boolean) {
  const flags = [...missing.flags, ...(approved ? [] : [`--approve=${tool}`])];
  return {
    dry_run: true,
    would_run: flags.length === 0,
    needs: needs.map((n) => ({ kind: n.kind, value: n.value })),
    approval: approved ? "given" : "needed",
    flags,
  };
}
