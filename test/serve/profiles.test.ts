// Profiles: the built-ins offer exactly their lists (scout reads the desk but never writes it),
// config profiles match names with `*`, exclude wins, and an unknown or redefined name is refused
// with what is known. In process, the real pipeline refuses what a profile does not offer.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BUILTIN_PROFILE_NAMES, redefinedProfile } from "../../src/config/profiles.ts";
import type { JournalRow } from "../../src/state/journal.ts";
import { resolveProfile, wildcard, type Profile, type ProfileConfig } from "../../src/serve/profiles.ts";
import { openState } from "../../src/state/db.ts";
import { laneStore } from "../../src/state/lanes.ts";
import { builtinTools } from "../../src/tools/index.ts";
import { callScope, tempDir } from "../helpers.ts";
import { approving, callThrough, permissionsOf, pipelineDeps, unsandboxed } from "../support/pipeline.ts";

const BUILTIN_NAMES = builtinTools.map((t) => t.name);
const RAILS = ["bank_search", "bank_get", "librarian", "research"];

function profile(name: string | undefined, config?: Record<string, ProfileConfig>): Profile {
  const r = resolveProfile(name, config);
  if (!r.ok) throw new Error(r.refusal.message);
  return r.value;
}

const listed = (p: Profile, names: readonly string[]) => names.filter((n) => p.offers(n));

describe("built-in profiles", () => {
  test.each([
    ["full", [...BUILTIN_NAMES, ...RAILS, "finance__transfer"]],
    ["scout", ["file_read", "file_find", "file_search", "skill_list", "skill_load", "plan", "desk", ...RAILS]],
    ["writer", ["file_read", "file_edit", "file_write"]],
  ])("%s offers exactly its list", (name, offered) => {
    const p = profile(name);
    expect(p.name).toBe(name);
    expect(listed(p, [...BUILTIN_NAMES, ...RAILS, "finance__transfer"]).sort()).toEqual([...offered].sort());
  });

  test("no name is full", () => {
    expect(profile(undefined).name).toBe("full");
    expect(profile(undefined).offers("bash", { command: "rm -rf /" })).toBe(true);
  });

  test.each([
    ["scout", "desk", undefined, true],
    ["scout", "desk", {}, true],
    ["scout", "desk", { text: "new page" }, false],
    ["scout", "desk", { text: "", expected_version: 0 }, false],
    ["scout", "file_read", { path: "a" }, true],
    ["scout", "file_write", { path: "a", content: "x" }, false],
    ["writer", "file_write", { path: "a", content: "x" }, true],
    ["writer", "desk", {}, false],
    ["writer", "bash", { command: "true" }, false],
  ])("%s offers %s with %j: %p", (name, tool, args, offered) => {
    expect(profile(name).offers(tool, args)).toBe(offered);
  });

  test("the names the config reader reserves are exactly the built-ins", () => {
    expect(BUILTIN_PROFILE_NAMES.map((n) => profile(n).name)).toEqual([...BUILTIN_PROFILE_NAMES]);
  });
});

describe("config profiles", () => {
  const NAMES = [
    "file_read",
    "file_write",
    "file_edit",
    "bash",
    "finance__transfer",
    "finance__balance",
    "skarbiec__get",
    "a.b",
    "a*b",
  ];
  test.each([
    ["include only", { include: ["file_*"] }, ["file_read", "file_write", "file_edit"]],
    [
      "exclude only",
      { exclude: ["bash", "finance__*"] },
      ["file_read", "file_write", "file_edit", "skarbiec__get", "a.b", "a*b"],
    ],
    [
      "exclude wins",
      { include: ["file_*", "finance__*"], exclude: ["*_write", "finance__transfer"] },
      ["file_read", "file_edit", "finance__balance"],
    ],
    ["an empty include offers nothing", { include: [] }, []],
    ["no keys offer everything", {}, NAMES],
    ["a star in the middle", { include: ["*__b*"] }, ["finance__balance"]],
    ["a lone star", { include: ["*"], exclude: ["*e*"] }, ["bash", "a.b", "a*b"]],
    ["regex characters are literal", { include: ["a.b"] }, ["a.b"]],
    ["a star matches a star too", { include: ["a*"] }, ["a.b", "a*b"]],
    ["exact names, no prefix match", { include: ["file"] }, []],
  ])("%s", (_, config, offered) => {
    const p = profile("mine", { mine: config });
    expect(p.name).toBe("mine");
    expect(listed(p, NAMES)).toEqual(offered);
    // Arguments never change a config profile's answer.
    for (const n of NAMES) expect(p.offers(n, { text: "x" })).toBe(p.offers(n));
  });

  test.each([
    ["file_*", "file_", true],
    ["file_*", "xfile_read", false],
    ["*read", "file_read", true],
    ["*read", "file_reader", false],
    ["f*_*d", "file_read", true],
    ["(a|b)", "a", false],
    ["", "", true],
    ["", "a", false],
  ])("wildcard %j matches %j: %p", (pattern, name, hit) => expect(wildcard(pattern)(name)).toBe(hit));

  test("an unknown name is refused listing the built-ins and the config's profiles, and names the nearest when one is close", () => {
    expect(resolveProfile("scuot", { zeta: {}, alpha: { include: ["x"] } })).toEqual({
      ok: false,
      refusal: {
        code: "profile.unknown",
        message:
          'no profile named "scuot"; the profiles are: full, scout, writer (built in); alpha, zeta (toolgate.json "profiles"); did you mean "scout"?',
        details: { profile: "scuot", known: ["full", "scout", "writer", "alpha", "zeta"], did_you_mean: "scout" },
      },
    });
    expect(resolveProfile("alhpa", { zeta: {}, alpha: {} })).toMatchObject({
      ok: false,
      refusal: { details: { did_you_mean: "alpha" } },
    });
    expect(resolveProfile("frobnicate", { alpha: {} })).toEqual({
      ok: false,
      refusal: {
        code: "profile.unknown",
        message:
          'no profile named "frobnicate"; the profiles are: full, scout, writer (built in); alpha (toolgate.json "profiles")',
        details: { profile: "frobnicate", known: ["full", "scout", "writer", "alpha"] },
      },
    });
    expect(resolveProfile("toString", undefined)).toMatchObject({ ok: false, refusal: { code: "profile.unknown" } });
  });

  test.each(BUILTIN_PROFILE_NAMES.map((n) => [n]))(
    "a config profile named %s is refused, whichever profile is asked for",
    (name) => {
      expect(resolveProfile("mine", { mine: {}, [name]: { include: ["bash"] } })).toEqual({
        ok: false,
        refusal: {
          code: "profile.reserved",
          message: `the config's profiles.${name} redefines the built-in profile "${name}"`,
          details: { profile: name },
        },
      });
      expect(redefinedProfile({ profiles: { mine: {}, [name]: {} } })).toEqual(["profiles", name]);
    },
  );

  test.each([[{}], [{ profiles: {} }], [{ profiles: { mine: {}, "full-ish": {} } }]])("%j redefines nothing", (data) =>
    expect(redefinedProfile(data)).toBeNull(),
  );
});

