// desk: this lane's desk page in the state database. Without `text`, read it; with `text`,
// replace it whole (never append). `expected_version` makes the write refuse when someone else
// wrote in between (desk.conflict, naming the current version). No approval, no permissions.
import { defineTool } from "../../catalog/declare.ts";
import { refuse } from "../../result/result.ts";
import description from "./desk.txt" with { type: "text" };

/** A page, JSON-serialized in UTF-8, stays within this, so reading it back fits the output boundary. */
export const DESK_BOUND_BYTES = 48_000;

export default defineTool({
  name: "desk",
  description: description.trimEnd(),
  input: (type) =>
    type({ "+": "reject", "text?": `string <= ${DESK_BOUND_BYTES}`, "expected_version?": "number.integer >= 0" }),
  effect: "idempotent-write",
  approval: "never",
  needs: () => ({ ok: true, value: [] }),
  handler: async (args, ctx) => {
    const store = ctx.store();
    const lane = ctx.lane;
    if (args.text === undefined) {
      if (args.expected_version !== undefined) {
        return refuse(
          "args.invalid",
          "invalid arguments for desk: expected_version: only goes with text (a read needs no version)",
          {
            issues: [{ path: ["expected_version"], message: "only goes with text" }],
          },
        );
      }
      const page = store.readDesk(lane);
      return { ok: true, value: { lane, version: page?.version ?? 0, text: page?.text ?? "" } };
    }
    const bytes = Buffer.byteLength(JSON.stringify(args.text), "utf8") - 2;
    if (bytes > DESK_BOUND_BYTES) {
      return refuse(
        "desk.too_large",
        `the page is ${bytes} bytes serialized, above the desk bound of ${DESK_BOUND_BYTES}; keep the desk ` +
          `to working notes`,
        { bytes, bound: DESK_BOUND_BYTES },
      );
    }
    const before = store.readDesk(lane)?.version ?? 0;
    const r = store.writeDesk(lane, args.text, args.expected_version, Math.round(ctx.now()));
    if (!r.ok) {
      const current = r.current?.version ?? 0;
      return refuse(
        "desk.conflict",
        `the desk of lane "${lane}" is at version ${current}, not ${args.expected_version}: someone else ` +
          `wrote in between; read it again (desk without text), merge, and write with expected_version ${current}`,
        { expected_version: args.expected_version, current_version: current },
      );
    }
    // Changed: the page moved past the version seen just before this write (same text: no new version).
    return { ok: true, value: { lane, version: r.record.version, changed: r.record.version !== before } };
  },
});
