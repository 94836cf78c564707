import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { ToolSource } from "../../src/catalog/catalog.ts";
import { mayDiscover, mayOwnUnlisted, ownerOf, withholdBadServers } from "../../src/servers/boot.ts";
import type { ServerStatus } from "../../src/servers/list.ts";
import type { RemoteSpec } from "../../src/servers/specs.ts";
import { remoteTerms } from "../helpers.ts";

const spec = (name: string, kind: "las" | "mcp" = "mcp", required = false): RemoteSpec => ({
  name,
  origin: kind === "las" ? "las" : `mcp:${name}`,
  kind,
  required,
  network: false,
  pin: false,
  needs: [],
  transport: { kind: "stdio", argv: ["x"], cwd: "/", values: {}, secrets: {} },
  connectTimeoutMs: 1,
  timeoutMs: 1,
  graceMs: 0,
});
const tool = (origin: string, name: string, inputSchema: unknown = { type: "object" }): ToolSource => ({
  origin,
  rawName: name,
  name,
  description: "",
  inputSchema,
  approval: "required",
  terms: remoteTerms(),
  adapter: { needs: () => ({ ok: true, value: [] }), run: async () => ({ ok: true, value: null }) },
});
const builtin = (n: string) => n === "file_read";
const serverHex = createHash("sha256").update("github.com/owner/repo").digest("hex").slice(0, 8);

describe("mayDiscover", () => {
  test.each([
    [undefined, "gh", true], // tools: every server
    ["file_read", "gh", false], // a built-in starts none
    ["gh__issue", "gh", true],
    ["gh__issue", "web", false],
    ["plain", "gh", false],
    ["gh__db_query_1a2b3c4d", "gh", true], // a mapped tool name keeps its server's prefix
    ["ghx__issue", "gh", false],
    [`github_com_owner_repo_${serverHex}__x`, "github.com/owner/repo", true], // a mapped server prefix
    ["github__x", "github.com/owner/repo", false],
  ] as const)("call %p, server %p: %p", (call, server, want) =>
    expect(mayDiscover(spec(server), call, builtin, ["finance"])).toBe(want),
  );

  test("Las only for its selected surfaces", () => {
    expect(mayDiscover(spec("las", "las"), "finance__balance", builtin, ["finance"])).toBe(true);
    expect(mayDiscover(spec("las", "las"), "skarbiec__x", builtin, ["finance"])).toBe(false);
    expect(mayDiscover(spec("las", "las"), "file_read", builtin, ["finance"])).toBe(false);
  });
});

describe("ownerOf, mayOwnUnlisted", () => {
  const specs = [spec("gh"), spec("gh_enterprise"), spec("web")];
  const status = (name: string, ok: boolean): ServerStatus => ({
    name,
    origin: `mcp:${name}`,
    ok,
    tools: ok ? 1 : 0,
    cached: false,
  });

  test.each([
    ["gh__issue", "gh"],
    ["gh_enterprise__issue", "gh_enterprise"], // the longest prefix
    ["web__fetch", "web"],
    ["nobody__x", undefined],
    ["file_read", undefined],
    ["__x", undefined],
  ])("%p is owned by %p", (name, owner) => expect(ownerOf(specs, name)?.name).toBe(owner as string));

  test("a name of no configured server goes to Las when there is one", () => {
    expect(ownerOf([...specs, spec("las", "las")], "finance__balance")?.name).toBe("las");
  });

  test.each([
    ["a server listed this boot: its tools are known", "gh__isue", [status("gh", true)], false],
    ["a server not started for this boot (a call starts its own tool's only)", "web__fech", [status("gh", true)], true],
    ["a server that failed or was withheld", "web__fech", [status("web", false)], true],
    ["no server would own it", "file_raed", [], false],
  ] as const)("%s: %p → %p", (_what, name, st, want) => expect(mayOwnUnlisted(specs, st, name)).toBe(want));
});

describe("withholdBadServers", () => {
  test("an optional server colliding with a required one is withheld; the required one stays", () => {
    const remote = [tool("mcp:a", "a_b__x"), tool("mcp:a-b", "a-b__x")];
    const r = withholdBadServers(remote, [spec("a", "mcp", true), spec("a-b")], []);
    expect(r.keep.map((t) => t.origin)).toEqual(["mcp:a"]);
    expect(r.withheld).toEqual([{ server: "a-b", reason: expect.stringContaining("a tool from mcp:a") }]);
  });

  test("a collision with an authored tool withholds the server", () => {
    const r = withholdBadServers([tool("mcp:gh", "gh__x")], [spec("gh")], [tool("authored", "GH__X")]);
    expect([r.keep, r.withheld.map((w) => w.server)]).toEqual([[], ["gh"]]);
  });

  test("a clean server is kept whole", () => {
    const r = withholdBadServers(
      [tool("mcp:gh", "gh__x"), tool("mcp:gh", "gh__y")],
      [spec("gh")],
      [tool("builtin", "file_read")],
    );
    expect([r.keep.length, r.withheld]).toEqual([2, []]);
  });
});
