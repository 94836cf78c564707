// Served names: what fits stays, the rest becomes stem + digest; deterministic, reversible, and
// never two-to-one, also against names built to take another's shortened form.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { DEFAULT_NAME_BUDGET, parseNameBudget, servedNames } from "../../src/serve/names.ts";

const RULE = /^[a-zA-Z0-9_-]{1,64}$/;
const hex8 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex").slice(0, 8);
const normal = (n: string) => n.toLowerCase().replaceAll("-", "_");

/** Every property the mapping promises, for any input. */
function checkMapping(names: readonly string[], budget: number) {
  const m = servedNames(names, budget);
  const unique = [...new Set(names)];
  expect([...m.toServed.keys()].sort()).toEqual([...unique].sort());
  expect(m.fromServed.size).toBe(unique.length);
  const normals = new Set<string>();
  for (const n of unique) {
    const s = m.toServed.get(n)!;
    expect(s.length).toBeLessThanOrEqual(budget);
    expect(s).toMatch(RULE);
    expect(m.fromServed.get(s)).toBe(n);
    if (n.length <= budget && RULE.test(n)) expect(s).toBe(n);
    else normals.add(normal(s));
  }
  // No shortened name equals (even after lowercase, - → _) any other served name.
  const kept = unique.filter((n) => m.toServed.get(n) === n).map(normal);
  for (const k of kept) expect(normals.has(k)).toBe(false);
  expect(normals.size).toBe(unique.length - kept.length);
  // Deterministic, whatever the order of the input.
  const again = servedNames([...names].reverse(), budget);
  expect([...again.toServed].sort()).toEqual([...m.toServed].sort());
  return m;
}

const long70 = `finance__${"transfer_between_accounts_".repeat(3)}`.slice(0, 70);
test("the long name is 70 characters", () => expect(long70.length).toBe(70));

