import { describe, expect, test } from "bun:test";
import { approve, checkOverrides, type ApprovalDeps, type ApprovalRequest } from "../../src/approval/approval.ts";
import type { Entry } from "../../src/catalog/catalog.ts";

const entry = (over: Partial<Entry> = {}): Entry =>
  ({
    name: "file_read",
    origin: "builtin",
    description: "",
    effect: "read",
    approval: "required",
    digest: "a".repeat(64),
    inputSchema: { type: "object" },
    rawName: "file_read",
    adapter: null as never,
    ...over,
  }) as Entry;

function deps(over: Partial<ApprovalDeps> = {}) {
  const remembered = new Set<string>();
  const asked: ApprovalRequest[] = [];
  const d: ApprovalDeps = {
    approved: new Set(),
    overrides: {},
    isRemembered: (t, dg) => remembered.has(`${t}@${dg}`),
    remember: (t, dg) => void remembered.add(`${t}@${dg}`),
    ask: undefined,
    ...over,
  };
  return { d, remembered, asked };
}

describe("approval", () => {
  test("never passes without asking", async () => {
    const { d } = deps();
    expect(await approve(entry({ approval: "never" }), () => "{}", d)).toEqual({ ok: true, value: "policy" });
  });

  test("a config override makes a never tool required", async () => {
    const { d } = deps({ overrides: { file_read: "required" } });
    const r = await approve(entry({ approval: "never" }), () => "{}", d);
    expect(r.ok ? "" : r.refusal.code).toBe("approval.required");
  });

  test.each([[["file_read"]], [["all"]]])("--approve %p passes", async (names) => {
    const { d } = deps({ approved: new Set(names) });
    expect(await approve(entry(), () => "{}", d)).toEqual({ ok: true, value: "flag" });
  });

  test("non-interactive without approval: approval.required naming the flag", async () => {
    const { d } = deps();
    const r = await approve(entry(), () => "{}", d);
    expect(r).toMatchObject({ ok: false, refusal: { code: "approval.required" } });
    expect(r.ok ? "" : r.refusal.message).toContain("--approve file_read");
  });

  test("the prompt sees tool, effect, digest and the whole arguments; A is remembered for this digest only", async () => {
    const asked: ApprovalRequest[] = [];
    const { d, remembered } = deps({ ask: (req) => (asked.push(req), "A") });
    expect(await approve(entry(), () => '{"path":"a"}', d)).toEqual({ ok: true, value: "prompt" });
    expect(asked).toEqual([{ tool: "file_read", effect: "read", digest: "a".repeat(64), args: '{"path":"a"}' }]);
    expect([...remembered]).toEqual([`file_read@${"a".repeat(64)}`]);
    // remembered: no second prompt for the same digest
    expect(await approve(entry(), () => "{}", d)).toEqual({ ok: true, value: "remembered" });
    expect(asked).toHaveLength(1);
    // a changed digest forgets it: asked again
    await approve(entry({ digest: "b".repeat(64) }), () => "{}", d);
    expect(asked).toHaveLength(2);
  });

  test("y approves once without remembering; n refuses approval.denied", async () => {
    const yes = deps({ ask: () => "y" });
    expect((await approve(entry(), () => "{}", yes.d)).ok).toBe(true);
    expect(yes.remembered.size).toBe(0);
    const no = deps({ ask: () => "n" });
    expect(await approve(entry(), () => "{}", no.d)).toMatchObject({ ok: false, refusal: { code: "approval.denied" } });
  });

  test("an unattended child: approval.child_unattended, nothing asked or remembered; --approve still grants", async () => {
    const asked: ApprovalRequest[] = [];
    const { d } = deps({ unattended: true, isRemembered: () => true, ask: (req) => (asked.push(req), "y") });
    expect(await approve(entry(), () => "{}", d)).toMatchObject({
      ok: false,
      refusal: { code: "approval.child_unattended" },
    });
    expect(asked).toEqual([]);
    expect(await approve(entry(), () => "{}", { ...d, approved: new Set(["file_read"]) })).toEqual({
      ok: true,
      value: "flag",
    });
    expect(await approve(entry({ approval: "never" }), () => "{}", d)).toEqual({ ok: true, value: "policy" });
  });

  test("an asynchronous prompt (the client's elicitation) is awaited; howToGrant words the refusal", async () => {
    const { d } = deps({ ask: async () => "n" as const });
    expect(await approve(entry(), () => "{}", d)).toMatchObject({ ok: false, refusal: { code: "approval.denied" } });
    const none = deps({ howToGrant: (t) => `start serve with --approve ${t}` });
    const r = await approve(entry(), () => "{}", none.d);
    expect(r.ok ? "" : r.refusal.message).toEndWith("start serve with --approve file_read");
  });

  test("overrides may only make a tool stricter", async () => {
    const entries = new Map([
      ["file_read", entry()],
      ["plan", entry({ name: "plan", approval: "never" })],
    ]);
    expect(checkOverrides({ plan: "required", file_read: "required" }, entries)).toBeNull();
    expect(checkOverrides({ file_read: "never" }, entries)?.tool).toBe("file_read");
  });
});
