// skill_list: the skill cards available (configured folders, then the bundled cards), one line
// each, sorted by name, with what was shadowed or skipped counted and shown.
import { defineTool } from "../../catalog/declare.ts";
import { BUNDLED_CARDS } from "./bundled.ts";
import { discoverCards, oneLine, skillNeeds } from "./cards.ts";
import description from "./skill-list.txt" with { type: "text" };

/** The lines and cards of one answer, serialized, stay within this (well under the 64 KiB boundary). */
export const LIST_BOUND_BYTES = 40_000;
/** Shadowed and skipped cards shown per answer; the counts give the totals. */
export const REPORT_BOUND = 20;

export default defineTool({
  name: "skill_list",
  description: description.trimEnd(),
  input: (type) => type({ "+": "reject", "cursor?": "number.integer >= 0" }),
  effect: "read",
  approval: "required",
  needs: (_args, ctx) => ({ ok: true, value: skillNeeds(ctx) }),
  handler: async (args, ctx) => ({ ok: true, value: listCards(ctx.workspace, ctx.skillDirs, args.cursor ?? 0) }),
});

export function listCards(workspace: string, skillDirs: readonly string[], cursor: number) {
  const d = discoverCards(workspace, skillDirs, BUNDLED_CARDS);
  const lines: string[] = [];
  const cards: { name: string; source: string; path: string }[] = [];
  let bytes = 0;
  let clippedDescriptions = 0;
  let next = cursor;
  for (const c of d.cards.slice(cursor)) {
    const desc = oneLine(c.description);
    const line = `${c.name} — ${desc.text}`;
    const card = { name: c.name, source: c.source, path: c.path };
    const cost = Buffer.byteLength(JSON.stringify(line)) + Buffer.byteLength(JSON.stringify(card)) + 2;
    if (bytes + cost > LIST_BOUND_BYTES && lines.length > 0) break;
    lines.push(line);
    cards.push(card);
    bytes += cost;
    if (desc.clipped) clippedDescriptions++;
    next++;
  }
  const truncated = next < d.cards.length;
  const from = (s: string) => d.cards.filter((c) => c.source === s).length;
  return {
    lines,
    cards,
    counts: {
      cards: d.cards.length,
      workspace: from("workspace"),
      bundled: from("bundled"),
      shadowed: d.shadowed.length,
      skipped: d.skipped.length,
      clippedDescriptions,
    },
    shadowed: d.shadowed.slice(0, REPORT_BOUND),
    skipped: d.skipped.slice(0, REPORT_BOUND),
    folders: d.folders,
    scanCapped: d.scanCapped,
    truncated,
    ...(truncated ? { nextCursor: next } : {}),
  };
}
