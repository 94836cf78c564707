// yield_until: wait for this lane's background tasks to end, bounded by the configured cap (board.ts).
import { defineTool, type ToolContext } from "../../catalog/declare.ts";
import { refuse, type Outcome } from "../../result/result.ts";
import { board, DEFAULT_YIELD_CAP_SECS, FINAL, noBoard, YIELD_MAX_SECS, YIELD_POLL_MS } from "./board.ts";
import description from "./yield-until.txt" with { type: "text" };

const yieldUntil = defineTool({
  name: "yield_until",
  description: description.trimEnd().replace("{cap}", String(DEFAULT_YIELD_CAP_SECS)),
  input: (type) =>
    type({
      "+": "reject",
      task_ids: "1 <= string[] <= 20",
      "mode?": "'any' | 'all'",
      "timeout_secs?": `0 <= number <= ${YIELD_MAX_SECS}`,
    }),
  effect: "read",
  approval: "never",
  needs: () => ({ ok: true, value: [] }),
  handler: async (args, ctx) => {
    const cap = ctx.config?.tasks?.yield_cap_secs ?? DEFAULT_YIELD_CAP_SECS;
    return waitFor(args.task_ids, args.mode ?? "any", Math.min(args.timeout_secs ?? 30, cap), ctx);
  },
});

async function waitFor(
  ids: readonly string[],
  mode: "any" | "all",
  secs: number,
  ctx: ToolContext,
): Promise<Outcome<unknown>> {
  const b = board(ctx);
  if (!b) return noBoard();
  const until = ctx.now() + secs * 1000;
  for (;;) {
    const tasks = [];
    for (const id of ids) {
      const r = b.get(ctx.lane, id);
      if (!r.ok) return refuse(r.code, r.message);
      tasks.push(r.task);
    }
    const ended = tasks.filter((t) => FINAL.has(t.status)).length;
    const done = mode === "any" ? ended > 0 : ended === tasks.length;
    if (done || ctx.now() >= until || ctx.signal.aborted)
      return { ok: true, value: { timed_out: !done, waited_at_most_secs: secs, tasks } };
    await new Promise((res) => setTimeout(res, Math.min(YIELD_POLL_MS, Math.max(1, until - ctx.now()))));
  }
}

export default yieldUntil;