describe("the pipeline with a profile (in process, real catalog and permissions)", () => {
  async function pipeline(ws: string, name: string) {
    const db = openState(join(ws, ".toolgate"));
    const rows: JournalRow[] = [];
    const started: JournalRow[] = [];
    const deps = pipelineDeps({
      scope: callScope(ws, { store: () => laneStore(db) }),
      processes: unsandboxed(join(ws, ".toolgate")),
      permissions: permissionsOf({ allow: { read: true, write: true, run: true }, deny: {} }, ws),
      approval: approving(["all"]),
      profile: profile(name),
      started: (r: JournalRow) => void started.push(r),
      journal: (r: JournalRow) => void rows.push(r),
    });
    return {
      call: (tool: string, args: unknown) => callThrough(tool, args, deps),
      rows,
      started,
      [Symbol.dispose]: () => db.close(),
    };
  }

  test("scout cannot call file_write or bash even by name, nor write the desk; nothing runs and each refusal is journaled", async () => {
    await using ws = tempDir();
    using p = await pipeline(ws.path, "scout");
    expect(await p.call("file_write", { path: "x.txt", content: "no" })).toEqual({
      status: "failed",
      tool: "file_write",
      error_code: "profile.excluded",
      message: 'file_write is not offered in profile "scout"; a session with another profile can call it',
    });
    expect(await p.call("bash", { command: "touch y.txt" })).toMatchObject({
      status: "failed",
      error_code: "profile.excluded",
    });
    expect(await p.call("desk", { text: "scouted" })).toEqual({
      status: "failed",
      tool: "desk",
      error_code: "profile.excluded",
      message:
        'this call of desk is not offered in profile "scout" (it offers only some calls of desk); a session with another profile can call it',
    });
    expect(await p.call("desk", {})).toEqual({
      status: "success",
      tool: "desk",
      payload: { lane: "default", version: 0, text: "" },
    });
    expect(p.started.map((r) => r.tool)).toEqual(["desk"]);
    expect(p.rows.map((r) => [r.tool, r.status, r.error_code])).toEqual([
      ["file_write", "failed", "profile.excluded"],
      ["bash", "failed", "profile.excluded"],
      ["desk", "failed", "profile.excluded"],
      ["desk", "success", null],
    ]);
    expect(await Bun.file(join(ws.path, "x.txt")).exists()).toBe(false);
    expect(await Bun.file(join(ws.path, "y.txt")).exists()).toBe(false);
  });

  test("writer writes files but cannot read the desk or run bash", async () => {
    await using ws = tempDir();
    using p = await pipeline(ws.path, "writer");
    expect(await p.call("file_write", { path: "x.txt", content: "yes" })).toMatchObject({
      status: "success",
      tool: "file_write",
    });
    expect(await Bun.file(join(ws.path, "x.txt")).text()).toBe("yes");
    expect(await p.call("desk", {})).toMatchObject({
      error_code: "profile.excluded",
      message: 'desk is not offered in profile "writer"; a session with another profile can call it',
    });
    expect(await p.call("bash", { command: "true" })).toMatchObject({ error_code: "profile.excluded" });
  });

  test("a profile is checked after validation: invalid arguments are args.invalid whatever the profile", async () => {
    await using ws = tempDir();
    using p = await pipeline(ws.path, "scout");
    expect(await p.call("file_write", { nope: 1 })).toMatchObject({ error_code: "args.invalid" });
    expect(await p.call("no_such_tool", {})).toMatchObject({ error_code: "unknown_tool" });
  });
});
