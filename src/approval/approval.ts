// The approval stage: `never` passes; `required` needs --approve, a remembered "always"
// bound to this digest, or a yes at the prompt (the terminal's, or the MCP client's elicitation).
// Non-interactive: approval.required; an unattended child (serve --child): approval.child_unattended.
import type { Entry } from "../catalog/catalog.ts";
import { refuse, type Outcome } from "../result/result.ts";

export type ApprovalAnswer = "y" | "n" | "A";

export interface ApprovalRequest {
  readonly tool: string;
  readonly effect: string;
  readonly digest: string;
  /**
   * The whole arguments, pretty-printed JSON, secrets redacted: the prompt shows what fits and says when it is
   * partial.
   */
  readonly args: string;
}

export interface ApprovalDeps {
  /** Names from --approve (or "all"). */
  readonly approved: ReadonlySet<string>;
  /** Config overrides; "required" makes a tool stricter (never looser, checked at boot). */
  readonly overrides: Readonly<Record<string, "required" | "never">>;
  readonly isRemembered: (tool: string, digest: string) => boolean;
  readonly remember: (tool: string, digest: string) => void;
  /** Undefined when nobody can be asked (no terminal, --no-prompt, CI set, a client without elicitation). */
  readonly ask: ((req: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>) | undefined;
  /** No human behind this session (serve --child): only --approve grants; nothing is ever asked or remembered. */
  readonly unattended?: boolean;
  /** How to grant when nobody can be asked, for the refusal (default: the --approve flag or a terminal prompt). */
  readonly howToGrant?: (tool: string) => string;
}

export const effectivePolicy = (entry: Pick<Entry, "name" | "approval">, overrides: ApprovalDeps["overrides"]) =>
  overrides[entry.name] === "required" ? "required" : entry.approval;

/** Whether a call of `entry` passes without asking anyone: its policy, or --approve. */
export const preApproved = (
  entry: Pick<Entry, "name" | "approval">,
  deps: Pick<ApprovalDeps, "approved" | "overrides">,
): boolean =>
  effectivePolicy(entry, deps.overrides) === "never" || deps.approved.has("all") || deps.approved.has(entry.name);

const BY_POLICY = { ok: true, value: "policy" } as const;
const BY_FLAG = { ok: true, value: "flag" } as const;

/** Approved with nobody asked and nothing read (the policy, or --approve); undefined: `approve` decides. */
export function approvedOutright(
  entry: Entry,
  deps: Pick<ApprovalDeps, "approved" | "overrides">,
): typeof BY_POLICY | typeof BY_FLAG | undefined {
  if (effectivePolicy(entry, deps.overrides) === "never") return BY_POLICY;
  if (deps.approved.has("all") || deps.approved.has(entry.name)) return BY_FLAG;
  return undefined;
}

export async function approve(
  entry: Entry,
  args: () => string,
  deps: ApprovalDeps,
): Promise<Outcome<"policy" | "flag" | "remembered" | "prompt">> {
  const outright = approvedOutright(entry, deps);
  if (outright) return outright;
  if (deps.unattended) {
    return refuse(
      "approval.child_unattended",
      `${entry.name} (${entry.effect}) needs approval and this is an unattended child session (serve ` +
        `--child): nobody can approve it here; the session that starts the child may pass --approve ${entry.name}`,
    );
  }
  if (deps.isRemembered(entry.name, entry.digest)) return { ok: true, value: "remembered" };
  if (!deps.ask) {
    const how =
      deps.howToGrant?.(entry.name) ??
      `run again with --approve ${entry.name} (or --approve all), or answer the prompt on a terminal`;
    // A note says why a tool that waives approval needs it here (an untrusted or stale trust).
    return refuse(
      "approval.required",
      `${entry.name} (${entry.effect}) needs approval${entry.note ? ` (${entry.note})` : ""} and nobody can ` +
        `be asked here; ${how}`,
    );
  }
  const answer = await deps.ask({ tool: entry.name, effect: entry.effect, digest: entry.digest, args: args() });
  if (answer === "n") return refuse("approval.denied", `${entry.name} was not approved at the prompt`);
  if (answer === "A") deps.remember(entry.name, entry.digest);
  return { ok: true, value: "prompt" };
}

/** Overrides may only make policy stricter: "never" for a tool whose policy is "required" fails the boot. */
export function checkOverrides(
  overrides: ApprovalDeps["overrides"],
  entries: ReadonlyMap<string, Entry>,
): { tool: string; message: string } | null {
  for (const [tool, policy] of Object.entries(overrides)) {
    const e = entries.get(tool);
    if (e && e.approval === "required" && policy === "never") {
      return {
        tool,
        message:
          `approval.${tool}: "never" would loosen ${tool}, whose policy is "required"; overrides can only ` +
          `make a tool stricter`,
      };
    }
  }
  return null;
}
