// research: one question answered from the open web, with citations (rail; see rails.ts).
import { defineTool } from "../../catalog/declare.ts";
import { callRail } from "./rails.ts";

export default defineTool({
  name: "research",
  description: "One question answered from the open web by the research endpoint, with citations (answer, citations [{url, title}]). Leaves this machine for a third party. Offered when RAILS_RESEARCH_URL and RAILS_RESEARCH_TOKEN are set.",
  input: (type) => type({ "+": "reject", question: "1 <= string <= 4000" }),
  effect: "read",
  approval: "required",
  foreignOutput: true,
  needs: () => ({ ok: true, value: [] }),
  handler: (args, ctx) => callRail("research", { question: args.question }, ctx),
});
