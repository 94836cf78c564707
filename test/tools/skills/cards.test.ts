import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { NeedsContext } from "../../../src/catalog/declare.ts";
import { BUNDLED_CARDS } from "../../../src/tools/skills/bundled.ts";
import skillList, { LIST_BOUND_BYTES, listCards, REPORT_BOUND } from "../../../src/tools/skills/skill-list.ts";
import skillLoad, { loadCard } from "../../../src/tools/skills/skill-load.ts";
import {
  CARD_BOUND_BYTES,
  DESCRIPTION_BOUND_CHARS,
  discoverCards,
  FOLDER_SCAN_BOUND,
  parseFrontMatter,
  skillNeeds,
} from "../../../src/tools/skills/cards.ts";
import { ROOT, runUnprivileged, tempDir } from "../../helpers.ts";

const put = (root: string, rel: string, body: string | Uint8Array): void => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), body);
};
const card = (name: string, description: string, body = "body\n") =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
const ok = (name: string, description: string) => ({ ok: true, name, description });
const bad = (reason: string | RegExp) => ({
  ok: false,
  reason: typeof reason === "string" ? reason : expect.stringMatching(reason),
});

describe("front matter", () => {
  test.each([
    ["plain scalars", "---\nname: a\ndescription: does a\n---\nbody", ok("a", "does a")],
    ["CRLF and a BOM", "\uFEFF---\r\nname: a\r\ndescription: does a\r\n---\r\nbody", ok("a", "does a")],
    [
      "keys in any order, others skipped with their nested lines",
      "---\nlicense: MIT\nmetadata:\n  name: inner\n  description: inner\ndescription: outer\nname: a\nallowed-tools: Read\n---\n",
      ok("a", "outer"),
    ],
    [
      "double quotes with escapes",
      '---\nname: "a"\ndescription: "say \\"hi\\"\\tnow \\u00e9"\n---\n',
      ok("a", 'say "hi"\tnow é'),
    ],
    [
      "single quotes with a doubled quote",
      "---\nname: 'a'\ndescription: 'it''s: fine # not a comment'\n---\n",
      ok("a", "it's: fine # not a comment"),
    ],
    [
      "a trailing comment after a plain value (a # after a space)",
      "---\nname: a # the id\ndescription: does a#1 thing # note\n---\n",
      ok("a", "does a#1 thing"),
    ],
    ["a trailing comment after a quoted value", '---\nname: "a"   # the id\ndescription: "x"\n---\n', ok("a", "x")],
    [
      "a colon inside a plain value (lenient)",
      "---\nname: a\ndescription: Use this: when x\n---\n",
      ok("a", "Use this: when x"),
    ],
    [
      "a plain value folded over lines",
      "---\nname: a\ndescription: first\n  second\n\n  third\n---\n",
      ok("a", "first second\nthird"),
    ],
    [
      "a value on the next lines",
      "---\nname: a\ndescription:\n  on the next\n  lines\n---\n",
      ok("a", "on the next lines"),
    ],
    ["a folded block", "---\nname: a\ndescription: >\n  one\n  two\n\n  three\n---\n", ok("a", "one two\nthree")],
    ["a folded block, strip chomping", "---\nname: a\ndescription: >-\n  one\n  two\n---\n", ok("a", "one two")],
    ["a literal block", "---\nname: a\ndescription: |\n  one\n    two\n---\n", ok("a", "one\n  two")],
    [
      "a double-quoted value over lines",
      '---\nname: a\ndescription: "one\n  two\n\n  three"\n---\n',
      ok("a", "one two\nthree"),
    ],
    ["the ... closing marker", "---\nname: a\ndescription: d\n...\nbody", ok("a", "d")],
    ["a blank line and a comment line inside", "---\n# a comment\n\nname: a\ndescription: d\n---\n", ok("a", "d")],
    ["names with dots, underscores, capitals", "---\nname: My_skill.v2\ndescription: d\n---\n", ok("My_skill.v2", "d")],
  ])("parses %s", (_, text, expected) => {
    expect(parseFrontMatter(text)).toEqual(expected as never);
  });

  test.each([
    ["no front matter", "# just markdown\n", /^no front matter/],
    ["front matter not closed", "---\nname: a\ndescription: d\n", /no closing --- line/],
    ["missing name", "---\ndescription: d\n---\n", 'missing "name" in the front matter'],
    ["missing description", "---\nname: a\n---\n", 'missing "description" in the front matter'],
    ["an empty description", '---\nname: a\ndescription: ""\n---\n', 'missing "description" in the front matter'],
    ["a name given twice", "---\nname: a\nname: b\ndescription: d\n---\n", 'the front matter gives "name" twice'],
    ["an unclosed quote", '---\nname: "a\ndescription: d\n---\n', '"name" is not a plain or quoted string'],
    ["text after a closing quote", '---\nname: "a" b\ndescription: d\n---\n', '"name" is not a plain or quoted string'],
    ["an unknown escape", '---\nname: a\ndescription: "\\q"\n---\n', '"description" is not a plain or quoted string'],
    ["a flow sequence", "---\nname: a\ndescription: [x, y]\n---\n", '"description" is not a plain or quoted string'],
    ["an alias", "---\nname: *x\ndescription: d\n---\n", '"name" is not a plain or quoted string'],
    ["a name with a space", "---\nname: my skill\ndescription: d\n---\n", /^the name "my skill" is not 1-64/],
    ["a name starting with a hyphen", "---\nname: -x\ndescription: d\n---\n", /^the name "-x" is not/],
    ["a name of 65 characters", `---\nname: ${"a".repeat(65)}\ndescription: d\n---\n`, /is not 1-64/],
    [
      "an indented name (not a top-level key)",
      "---\n  name: a\ndescription: d\n---\n",
      'missing "name" in the front matter',
    ],
  ])("refuses %s", (_, text, reason) => {
    expect(parseFrontMatter(text)).toEqual(bad(reason) as never);
  });
});

