// bank_get: one post of the knowledge store by slug, in full (rail; see rails.ts).
import { defineTool } from "../../catalog/declare.ts";
import { callRail } from "./rails.ts";
import description from "./bank-get.txt" with { type: "text" };

export default defineTool({
  name: "bank_get",
  description: description.trimEnd(),
  input: (type) => type({ "+": "reject", slug: "1 <= string <= 512" }),
  effect: "read",
  approval: "required",
  foreignOutput: true,
  needs: () => ({ ok: true, value: [] }),
  handler: (args, ctx) => callRail("bank_get", { slug: args.slug }, ctx),
});
