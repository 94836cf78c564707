// The caller rules as values: what a rule matches (every key given: sub and client_id by name or
// wildcard, one of the groups, all of the scopes), the first match wins, its profile and approvals
// only narrow the serve line's, a caller no rule matches is refused, and no rules admit everyone.
import { describe, expect, test } from "bun:test";
import { approvalsWithin, callerRules, type CallerRule } from "../../../src/serve/oauth/callers.ts";
import { resolveProfile } from "../../../src/serve/profiles.ts";
import type { Claims } from "../../../src/serve/oauth/verify.ts";

const claims = (over: Partial<Claims> = {}): Claims => ({
  sub: "alice",
  clientId: "team-app",
  scopes: ["mcp:tools"],
  groups: ["readers"],
  exp: 0,
  ...over,
});
const profile = (name: string) => {
  const p = resolveProfile(name, { "no-bash": { exclude: ["bash"] } });
  if (!p.ok) throw new Error(p.refusal.message);
  return p.value;
};
const admit = (
  rules: CallerRule[] | undefined,
  line = { profile: profile("full"), approved: new Set(["all"]) as ReadonlySet<string> },
) => {
  const r = callerRules(rules, { ...line, profiles: { "no-bash": { exclude: ["bash"] } } });
  if (!r.ok) throw new Error(r.refusal.message);
  return r.value;
};
const ruleOf = (c: ReturnType<ReturnType<typeof admit>>) => ("refused" in c ? c.refused : c.rule);

describe("matching", () => {
  const rules: CallerRule[] = [
    { name: "admins", match: { groups: ["admins", "ops"], scopes: ["mcp:tools", "mcp:admin"] } },
    { name: "bots", match: { client_id: "ci-*" }, profile: "scout" },
    { name: "alice", match: { sub: "alice", client_id: ["team-app"] } },
    { name: "readers", match: { groups: "readers" }, profile: "scout" },
  ];
  test.each([
    [
      "one of the groups and every scope",
      claims({ groups: ["ops"], scopes: ["mcp:admin", "mcp:tools"] }),
      "rule admins",
    ],
    [
      "one of the groups but not every scope",
      claims({ sub: "dave", groups: ["ops"] }),
      "no caller rule of this server admits dave via team-app",
    ],
    ["a client by wildcard", claims({ sub: "ci-bot", clientId: "ci-bot", groups: [] }), "rule bots, profile scout"],
    ["sub and client both", claims(), "rule alice"],
    ["the first rule that matches wins", claims({ sub: "bob" }), "rule readers, profile scout"],
    [
      "no group, no rule",
      claims({ sub: "carol", groups: ["guests"] }),
      "no caller rule of this server admits carol via team-app",
    ],
    [
      "a wildcard never matches a missing claim",
      claims({ sub: undefined, clientId: undefined, groups: [] }),
      "no caller rule of this server admits (anonymous)",
    ],
  ])("%s", (_, c, rule) => {
    expect(ruleOf(admit(rules)(c))).toBe(rule);
  });

  test("a rule without match admits everyone; no rules at all admit everyone with the line's narrowing; an empty list admits no one", () => {
    expect(ruleOf(admit([{ name: "all" }])(claims({ sub: "zed" })))).toBe("rule all");
    expect(admit(undefined)(claims())).toEqual({
      key: '["alice","team-app"]',
      id: { sub: "alice", client_id: "team-app" },
    });
    expect("refused" in admit([])(claims())).toBe(true);
  });

  test("a rule's unnamed index is 1-based; its rate travels with the caller", () => {
    const c = admit([{ match: { sub: "x" } }, { requests_per_minute: 30 }])(claims());
    expect(["refused" in c ? undefined : c.rule, "refused" in c ? undefined : c.perMinute]).toEqual(["rule #2", 30]);
  });

  test("its concurrent_sessions travels with the caller; a rule without one sets no limit", () => {
    const rules = [{ match: { sub: "alice" }, concurrent_sessions: 2 }, { name: "rest" }];
    const [a, b] = [admit(rules)(claims()), admit(rules)(claims({ sub: "bob" }))];
    expect(["refused" in a ? undefined : a.maxSessions, "refused" in b ? null : b.maxSessions]).toEqual([2, undefined]);
  });
});

describe("narrowing", () => {
  test("a rule's profile only narrows the line's: offered when both offer", () => {
    const c = admit([{ profile: "no-bash" }], { profile: profile("scout"), approved: new Set(["all"]) })(claims());
    const p = "refused" in c ? undefined : c.profile;
    expect([p?.name, p?.offers("file_read"), p?.offers("bash"), p?.offers("file_write")]).toEqual([
      "scout+no-bash",
      true,
      false,
      false,
    ]);
  });

  test("under the full line, the rule's profile is itself", () => {
    const c = admit([{ profile: "scout" }])(claims());
    expect("refused" in c ? undefined : c.profile?.name).toBe("scout");
  });

  test.each([
    [["all"], undefined, undefined],
    [["all"], ["file_write"], ["file_write"]],
    [["file_read", "file_write"], ["file_write", "bash"], ["file_write"]],
    [["file_read"], ["all"], ["file_read"]],
    [["file_read"], [], []],
  ])("line --approve %p, rule approve %p: %p", (line, rule, kept) => {
    const r = approvalsWithin(new Set(line), rule);
    expect(r === undefined ? undefined : [...r]).toEqual(kept);
  });

  test("a rule naming an unknown profile is refused with its place", () => {
    const r = callerRules([{ profile: "scout" }, { profile: "nobody" }], {
      profile: profile("full"),
      approved: new Set(),
    });
    expect(!r.ok && r.refusal.message).toStartWith('serve.callers[1].profile: no profile named "nobody"');
  });
});
