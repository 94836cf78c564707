// The permission stage of the call pipeline: granted passes, an explicit deny refuses, anything
// else goes to the prompter; answers hold for the process lifetime. Refusals name the fix.
import { allowFlag, evaluate, pathCovers, resolveGrants, type MatchOptions, type ResolvedGrants } from "./match.ts";
import type { Descriptor } from "./descriptor.ts";
import { basename } from "node:path";
import { isSecretPath } from "../fs/secret-files.ts";
import { escapeControl } from "../result/escape.ts";
import type { Answer, AsyncPrompter, Prompter } from "./prompt.ts";
import type { Check, Need, PermissionGrants, Refused } from "./types.ts";

/** A sync prompter's check is sync; one that asks elsewhere (a session's client) settles later. */
type Checked<P> = P extends AsyncPrompter ? Check | Promise<Check> : Check;

export class Permissions<P extends Prompter | AsyncPrompter = Prompter> {
  readonly #grants: ResolvedGrants;
  readonly #declined = new Set<string>();

  constructor(
    grants: PermissionGrants,
    private readonly cwd: string,
    private readonly prompter: P,
    private readonly opts: MatchOptions = {},
  ) {
    // Resolved once: swapping a symlink after start-up cannot widen what was granted.
    this.#grants = resolveGrants(grants, cwd);
  }

  /** `detail`: what the prompt shows besides the need (built only when a prompt is shown). */
  check(need: Need, reason: string, detail?: () => string): Checked<P> {
    return this.#check(need, reason, detail) as Checked<P>;
  }

  #check(need: Need, reason: string, detail?: () => string): Check | Promise<Check> {
    const ev = evaluate(this.#grants, need, this.cwd, this.opts);
    // The flag that would grant it: only a refusal or a prompt names it (resolving it costs a walk of the path).
    let named: string | undefined;
    const flag = () => (named ??= allowFlag(need.kind, ev.value, this.cwd, this.opts.from));
    const what = `${need.kind} access to "${escapeControl(ev.value)}"`;
    const d = ev.descriptor;
    if (need.recursive && ev.decision !== "denied" && (d?.kind === "read" || d?.kind === "write")) {
      const denied = this.#grants.deny[d.kind];
      const inside =
        denied === true
          ? undefined
          : denied?.flatMap((g) =>
              g.kind === d.kind && g.path !== d.path && pathCovers(d.path, g.path) ? [g.path] : [],
            )[0];
      if (inside !== undefined) {
        return refuse(
          `${what} covers "${escapeControl(inside)}", which --deny-${need.kind} (a flag or the config's ` +
            `permissions.deny) refuses; deny wins, so give a path that leaves it out`,
          flag(),
        );
      }
    }
    if (ev.decision === "granted" || (need.denyOnly && ev.decision !== "denied")) return { ok: true, value: ev.value };
    if (ev.decision === "denied") {
      if (ev.invalid !== undefined) return refuse(`${what} is refused: the value ${ev.invalid}`, flag());
      const by = escapeControl(ev.deniedBy!);
      const message = `${what} is denied by ${by} (a flag or the config's permissions.deny); deny wins over allow`;
      return { ...refuse(message, flag()), deniedBy: ev.deniedBy! };
    }
    const key = `${need.kind}\0${ev.value}`;
    const why = ev.secret ? secretWhy(need.kind, ev.value) : need.note !== undefined ? escapeControl(need.note) : "";
    const answer = this.#declined.has(key)
      ? "n"
      : this.prompter({
          kind: need.kind,
          value: ev.value,
          reason,
          flag: flag(),
          ...(detail || why ? { detail: `${why ? `┠─ ${why}.\n` : ""}${detail?.() ?? ""}` } : {}),
        });
    const settle = (answer: Answer) =>
      this.#settle(need, ev.descriptor, ev.value, key, flag(), what, detail !== undefined, answer, why);
    return answer instanceof Promise ? answer.then(settle) : settle(answer);
  }

  /** Whether `value` (a canonical real path) is a well-known secret file the grants name: walks keep only those. */
  names(kind: "read" | "write", value: string): boolean {
    return this.#grants.named?.[kind]?.includes(value) === true;
  }

  /** `why`: what the value is (a secret file: a yes at the prompt that showed its path names that file). */
  #settle(
    need: Need,
    d: Descriptor | undefined,
    value: string,
    key: string,
    flag: string,
    what: string,
    described: boolean,
    answer: Answer,
    why: string,
  ): Check {
    if ((d?.kind === "read" || d?.kind === "write") && isSecretPath(value) && (answer === "A" || answer === "y"))
      (this.#grants.named[d.kind] ??= []).push(value);
    if (answer === "A") {
      this.#grants.allow[need.kind] = true;
      return { ok: true, value };
    }
    if (answer === "y") {
      // A yes given to a described start (a server's command line) covers that start only: a
      // second server with the same program but another command line is shown and asked again.
      if (described) return { ok: true, value };
      const allowed = this.#grants.allow[need.kind];
      if (allowed !== true && d !== undefined) this.#grants.allow[need.kind] = [...(allowed ?? []), d];
      return { ok: true, value };
    }
    // Remembered so an agent retrying in a loop does not re-prompt for what was just refused.
    this.#declined.add(key);
    return refuse(`${what} is not granted${why ? `: ${why}` : ""}; run again with ${escapeControl(flag)}`, flag);
  }

  /** Checks every need in order; the first refusal wins. */
  checkAll(this: Permissions<Prompter>, needs: readonly Need[], reason: string): { ok: true } | Refused {
    for (const need of needs) {
      const result = this.check(need, reason);
      if (!result.ok) return result;
    }
    return { ok: true };
  }
}

/** Why a secret file's need was not covered by a whole-kind or folder grant: the fix is to name it. */
function secretWhy(kind: string, value: string): string {
  return (
    `"${escapeControl(basename(value))}" is a well-known secret file, which only a grant naming that file ` +
    `covers (not --allow-${kind} or a folder's grant)`
  );
}

function refuse(message: string, flag: string): Refused {
  return { ok: false, code: "permission.denied", message, flag };
}