describe("discovery", () => {
  test("workspace cards come first and shadow bundled ones of the same name; the rest are sorted by name", async () => {
    await using ws = tempDir();
    put(ws.path, "skills/zeta/SKILL.md", card("zeta", "last"));
    put(ws.path, "skills/mine/SKILL.md", card("toolgate-call", "my own version"));
    put(ws.path, "more/alpha/SKILL.md", card("alpha", "first"));
    put(ws.path, "more/zeta-again/SKILL.md", card("zeta", "shadowed by the first folder"));
    const d = discoverCards(ws.path, [join(ws.path, "skills"), join(ws.path, "more")], BUNDLED_CARDS);
    expect(d.cards.map((c) => [c.name, c.source, c.path])).toEqual([
      ["alpha", "workspace", "more/alpha/SKILL.md"],
      ["toolgate-authored-tools", "bundled", "bundled:toolgate-authored-tools"],
      ["toolgate-call", "workspace", "skills/mine/SKILL.md"],
      ["toolgate-gates", "bundled", "bundled:toolgate-gates"],
      ["toolgate-journal", "bundled", "bundled:toolgate-journal"],
      ["toolgate-permissions", "bundled", "bundled:toolgate-permissions"],
      ["toolgate-serve", "bundled", "bundled:toolgate-serve"],
      ["zeta", "workspace", "skills/zeta/SKILL.md"],
    ]);
    expect(d.shadowed).toEqual([
      { name: "zeta", path: "more/zeta-again/SKILL.md", by: "skills/zeta/SKILL.md" },
      { name: "toolgate-call", path: "bundled:toolgate-call", by: "skills/mine/SKILL.md" },
    ]);
    expect(d.folders).toEqual([
      { path: "skills", status: "read" },
      { path: "more", status: "read" },
    ]);
    expect([d.skipped, d.scanCapped]).toEqual([[], false]);
  });

  test("bad cards are skipped and reported, never fatal; folders without SKILL.md and hidden ones are not cards", async () => {
    await using ws = tempDir();
    put(ws.path, "skills/good/SKILL.md", card("good", "fine"));
    put(ws.path, "skills/nofront/SKILL.md", "# no front matter\n");
    put(ws.path, "skills/binary/SKILL.md", new Uint8Array([45, 45, 45, 0, 10]));
    put(ws.path, "skills/latin1/SKILL.md", new Uint8Array([0xe9, 10]));
    put(ws.path, "skills/huge/SKILL.md", card("huge", "big", "x".repeat(CARD_BOUND_BYTES)));
    put(
      ws.path,
      "skills/escaping/SKILL.md",
      card("escaping", "every newline costs two bytes serialized", "\n".repeat(CARD_BOUND_BYTES / 2 + 10)),
    );
    put(ws.path, "skills/notes/README.md", "not a card\n");
    put(ws.path, "skills/.hidden/SKILL.md", card("hidden", "hidden"));
    put(ws.path, "skills/loose.md", "a file, not a folder\n");
    mkdirSync(join(ws.path, "skills/dir-card/SKILL.md"), { recursive: true });
    const d = discoverCards(ws.path, [join(ws.path, "skills")], []);
    expect(d.cards.map((c) => c.name)).toEqual(["good"]);
    expect(d.skipped).toEqual([
      { path: "skills/binary/SKILL.md", reason: "SKILL.md is binary (it holds a NUL byte)" },
      { path: "skills/dir-card/SKILL.md", reason: "SKILL.md is not a regular file" },
      { path: "skills/escaping/SKILL.md", reason: `larger than the card bound (${CARD_BOUND_BYTES} bytes serialized)` },
      { path: "skills/huge/SKILL.md", reason: `larger than the card bound (${CARD_BOUND_BYTES} bytes serialized)` },
      { path: "skills/latin1/SKILL.md", reason: "SKILL.md is not UTF-8 text" },
      { path: "skills/nofront/SKILL.md", reason: "no front matter: the file must start with a --- line" },
    ]);
  });

  test("reads never leave the skill folder: a symlinked card or folder pointing out is skipped", async () => {
    await using ws = tempDir();
    put(ws.path, "elsewhere/SKILL.md", card("outside", "should not be read"));
    put(ws.path, "skills/inner/SKILL.md", card("inner", "inside"));
    mkdirSync(join(ws.path, "skills/linked-file"));
    symlinkSync(join(ws.path, "elsewhere/SKILL.md"), join(ws.path, "skills/linked-file/SKILL.md"));
    symlinkSync(join(ws.path, "elsewhere"), join(ws.path, "skills/linked-dir"));
    symlinkSync("inner", join(ws.path, "skills/alias")); // inside the folder: fine, found twice, first wins
    const d = discoverCards(ws.path, [join(ws.path, "skills")], []);
    expect(d.cards.map((c) => [c.name, c.path])).toEqual([["inner", "skills/alias/SKILL.md"]]);
    expect(d.shadowed).toEqual([{ name: "inner", path: "skills/inner/SKILL.md", by: "skills/alias/SKILL.md" }]);
    expect(d.skipped).toEqual([
      { path: "skills/linked-dir/SKILL.md", reason: "it leaves the skill folder (a symlink)" },
      { path: "skills/linked-file/SKILL.md", reason: "it leaves the skill folder (a symlink)" },
    ]);
  });

  test("folders outside the workspace are not read (their path is not shown); missing ones are reported", async () => {
    await using ws = tempDir();
    await using out = tempDir();
    put(out.path, "x/SKILL.md", card("x", "outside"));
    symlinkSync(out.path, join(ws.path, "linked"));
    writeFileSync(join(ws.path, "file"), "");
    const dirs = [out.path, join(ws.path, "linked"), join(ws.path, "nope"), join(ws.path, "file"), join(ws.path, "..")];
    const d = discoverCards(ws.path, dirs, []);
    expect(d.cards).toEqual([]);
    expect(d.folders).toEqual([
      { path: null, status: "outside the workspace" },
      { path: null, status: "outside the workspace" },
      { path: "nope", status: "missing" },
      { path: "file", status: "not a folder" },
      { path: null, status: "outside the workspace" },
    ]);
  });

  test("the scan of one folder is bounded and says so", async () => {
    await using ws = tempDir();
    for (let i = 0; i <= FOLDER_SCAN_BOUND; i++)
      mkdirSync(join(ws.path, "skills", `d${String(i).padStart(4, "0")}`), { recursive: true });
    put(ws.path, "skills/a/SKILL.md", card("a", "first in order, so within the bound"));
    const d = discoverCards(ws.path, [join(ws.path, "skills")], []);
    expect([d.cards.map((c) => c.name), d.scanCapped]).toEqual([["a"], true]);
  });

  // Root reads anything: the call runs as an ordinary user (nobody, when the suite runs as root).
  test("an unreadable card is skipped with the reason", async () => {
    await using ws = tempDir();
    put(ws.path, "skills/locked/SKILL.md", card("locked", "d"));
    chmodSync(ws.path, 0o777);
    chmodSync(join(ws.path, "skills/locked/SKILL.md"), 0);
    const r = await runUnprivileged(["call", "skill_list", "--allow-read", "--approve", "skill_list"], {
      cwd: ws.path,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).payload.skipped).toEqual([
      { path: "skills/locked/SKILL.md", reason: "SKILL.md cannot be read (EACCES)" },
    ]);
  });
});

