// call --timeout: bounded by what the tool allows, whatever its source.
import { describe, expect, test } from "bun:test";
import type { Entry } from "../../src/catalog/catalog.ts";
import type { Timing } from "../../src/catalog/terms.ts";
import { boundTimeout, timeLimitOf } from "../../src/runtime/timeout.ts";
import { builtinSources } from "../../src/catalog/builtin.ts";
import { builtinTools } from "../../src/tools/index.ts";

const entry = (time: Timing): Entry => ({ terms: { time } }) as unknown as Entry;
const builtin = (name: string): Entry =>
  ({ terms: builtinSources(builtinTools).find((t) => t.name === name)!.terms }) as unknown as Entry;

describe("boundTimeout", () => {
  test.each([
    [
      "a built-in without a timer of its own: the default deadline",
      builtin("file_read"),
      undefined,
      300,
      "the deadline of a built-in's call",
    ],
    ["bash: bash.max_timeout_secs (default 600)", builtin("bash"), undefined, 600, "bash.max_timeout_secs"],
    [
      "bash: bash.max_timeout_secs from the config",
      builtin("bash"),
      { bash: { max_timeout_secs: 45 } },
      45,
      "bash.max_timeout_secs",
    ],
    [
      "a source with a limit of its own",
      entry({ kind: "own", deadlineMs: 32_000, limit: () => ({ secs: 30, setBy: "mcpServers.m.timeout_secs" }) }),
      undefined,
      30,
      "mcpServers.m.timeout_secs",
    ],
  ] as const)("%s", (_, e, config, secs, setBy) => {
    expect(timeLimitOf(e, config)).toEqual({ secs, setBy });
    expect(boundTimeout(e, secs - 1, config)).toEqual({ secs: secs - 1 });
    expect(boundTimeout(e, secs, config)).toEqual({ secs });
    expect(boundTimeout(e, secs + 1, config)).toEqual({ secs, limit: { secs, setBy } });
  });

  test("dev_check times each of its own runs: no bound", () => {
    const e = builtin("dev_check");
    expect(timeLimitOf(e, undefined)).toBeUndefined();
    expect(boundTimeout(e, 1_000_000, undefined)).toEqual({ secs: 1_000_000 });
  });
});
