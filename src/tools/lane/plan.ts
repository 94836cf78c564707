// plan: declare, revise or read this lane's plan (ordered steps with a status) in the state
// database. A reading for the human, not an action: no approval, no permissions. Writing the
// same steps again creates nothing new (same version, `changed: false`).
import { STEP_STATUSES, defineTool, type PlanRecord, type PlanStep } from "../../catalog/declare.ts";
import description from "./plan.txt" with { type: "text" };

export const MAX_STEPS = 100;
export const MAX_TITLE_CHARS = 500;

export default defineTool({
  name: "plan",
  description: description.trimEnd(),
  input: (type) =>
    type({
      "+": "reject",
      "steps?": type({
        "+": "reject",
        title: type(`1 <= string <= ${MAX_TITLE_CHARS}`)
          .and(/^[^\r\n]*\S[^\r\n]*$/)
          .describe(`one line of 1-${MAX_TITLE_CHARS} characters, not only spaces`),
        status: type.enumerated(...STEP_STATUSES),
      })
        .array()
        .atLeastLength(1)
        .atMostLength(MAX_STEPS),
    }),
  effect: "idempotent-write",
  approval: "never",
  needs: () => ({ ok: true, value: [] }),
  handler: async (args, ctx) => {
    const store = ctx.store();
    if (args.steps === undefined) return { ok: true, value: view(ctx.lane, store.readPlan(ctx.lane), false) };
    const steps: PlanStep[] = args.steps.map((s) => ({ title: s.title, status: s.status }));
    const written = store.writePlan(ctx.lane, steps, Math.round(ctx.now()));
    return { ok: true, value: view(ctx.lane, written, written.changed) };
  },
});

function view(lane: string, plan: PlanRecord | null, changed: boolean) {
  const steps = plan?.steps ?? [];
  const counts: Record<string, number> = {};
  for (const s of STEP_STATUSES) counts[s] = 0;
  for (const x of steps) if (Object.hasOwn(counts, x.status)) counts[x.status]!++;
  return { lane, version: plan?.version ?? 0, changed, steps, counts };
}