describe("skill_list", () => {
  test("one line per card, sorted, with sources, paths, counts and the folders read", async () => {
    await using ws = tempDir();
    put(ws.path, "skills/b/SKILL.md", card("b", "does\n  b"));
    put(ws.path, "skills/a/SKILL.md", card("a", "does a"));
    put(ws.path, "skills/c/SKILL.md", "no front matter");
    const bundled = BUNDLED_CARDS.map((b) => parseFrontMatter(b.text) as { name: string; description: string });
    expect(listCards(ws.path, [join(ws.path, "skills")], 0)).toEqual({
      lines: ["a — does a", "b — does b", ...bundled.map((b) => `${b.name} — ${b.description}`)],
      cards: [
        { name: "a", source: "workspace", path: "skills/a/SKILL.md" },
        { name: "b", source: "workspace", path: "skills/b/SKILL.md" },
        ...bundled.map((b) => ({ name: b.name, source: "bundled", path: `bundled:${b.name}` })),
      ],
      counts: {
        cards: 2 + bundled.length,
        workspace: 2,
        bundled: bundled.length,
        shadowed: 0,
        skipped: 1,
        clippedDescriptions: 0,
      },
      shadowed: [],
      skipped: [{ path: "skills/c/SKILL.md", reason: "no front matter: the file must start with a --- line" }],
      folders: [{ path: "skills", status: "read" }],
      scanCapped: false,
      truncated: false,
    });
  });

  test("long descriptions are clipped and counted; long lists are truncated with nextCursor", async () => {
    await using ws = tempDir();
    const n = 80;
    for (let i = 0; i < n; i++)
      put(
        ws.path,
        `skills/s${String(i).padStart(2, "0")}/SKILL.md`,
        card(`s${String(i).padStart(2, "0")}`, "d".repeat(DESCRIPTION_BOUND_CHARS + 5)),
      );
    const first = listCards(ws.path, [join(ws.path, "skills")], 0);
    expect(first.truncated).toBe(true);
    expect(first.lines[0]).toBe(`s00 — ${"d".repeat(DESCRIPTION_BOUND_CHARS)}…`);
    expect(Buffer.byteLength(JSON.stringify([first.lines, first.cards]))).toBeLessThanOrEqual(LIST_BOUND_BYTES + 10);
    const seen = [...first.cards];
    let page: ReturnType<typeof listCards> = first;
    while (page.truncated) {
      page = listCards(ws.path, [join(ws.path, "skills")], page.nextCursor!);
      seen.push(...page.cards);
    }
    expect(seen.map((c) => c.name)).toEqual([
      ...Array.from({ length: n }, (_, i) => `s${String(i).padStart(2, "0")}`),
      ...BUNDLED_CARDS.map((b) => b.folder),
    ]);
    expect(first.counts.clippedDescriptions).toBe(first.cards.length);
  });

  test("shadowed and skipped lists are bounded; the counts give the totals", async () => {
    await using ws = tempDir();
    for (let i = 0; i < REPORT_BOUND + 3; i++) put(ws.path, `skills/bad${i}/SKILL.md`, "nothing");
    const r = listCards(ws.path, [join(ws.path, "skills")], 0);
    expect([r.skipped.length, r.counts.skipped]).toEqual([REPORT_BOUND, REPORT_BOUND + 3]);
  });

  test("declaration: approval required, effect read", () => {
    expect([
      skillList.name,
      skillList.approval,
      skillList.effect,
      skillLoad.name,
      skillLoad.approval,
      skillLoad.effect,
    ]).toEqual(["skill_list", "required", "read", "skill_load", "required", "read"]);
  });
});

