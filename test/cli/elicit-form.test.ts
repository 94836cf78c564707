// The terminal form for a server's elicitation: which schemas it asks, how a typed line becomes a
// value (Enter keeps the default, SEP-1034), and the whole conversation on a scripted terminal.
import { describe, expect, test } from "bun:test";
import { askForm, fieldsOf, parseAnswer, type Field } from "../../src/cli/elicit-form.ts";
import type { TtyLines } from "../../src/permission/prompt.ts";

const field = (over: Partial<Field>): Field => ({ key: "k", label: "k", kind: "string", required: false, ...over });

/** A terminal whose lines are `typed`, one per read; what was written is kept. */
function scripted(typed: string[]): TtyLines & { shown: string } {
  const t = {
    shown: "",
    write: (s: string) => void (t.shown += s),
    line: () => typed.shift() ?? null,
    close: () => {},
  };
  return t;
}

describe("fieldsOf", () => {
  test("primitive properties, titles, defaults, required, enum forms", () => {
    const r = fieldsOf({
      type: "object",
      properties: {
        name: { type: "string", title: "Name", default: "Ada", minLength: 1 },
        n: { type: "integer", minimum: 1, maximum: 9 },
        c: { type: "string", enum: ["r", "g"], enumNames: ["Red", "Green"] },
        t: { type: "string", oneOf: [{ const: "a", title: "Alpha" }] },
        b: { type: "boolean", description: "Yes?" },
      },
      required: ["name"],
    });
    expect(r).toEqual({
      ok: true,
      fields: [
        { key: "name", label: "Name", kind: "string", required: true, default: "Ada", min: 1 },
        { key: "n", label: "n", kind: "integer", required: false, min: 1, max: 9 },
        {
          key: "c",
          label: "c",
          kind: "enum",
          required: false,
          options: [
            { value: "r", title: "Red" },
            { value: "g", title: "Green" },
          ],
        },
        { key: "t", label: "t", kind: "enum", required: false, options: [{ value: "a", title: "Alpha" }] },
        { key: "b", label: "b", kind: "boolean", required: false, description: "Yes?" },
      ],
    });
  });

  test("a nested object or an array is not asked: the reason names the property", () => {
    expect(fieldsOf({ type: "object", properties: { deep: { type: "object" } } })).toEqual({
      ok: false,
      why: 'property "deep" has type "object", which a terminal form does not ask',
    });
    expect(fieldsOf({ type: "array" })).toEqual({ ok: false, why: "the requested schema is not an object" });
  });
});

describe("parseAnswer", () => {
  test.each([
    [field({ default: "Ada" }), "", { ok: true, value: "Ada" }],
    [field({ required: true }), "", { ok: false, why: "this field is required" }],
    [field({}), "", { ok: true, value: undefined }],
    [field({ kind: "integer", default: 30 }), "", { ok: true, value: 30 }],
    [field({ kind: "integer" }), "4.5", { ok: false, why: "answer a whole number" }],
    [field({ kind: "number", max: 10 }), "95.5", { ok: false, why: "answer between -∞ and 10" }],
    [field({ kind: "number" }), " 95.5 ", { ok: true, value: 95.5 }],
    [field({ kind: "boolean", default: true }), "", { ok: true, value: true }],
    [field({ kind: "boolean" }), "No", { ok: true, value: false }],
    [field({ kind: "boolean" }), "maybe", { ok: false, why: "answer yes or no" }],
    [
      field({
        kind: "enum",
        options: [
          { value: "a", title: "a" },
          { value: "b", title: "b" },
        ],
      }),
      "2",
      { ok: true, value: "b" },
    ],
    [
      field({ kind: "enum", options: [{ value: "a", title: "a" }] }),
      "z",
      { ok: false, why: "answer one of a (or its number)" },
    ],
    [field({ max: 3 }), "long", { ok: false, why: "answer 0-3 characters" }],
  ])("%o + %p", (f, line, expected) => {
    expect(parseAnswer(f, line)).toEqual(expected as never);
  });
});

describe("askForm", () => {
  const form = {
    message: "Who?\n\x1b[31mred",
    requestedSchema: {
      type: "object",
      properties: { name: { type: "string", default: "Ada" }, age: { type: "integer" } },
      required: ["age"],
    },
  };
  const who = { server: "s", tool: "s__t" };

  test("defaults kept, a bad line asked again, accepted; the server's text is escaped", () => {
    const tty = scripted(["", "x", "7", "a"]);
    expect(askForm(tty, form, who)).toEqual({ action: "accept", content: { name: "Ada", age: 7 } });
    expect(tty.shown).toContain("┃   answer a whole number\n");
    expect(tty.shown).not.toContain("\x1b[31m");
  });

  test("d declines; end of input, or three bad lines, cancels", () => {
    expect(askForm(scripted(["", "7", "d"]), form, who)).toEqual({ action: "decline" });
    expect(askForm(scripted([""]), form, who)).toEqual({ action: "cancel" });
    expect(askForm(scripted(["", "x", "y", "z", "7", "a"]), form, who)).toEqual({ action: "cancel" });
  });
});
