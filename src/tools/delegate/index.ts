// Delegation's tools; boot offers task only with delegation.command, apply_change only with a worktree root too.
import type { ToolDeclaration } from "../../catalog/declare.ts";
import task from "./task.ts";
import applyChange from "./apply-change.ts";

export const delegationTools = (values: Readonly<Record<string, any>>): ToolDeclaration<any>[] => {
  const d = values.delegation as { command?: unknown; worktree_root?: unknown } | undefined;
  if (d?.command === undefined) return [];
  return d.worktree_root === undefined ? [task] : [task, applyChange];
};