describe("skill_load", () => {
  test("returns the card whole, with its source, path and what it shadows", async () => {
    await using ws = tempDir();
    const text = card("toolgate-call", "mine", "# Mine\n");
    put(ws.path, "skills/call/SKILL.md", text);
    expect(loadCard(ws.path, [join(ws.path, "skills")], "toolgate-call")).toEqual({
      ok: true,
      value: {
        name: "toolgate-call",
        description: "mine",
        source: "workspace",
        path: "skills/call/SKILL.md",
        shadows: ["bundled:toolgate-call"],
        text,
      },
    });
  });

  test("a bundled card loads whole from the binary's copy", async () => {
    await using ws = tempDir();
    const r = loadCard(ws.path, [join(ws.path, "skills")], "toolgate-journal") as {
      ok: true;
      value: { text: string; source: string; path: string };
    };
    expect([r.value.source, r.value.path, r.value.text]).toEqual([
      "bundled",
      "bundled:toolgate-journal",
      readFileSync(join(ROOT, "skills/toolgate-journal/SKILL.md"), "utf8"),
    ]);
  });

  test("an unknown name is refused with that name and the names available", async () => {
    await using ws = tempDir();
    put(ws.path, "skills/a/SKILL.md", card("a", "d"));
    const names = ["a", ...BUNDLED_CARDS.map((b) => b.folder)];
    expect(loadCard(ws.path, [join(ws.path, "skills")], "toolgate-cal")).toEqual({
      ok: false,
      refusal: {
        code: "skill.unknown",
        message: `no skill card named "toolgate-cal"; skill_list lists them (available: ${names.join(", ")})`,
        details: { name: "toolgate-cal", available: names, availableCount: names.length },
      },
    });
  });

  test("a name whose card folder was skipped says why", async () => {
    await using ws = tempDir();
    put(ws.path, "skills/broken/SKILL.md", "---\nname: broken\n---\n");
    const r = loadCard(ws.path, [join(ws.path, "skills")], "broken") as {
      ok: false;
      refusal: { code: string; message: string; details: { skipped: unknown } };
    };
    expect(r.refusal.code).toBe("skill.unknown");
    expect(r.refusal.message).toContain(
      'skills/broken/SKILL.md was skipped: missing "description" in the front matter',
    );
    expect(r.refusal.details.skipped).toEqual({
      path: "skills/broken/SKILL.md",
      reason: 'missing "description" in the front matter',
    });
  });
});

