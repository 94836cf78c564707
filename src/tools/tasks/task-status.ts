// task_status: one background task of this lane by id (board.ts).
import { defineTool } from "../../catalog/declare.ts";
import { refuse } from "../../result/result.ts";
import { board, noBoard } from "./board.ts";
import description from "./task-status.txt" with { type: "text" };

const taskStatus = defineTool({
  name: "task_status",
  description: description.trimEnd(),
  input: (type) => type({ "+": "reject", task_id: "string <= 64" }),
  effect: "read",
  approval: "never",
  needs: () => ({ ok: true, value: [] }),
  handler: async (args, ctx) => {
    const b = board(ctx);
    if (!b) return noBoard();
    const r = b.get(ctx.lane, args.task_id);
    if (!r.ok) return refuse(r.code, r.message);
    // The tail passes the boundary as the tool's own result would; withheld, it says so (never partly).
    return {
      ok: true,
      value: {
        ...r.task,
        result: r.result,
        log_tail: r.logTail,
        ...(r.logTail === null ? { log_tail_withheld: "sensitive_output_rejected" } : {}),
      },
    };
  },
});

export default taskStatus;
