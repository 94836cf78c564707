// The skill cards this product ships (skills/*/SKILL.md), bundled into the binary as text so
// the compiled executable reads nothing from beside itself. Adding a card means a line here
// (a test checks this list against the skills/ folder).
import type { BundledCard } from "./cards.ts";
import authoredTools from "../../../skills/toolgate-authored-tools/SKILL.md" with { type: "text" };
import call from "../../../skills/toolgate-call/SKILL.md" with { type: "text" };
import gates from "../../../skills/toolgate-gates/SKILL.md" with { type: "text" };
import journal from "../../../skills/toolgate-journal/SKILL.md" with { type: "text" };
import permissions from "../../../skills/toolgate-permissions/SKILL.md" with { type: "text" };
import serve from "../../../skills/toolgate-serve/SKILL.md" with { type: "text" };

export const BUNDLED_CARDS: readonly BundledCard[] = [
  { folder: "toolgate-authored-tools", text: authoredTools },
  { folder: "toolgate-call", text: call },
  { folder: "toolgate-gates", text: gates },
  { folder: "toolgate-journal", text: journal },
  { folder: "toolgate-permissions", text: permissions },
  { folder: "toolgate-serve", text: serve },
];
