// most_health: whether Most answers (no approval: it changes nothing).
import { defineTool } from "../../catalog/declare.ts";
import { callMost } from "./most.ts";

export default defineTool({
  name: "most_health",
  description: "Ask the Most messaging service whether it is up (GET /health). Offered when MOST_SERVICE_TOKEN_FILE is set.",
  input: (type) => type({ "+": "reject" }),
  effect: "read",
  approval: "never",
  foreignOutput: true,
  needs: () => ({ ok: true, value: [] }),
  handler: (_args, ctx) => callMost("most_health", "GET", "/health", undefined, ctx),
});
