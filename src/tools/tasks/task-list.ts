// task_list: this lane's background tasks, newest first (board.ts).
import { defineTool } from "../../catalog/declare.ts";
import { board, LIST_LIMIT, noBoard } from "./board.ts";
import description from "./task-list.txt" with { type: "text" };

const taskList = defineTool({
  name: "task_list",
  description: description.trimEnd(),
  input: (type) => type({ "+": "reject" }),
  effect: "read",
  approval: "never",
  needs: () => ({ ok: true, value: [] }),
  handler: async (_args, ctx) => {
    const b = board(ctx);
    if (!b) return noBoard();
    return { ok: true, value: { tasks: b.list(ctx.lane, LIST_LIMIT) } };
  },
});

export default taskList;
