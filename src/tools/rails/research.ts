// research: one question answered from the open web, with citations (rail; see rails.ts).
import { defineTool } from "../../catalog/declare.ts";
import { callRail } from "./rails.ts";
import description from "./research.txt" with { type: "text" };

export default defineTool({
  name: "research",
  description: description.trimEnd(),
  input: (type) => type({ "+": "reject", question: "1 <= string <= 4000" }),
  effect: "read",
  approval: "required",
  foreignOutput: true,
  needs: () => ({ ok: true, value: [] }),
  handler: (args, ctx) => callRail("research", { question: args.question }, ctx),
});
