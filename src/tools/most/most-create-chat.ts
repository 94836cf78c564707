// most_create_chat: a new chat with a first message; its chat and message ids are recorded as
// created resources.
import { defineTool } from "../../catalog/declare.ts";
import { callMost, PREFERRED_SERVICES, recordIds } from "./most.ts";
import description from "./most-create-chat.txt" with { type: "text" };

export default defineTool({
  name: "most_create_chat",
  description: description.trimEnd(),
  input: (type) =>
    type({
      "+": "reject",
      from: "1 <= string <= 200",
      recipients: type("1 <= string <= 200").array().atLeastLength(1).atMostLength(50),
      text: "1 <= string <= 10000",
      "preferred_service?": type.enumerated(...PREFERRED_SERVICES),
    }),
  effect: "irreversible",
  approval: "required",
  foreignOutput: true,
  needs: () => ({ ok: true, value: [] }),
  handler: async (args, ctx) => {
    const r = await callMost("most_create_chat", "POST", "/chats", args, ctx);
    if (r.ok) recordIds("most_create_chat", r.value, ctx);
    return r;
  },
});
