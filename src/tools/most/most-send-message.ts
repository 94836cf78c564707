// most_send_message: one message into an existing chat; its message id is recorded.
import { defineTool } from "../../catalog/declare.ts";
import { callMost, PREFERRED_SERVICES, recordIds } from "./most.ts";

export default defineTool({
  name: "most_send_message",
  description: "Send a message into an existing Most chat: chat_id, text, optional preferred_service (iMessage, SMS or RCS). Returns message_id, recorded as a created resource (toolgate log --resources). Offered when MOST_SERVICE_TOKEN_FILE is set.",
  input: (type) => type({ "+": "reject", chat_id: "1 <= string <= 200", text: "1 <= string <= 10000", "preferred_service?": type.enumerated(...PREFERRED_SERVICES) }),
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
