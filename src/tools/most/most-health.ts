// most_health: whether Most answers (no approval: it changes nothing).
import { defineTool } from "../../catalog/declare.ts";
import { callMost } from "./most.ts";
import description from "./most-health.txt" with { type: "text" };

export default defineTool({
  name: "most_health",
  description: description.trimEnd(),
  input: (type) => type({ "+": "reject" }),
  effect: "read",
  approval: "never",
  foreignOutput: true,
  needs: () => ({ ok: true, value: [] }),
  handler: (_args, ctx) => callMost("most_health", "GET", "/health", undefined, ctx),
});