describe("needs", () => {
  test("read of each configured folder's real path that exists inside the workspace", async () => {
    await using ws = tempDir();
    mkdirSync(join(ws.path, "real-skills"));
    symlinkSync("real-skills", join(ws.path, "skills"));
    const ctx: NeedsContext = {
      workspace: ws.path,
      scratch: ws.path,
      stateDir: join(ws.path, ".toolgate"),
      skillDirs: [join(ws.path, "skills"), join(ws.path, "missing"), "/"],
    };
    expect(skillNeeds(ctx)).toEqual([{ kind: "read", value: join(ws.path, "real-skills"), recursive: true }]);
    expect(skillList.needs({}, ctx)).toEqual({
      ok: true,
      value: [{ kind: "read", value: join(ws.path, "real-skills"), recursive: true }],
    });
  });

  test("no configured folders: nothing to read, nothing needed", async () => {
    await using ws = tempDir();
    mkdirSync(join(ws.path, "skills"));
    expect(
      skillLoad.needs({ name: "x" }, { workspace: ws.path, scratch: ws.path, stateDir: ws.path, skillDirs: [] }),
    ).toEqual({ ok: true, value: [] });
  });
});

describe("the shipped cards", () => {
  test("skills/bundled.ts lists every folder under skills/, and each card's name is its folder", () => {
    const folders = readdirSync(join(ROOT, "skills"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(BUNDLED_CARDS.map((b) => b.folder)).toEqual(folders);
    for (const b of BUNDLED_CARDS) {
      const parsed = parseFrontMatter(b.text);
      expect(parsed).toEqual({ ok: true, name: b.folder, description: expect.any(String) });
      expect(b.text).toBe(readFileSync(join(ROOT, "skills", b.folder, "SKILL.md"), "utf8"));
      // the agent-skills format: lowercase and hyphens, a description of at most 1024 characters
      expect(b.folder).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect((parsed as { description: string }).description.length).toBeLessThanOrEqual(DESCRIPTION_BOUND_CHARS);
    }
  });
});
