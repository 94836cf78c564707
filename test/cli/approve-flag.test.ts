import { describe, expect, test } from "bun:test";
import { approvedNames } from "../../src/cli/approve-flag.ts";
import { CliError } from "../../src/result/result.ts";

const booted = (names: string[], unlisted: string[] = []) =>
  ({
    catalog: { descriptors: [], entries: new Map(names.map((n) => [n, {}])) },
    remote: { mayOwnUnlisted: (n: string) => unlisted.includes(n) },
  }) as unknown as Parameters<typeof approvedNames>[1];

const CATALOG = ["file_read", "file_edit", "bash", "ord__weather"];

describe("approvedNames", () => {
  test.each([
    [
      "catalog names, a comma list and repeats",
      ["file_read,bash", "file_edit"],
      undefined,
      undefined,
      ["file_read", "bash", "file_edit"],
    ],
    ["all", ["all"], undefined, undefined, ["all"]],
    [
      "a served name, with the catalog name behind it",
      ["weather"],
      new Map([["weather", "ord__weather"]]),
      undefined,
      ["weather", "ord__weather"],
    ],
    ["a tool of a server this boot did not list", ["web__fetch"], undefined, undefined, ["web__fetch"]],
    ["the tool a call runs, left to the pipeline's unknown_tool", ["file_raed"], undefined, "file_raed", ["file_raed"]],
  ])("takes %s", (_what, values, served, calling, want) => {
    expect([...approvedNames(values, booted(CATALOG, ["web__fetch"]), served, calling)]).toEqual(want);
  });

  test.each([
    [
      "a near miss, naming the nearest",
      ["file_raed"],
      undefined,
      '--approve file_raed: no tool named "file_raed" in this catalog; did you mean "file_read"?',
    ],
    [
      "a far-off name, naming none",
      ["file_read,frobnicate"],
      undefined,
      '--approve frobnicate: no tool named "frobnicate" in this catalog',
    ],
    [
      "each unknown name, one line each",
      ["al,bsh"],
      undefined,
      '--approve al: no tool named "al" in this catalog; did you mean "all"?\n--approve bsh: no tool named "bsh" in this catalog; did you mean "bash"?',
    ],
    [
      "a near miss of a served name, naming it",
      ["wether"],
      new Map([["weather", "ord__weather"]]),
      '--approve wether: no tool named "wether" in this catalog; did you mean "weather"?',
    ],
  ])("refuses %s: a usage error (exit 2)", (_what, values, served, message) => {
    let thrown: unknown;
    try {
      approvedNames(values, booted(CATALOG), served);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(CliError);
    expect([(thrown as CliError).exitCode, (thrown as CliError).message]).toEqual([2, message]);
  });
});
