// librarian: two to four angles over the store in one call → a ranked manifest of slugs and
// titles, not the posts (rail; see rails.ts).
import { defineTool } from "../../catalog/declare.ts";
import { callRail } from "./rails.ts";
import description from "./librarian.txt" with { type: "text" };

export default defineTool({
  name: "librarian",
  description: description.trimEnd(),
  input: (type) =>
    type({
      "+": "reject",
      angles: type("1 <= string <= 500").array().atLeastLength(2).atMostLength(4),
      "limit?": "1 <= number.integer <= 50",
    }),
  effect: "read",
  approval: "required",
  foreignOutput: true,
  needs: () => ({ ok: true, value: [] }),
  handler: (args, ctx) => callRail("librarian", { angles: args.angles, limit: args.limit ?? 20 }, ctx),
});