describe("servedNames", () => {
  test.each([
    [
      "short names stay",
      ["file_read", "finance__transfer", "a-b"],
      44,
      { file_read: "file_read", finance__transfer: "finance__transfer", "a-b": "a-b" },
    ],
    ["exactly the budget stays", ["x".repeat(16)], 16, { ["x".repeat(16)]: "x".repeat(16) }],
    ["one past the budget is shortened", ["x".repeat(17)], 16, { ["x".repeat(17)]: `xxxxxxx_${hex8("x".repeat(17))}` }],
    ["a 70-character name", [long70], 44, { [long70]: `finance__transfer_between_accounts_${hex8(long70)}` }],
    ["a 70-character name, budget 30", [long70], 30, { [long70]: `finance__transfer_bet_${hex8(long70)}` }],
    [
      "non-conforming characters become _ and get a digest",
      ["weird.name/v2"],
      44,
      { "weird.name/v2": `weird_name_v2_${hex8("weird.name/v2")}` },
    ],
    ["non-ASCII", ["zażółć"], 44, { zażółć: `za_${hex8("zażółć")}` }],
    ["the empty name", [""], 44, { "": `_${hex8("")}` }],
    [
      "a stem cut on _ loses the trailing _",
      ["abcdef__ghijklmnop"],
      16,
      { abcdef__ghijklmnop: `abcdef_${hex8("abcdef__ghijklmnop")}` },
    ],
  ])("%s", (_, names, budget, expected) => {
    const m = checkMapping(names, budget);
    expect(Object.fromEntries(m.toServed)).toEqual(expected);
  });

  test("names that differ only past the budget get different served names", () => {
    const base = "las__surface__".padEnd(60, "a");
    const names = [`${base}1`, `${base}2`, `${base}-`, `${base}_`, `${base}.`];
    const m = checkMapping(names, 44);
    expect(new Set(m.toServed.values()).size).toBe(5);
    for (const s of m.toServed.values()) expect(s.startsWith(base.slice(0, 35))).toBe(true);
  });

  test("a real name equal to another's shortened form keeps its name; the long one moves to a longer digest", () => {
    const long = "x".repeat(70);
    const first = servedNames([long], 44).toServed.get(long)!;
    const m = checkMapping([long, first], 44);
    expect(m.toServed.get(first)).toBe(first);
    expect(m.toServed.get(long)).toBe(
      `${"x".repeat(31)}_${createHash("sha256").update(long).digest("hex").slice(0, 12)}`,
    );
  });

  test("a real name equal to it only after normalization counts as taken too", () => {
    const long = "Y".repeat(70);
    const first = servedNames([long], 44).toServed.get(long)!;
    const m = checkMapping([long, first.toLowerCase().replace("_", "-")], 44);
    expect(normal(m.toServed.get(long)!)).not.toBe(normal(first));
  });

  test("when every digest length is taken, the counted fallback still finds a free name", () => {
    const long = "z".repeat(70);
    const h = createHash("sha256").update(long).digest("hex");
    // Real names squatting on the 8-, 12- and 16-hex forms and the first fallback, at budget 30.
    const squat = [
      `${"z".repeat(21)}_${h.slice(0, 8)}`,
      `${"z".repeat(17)}_${h.slice(0, 12)}`,
      `${"z".repeat(13)}_${h.slice(0, 16)}`,
      `${"z".repeat(19)}_${h.slice(0, 8)}x0`,
    ];
    const m = checkMapping([long, ...squat], 30);
    expect(m.toServed.get(long)).toBe(`${"z".repeat(19)}_${h.slice(0, 8)}x1`);
  });

  test("two shortened names whose 8-hex forms would meet: the second takes the longer digest", () => {
    // Same stem and (forced) same served form: a name that maps to the other's served form is impossible
    // to construct without a sha256 collision, so squat on one and check both stay distinct.
    const a = `${"q".repeat(60)}a`;
    const b = `${"q".repeat(60)}b`;
    const m = checkMapping([a, b, `${"q".repeat(35)}_${hex8(a)}`], 44);
    expect(m.toServed.get(a)).not.toBe(`${"q".repeat(35)}_${hex8(a)}`);
    expect(m.toServed.get(b)).toBe(`${"q".repeat(35)}_${hex8(b)}`);
  });

  test("many long names from one server, every budget: the properties hold", () => {
    const names = Array.from(
      { length: 200 },
      (_, i) => `server_with_a_rather_long_name__tool_number_${String(i).padStart(3, "0")}_doing_things`,
    );
    for (const budget of [16, 17, 30, 44, 63, 64]) checkMapping([...names, "file_read", "bash"], budget);
  });

  test("duplicates in the input map once", () => {
    const m = checkMapping(["a", "a", long70, long70], 44);
    expect(m.toServed.size).toBe(2);
  });

  test("the default budget is 44", () => {
    expect(DEFAULT_NAME_BUDGET).toBe(44);
    expect(servedNames([long70]).toServed.get(long70)).toBe(servedNames([long70], 44).toServed.get(long70));
  });

  test.each([15, 65, 0, 30.5, Number.NaN])("budget %p is a bug for the caller (RangeError)", (b) => {
    expect(() => servedNames(["a"], b)).toThrow(RangeError);
  });
});

describe("parseNameBudget", () => {
  test.each([
    [undefined, 44],
    ["16", 16],
    ["30", 30],
    ["64", 64],
    [" 40 ", 40],
  ])("%p → %p", (raw, n) => expect(parseNameBudget(raw)).toEqual({ ok: true, value: n }));

  test.each(["15", "65", "0", "-20", "30.5", "1e1", "", "abc", "0x20"])("%p is refused with the range", (raw) => {
    expect(parseNameBudget(raw)).toEqual({
      ok: false,
      refusal: {
        code: "name_budget.invalid",
        message: `--name-budget must be a whole number from 16 to 64 (got ${JSON.stringify(raw)}): the longest served name, 64 minus the prefix your client puts in front (default 44)`,
      },
    });
  });
});
