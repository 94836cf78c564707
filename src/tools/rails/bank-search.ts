// bank_search: ranked hits from the knowledge store for one query (rail; see rails.ts).
import { defineTool } from "../../catalog/declare.ts";
import { callRail } from "./rails.ts";
import description from "./bank-search.txt" with { type: "text" };

export default defineTool({
  name: "bank_search",
  description: description.trimEnd(),
  input: (type) => type({ "+": "reject", query: "1 <= string <= 2000", "limit?": "1 <= number.integer <= 50" }),
  effect: "read",
  approval: "required",
  foreignOutput: true,
  needs: () => ({ ok: true, value: [] }),
  handler: (args, ctx) => callRail("bank_search", { query: args.query, limit: args.limit ?? 10 }, ctx),
});
