import { expect, test } from "bun:test";
import { renderConfigCheck, renderSchemas, renderValidators } from "../../scripts/gen-schemas.ts";
import { ROOT } from "../helpers.ts";

test("src/generated/schemas.json matches the arktype declarations (run `bun run gen` if not)", async () => {
  expect(await Bun.file(`${ROOT}/src/generated/schemas.json`).text()).toBe(renderSchemas());
});

test("src/generated/validators.js matches the exported schemas (run `bun run gen` if not)", async () => {
  expect(await Bun.file(`${ROOT}/src/generated/validators.js`).text()).toBe(renderValidators(renderSchemas()));
});

test("src/generated/config-check.js matches the exported config schema (run `bun run gen` if not)", async () => {
  expect(await Bun.file(`${ROOT}/src/generated/config-check.js`).text()).toBe(renderConfigCheck(renderSchemas()));
});
