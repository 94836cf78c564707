// Delegation's tools; boot offers task only with delegation.command, apply_change only with a worktree root too.
import type { ToolDeclaration } from "../../catalog/declare.ts";
import type { ConfigData } from "../../config/schema.ts";
import task from "./task.ts";
import applyChange from "./apply-change.ts";

/** The parent's values of the variables delegation.env hands the child: secrets bound to every task call. */
export function delegationSecrets(
  values: ConfigData,
  parentEnv: Readonly<Record<string, string | undefined>>,
): string[] {
  const names = values.delegation?.env ?? [];
  return names.map((n) => parentEnv[n]).filter((v): v is string => v !== undefined && v !== "");
}

export const delegationTools = (
  values: ConfigData,
  parentEnv: Readonly<Record<string, string | undefined>> = {},
): ToolDeclaration[] => {
  const d = values.delegation;
  if (d?.command === undefined) return [];
  const secrets = delegationSecrets(values, parentEnv);
  const bound = secrets.length > 0 ? { ...task, secrets } : task;
  return d.worktree_root === undefined ? [bound] : [bound, applyChange];
};
