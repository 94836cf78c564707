import { expect, test } from "bun:test";
import { renderErrors } from "../../scripts/gen-errors.ts";
import { CODES } from "../../src/result/codes.ts";
import { ROOT } from "../helpers.ts";

test("docs/errors.md is the page the refusal registry makes (run `bun run gen:errors` if not)", async () => {
  expect(await Bun.file(`${ROOT}/docs/errors.md`).text()).toBe(renderErrors());
});

test("the page has a row per registered code, under its prefix", () => {
  const page = renderErrors();
  const rows = page.split("\n").filter((l) => l.startsWith("| `"));
  expect(rows).toHaveLength(Object.keys(CODES).length);
  expect(page).toContain(
    "## `file.*`\n\n| code | exit | outcome | meaning |\n|---|---|---|---|\n| `file.ambiguous` | 1 | failed |",
  );
  expect(rows).toContain(
    "| `deadline` | 1 or 3 | failed, or indeterminate | the call did not finish within its deadline; for a tool outside toolgate the effect is unknown |",
  );
  expect(rows).toContain(`| \`permission.denied\` | 4 | failed | ${CODES["permission.denied"].meaning} |`);
});
