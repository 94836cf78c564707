// task_control: cancel a background task of this lane (board.ts).
import { defineTool } from "../../catalog/declare.ts";
import { refuse } from "../../result/result.ts";
import { board, noBoard } from "./board.ts";
import description from "./task-control.txt" with { type: "text" };

const taskControl = defineTool({
  name: "task_control",
  description: description.trimEnd(),
  input: (type) => type({ "+": "reject", task_id: "string <= 64", command: "string <= 32" }),
  effect: "irreversible",
  approval: "never",
  needs: () => ({ ok: true, value: [] }),
  handler: async (args, ctx) => {
    if (args.command !== "cancel")
      return refuse(
        "task.unsupported_command",
        `task_control supports only command "cancel" (got ${JSON.stringify(args.command)})`,
      );
    const b = board(ctx);
    if (!b) return noBoard();
    const found = b.get(ctx.lane, args.task_id);
    if (!found.ok) return refuse(found.code, found.message);
    const asked = b.cancel(ctx.lane, found.task.task_id);
    return { ok: true, value: { task_id: found.task.task_id, cancel_requested: asked, status: found.task.status } };
  },
});

export default taskControl;
