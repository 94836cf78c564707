import { expect, test } from "bun:test";
import { type } from "arktype";
import { arkIssues } from "../../src/schema/ark-issues.ts";

const issuesOf = (t: (x: unknown) => unknown, data: unknown) => {
  const out = t(data);
  if (!(out instanceof type.errors)) throw new Error("expected arktype to refuse");
  return arkIssues(out);
};

test("keeps the path apart from the message", () => {
  const t = type({ a: "number", b: { c: "string" }, list: "string[]" });
  expect(issuesOf(t, { a: "x", b: { c: 1 }, list: ["ok", 2] })).toEqual([
    { path: ["a"], message: "must be a number (was a string)" },
    { path: ["b", "c"], message: "must be a string (was a number)" },
    { path: ["list", 1], message: "must be a string (was a number)" },
  ]);
});

test("splits several problems at one path into one issue each", () => {
  expect(issuesOf(type("number % 2 > 3"), 3)).toEqual([
    { path: [], message: "must be even (was 3)" },
    { path: [], message: "must be more than 3 (was 3)" },
  ]);
});

test("reports undeclared keys and unions in arktype's words", () => {
  expect(issuesOf(type({ "+": "reject", v: "string | null" }), { v: 1, extra: 0 })).toEqual([
    { path: ["v"], message: "must be a string or null (was a number)" },
    { path: ["extra"], message: "must be removed" },
  ]);
});

test("keeps a configured message whole", () => {
  const t = type({ name: type("string").configure({ message: "name needs a string" }) });
  expect(issuesOf(t, { name: 1 })).toEqual([{ path: ["name"], message: "name needs a string" }]);
});

test("does not load arktype at run time", async () => {
  const source = await Bun.file(new URL("../../src/schema/ark-issues.ts", import.meta.url)).text();
  expect(source).not.toMatch(/^import (?!type )/m);
});
