// Delegation's tools; boot offers task only with delegation.command, apply_change only with a worktree root too.
import type { ToolDeclaration } from "../../catalog/declare.ts";
import task from "./task.ts";
import applyChange from "./apply-change.ts";

/** The parent's values of the variables delegation.env hands the child: secrets bound to every task call. */
export function delegationSecrets(values: Readonly<Record<string, any>>, parentEnv: Readonly<Record<string, string | undefined>>): string[] {
  const names = ((values.delegation as { env?: readonly string[] } | undefined)?.env ?? []) as readonly string[];
  return names.map((n) => parentEnv[n]).filter((v): v is string => v !== undefined && v !== "");
}

export const delegationTools = (values: Readonly<Record<string, any>>, parentEnv: Readonly<Record<string, string | undefined>> = {}): ToolDeclaration<any>[] => {
  const d = values.delegation as { command?: unknown; worktree_root?: unknown } | undefined;
  if (d?.command === undefined) return [];
  const secrets = delegationSecrets(values, parentEnv);
  const bound = secrets.length > 0 ? { ...task, secrets } : task;
  return d.worktree_root === undefined ? [bound] : [bound, applyChange];
};
