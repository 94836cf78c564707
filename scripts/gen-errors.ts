// Writes docs/errors.md from the refusal registry (src/result/codes.ts): one table per prefix,
// code | exit | outcome | meaning. `bun scripts/gen-errors.ts --check` fails when the committed
// page is out of date (test/scripts/gen-errors.test.ts checks it too).
import { CODES, type CodeInfo, type CodeOutcome } from "../src/result/codes.ts";

const OUTCOME: Record<CodeOutcome, string> = {
  failed: "failed",
  indeterminate: "indeterminate",
  either: "failed, or indeterminate",
  stderr: "no result (stderr)",
  journal: "journal row",
};

const NO_PREFIX = "Without a prefix";

/** A line under a prefix's heading, for a name the page would otherwise leave unexplained. */
const NOTES: Record<string, string> = {
  "`las.*`":
    "Las is a separate MCP server program whose tools come in families called surfaces; toolgate starts and supervises it when it is enabled ([Las](mcp.md#las)).",
};

const exitOf = (c: CodeInfo) =>
  c.exit === null ? "—" : c.outcome === "either" ? `${c.exit} or 3` : c.exit === 130 ? "130 or 143" : String(c.exit);
const cell = (s: string) => s.replaceAll("|", "\\|");

export function renderErrors(): string {
  const groups = new Map<string, [string, CodeInfo][]>();
  for (const [code, info] of Object.entries(CODES).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const prefix = code.includes(".") ? `\`${code.slice(0, code.indexOf("."))}.*\`` : NO_PREFIX;
    groups.set(prefix, [...(groups.get(prefix) ?? []), [code, info]]);
  }
  const order = [NO_PREFIX, ...[...groups.keys()].filter((g) => g !== NO_PREFIX)];
  const lines = [
    "# Refusal codes",
    "",
    "<!-- Generated from src/result/codes.ts by `bun run gen:errors`: edit the registry, not this page. -->",
    "",
    "Every code a refusal can carry, as `error_code` in a result or in the journal. The refusal's",
    "message names the case and how to fix it; `details` carry what a program needs. The front page",
    "is [README.md](../README.md), whose [Exit codes](../README.md#exit-codes) this page details.",
    "",
    "The outcome says how a code reaches you:",
    "",
    '- **failed**: a result with `"status": "failed"`, printed and journaled;',
    '- **indeterminate**: a result with `"status": "indeterminate"`: the call may have acted, and',
    "  it is recorded, never replayed;",
    "- **failed, or indeterminate**: failed from a built-in tool; indeterminate (exit 3) from a tool",
    "  that runs outside toolgate, whose effect is unknown;",
    "- **no result (stderr)**: the command stops before any call and says why on stderr (this code",
    "  is not printed; its message is);",
    "- **journal row**: no command ends with it; `toolgate log` shows it.",
    "",
    `${Object.keys(CODES).length} codes, by prefix.`,
  ];
  for (const g of order) {
    lines.push(
      "",
      `## ${g}`,
      "",
      ...(NOTES[g] ? [NOTES[g], ""] : []),
      "| code | exit | outcome | meaning |",
      "|---|---|---|---|",
    );
    for (const [code, info] of groups.get(g)!)
      lines.push(`| \`${code}\` | ${exitOf(info)} | ${OUTCOME[info.outcome]} | ${cell(info.meaning)} |`);
  }
  return `${lines.join("\n")}\n`;
}

if (import.meta.main) {
  const path = new URL("../docs/errors.md", import.meta.url).pathname;
  const next = renderErrors();
  const prev = await Bun.file(path)
    .text()
    .catch(() => "");
  if (process.argv.includes("--check")) {
    if (prev !== next) {
      console.error("docs/errors.md is out of date: run `bun run gen:errors`");
      process.exit(1);
    }
  } else if (prev !== next) {
    await Bun.write(path, next);
    console.error("wrote docs/errors.md");
  }
}
