// most_send_message: one message into an existing chat; its message id is recorded.
import { defineTool } from "../../catalog/declare.ts";
import { callMost, PREFERRED_SERVICES, recordIds } from "./most.ts";
import description from "./most-send-message.txt" with { type: "text" };

export default defineTool({
  name: "most_send_message",
  description: description.trimEnd(),
  input: (type) =>
    type({
      "+": "reject",
      chat_id: "1 <= string <= 200",
      text: "1 <= string <= 10000",
      "preferred_service?": type.enumerated(...PREFERRED_SERVICES),
    }),
  effect: "irreversible",
  approval: "required",
  foreignOutput: true,
  needs: () => ({ ok: true, value: [] }),
  handler: async (args, ctx) => {
    const { chat_id, ...body } = args;
    const r = await callMost("most_send_message", "POST", `/chats/${encodeURIComponent(chat_id)}/messages`, body, ctx);
    if (r.ok) recordIds("most_send_message", r.value, ctx);
    return r;
  },
});
