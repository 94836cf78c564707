// skill_load: one skill card, returned whole (front matter included). An unknown name is
// refused with the name it could not find and the names there are; never a near miss.
import { defineTool } from "../../catalog/declare.ts";
import { refuse, type Outcome } from "../../result/result.ts";
import { BUNDLED_CARDS } from "./bundled.ts";
import { discoverCards, skillNeeds } from "./cards.ts";
import description from "./skill-load.txt" with { type: "text" };

/** Names shown in an unknown-name refusal; `available` in its details says how many there are. */
const NAMES_SHOWN = 50;

export default defineTool({
  name: "skill_load",
  description: description.trimEnd(),
  input: (type) => type({ "+": "reject", name: "1 <= string <= 64" }),
  effect: "read",
  approval: "required",
  needs: (_args, ctx) => ({ ok: true, value: skillNeeds(ctx) }),
  handler: async (args, ctx) => loadCard(ctx.workspace, ctx.skillDirs, args.name),
});

export function loadCard(workspace: string, skillDirs: readonly string[], name: string): Outcome<unknown> {
  const d = discoverCards(workspace, skillDirs, BUNDLED_CARDS);
  const card = d.cards.find((c) => c.name === name);
  if (card) {
    const shadows = d.shadowed.filter((s) => s.name === name).map((s) => s.path);
    return {
      ok: true,
      value: {
        name: card.name,
        description: card.description,
        source: card.source,
        path: card.path,
        shadows,
        text: card.text,
      },
    };
  }
  const names = d.cards.map((c) => c.name);
  // A card folder of that name that was skipped says why, so the fix is obvious.
  const skipped = d.skipped.find(
    (s) => s.path.endsWith(`/${name}/SKILL.md`) || s.path === `${name}/SKILL.md` || s.path === `bundled:${name}`,
  );
  const shown = names.slice(0, NAMES_SHOWN).join(", ") || "none";
  const why = skipped ? `; ${skipped.path} was skipped: ${skipped.reason}` : "";
  return refuse(
    "skill.unknown",
    `no skill card named ${JSON.stringify(name)}${why}; skill_list lists them (available: ` +
      `${shown}${names.length > NAMES_SHOWN ? ", …" : ""})`,
    {
      name,
      available: names.slice(0, NAMES_SHOWN),
      availableCount: names.length,
      ...(skipped ? { skipped } : {}),
    },
  );
}
