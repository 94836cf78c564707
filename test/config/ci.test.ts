import { describe, expect, test } from "bun:test";
import { isCI } from "../../src/config/ci.ts";
import { resolveConfig } from "../../src/config/resolve.ts";

describe("isCI", () => {
  test.each([
    [undefined, false],
    ["", false],
    [" ", false],
    ["false", false],
    ["FALSE", false],
    ["0", false],
    ["true", true],
    ["1", true],
    ["yes", true],
    ["woodpecker", true],
  ])("CI=%p → %p", (v, want) => {
    expect(isCI(v === undefined ? {} : { CI: v })).toBe(want);
  });

  test("CI=1 turns prompting off in the effective config", () => {
    expect(
      resolveConfig({ cwd: "/", file: null, env: { CI: "1" }, flags: {} }).leaves.get("permissions.prompt"),
    ).toEqual({ value: false, origin: "env:CI" });
  });
});
