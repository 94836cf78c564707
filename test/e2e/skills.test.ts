// skill_list and skill_load end to end through dist/toolgate: the bundled cards load whole from
// the binary (every shipped card, name and description checked), workspace cards shadow
// them, configured folders, and every refusal with its exit code.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseFrontMatter } from "../../src/tools/skills/cards.ts";
import { BIN, json, ROOT, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const GRANT = ["--allow-read", "--approve", "skill_list,skill_load"];
const put = (root: string, rel: string, body: string) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), body);
};
const shipped = readdirSync(join(ROOT, "skills"), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => {
    const text = readFileSync(join(ROOT, "skills", e.name, "SKILL.md"), "utf8");
    const parsed = parseFrontMatter(text);
    if (!parsed.ok) throw new Error(`skills/${e.name}/SKILL.md: ${parsed.reason}`);
    return { folder: e.name, text, name: parsed.name, description: parsed.description };
  });

describe("the shipped cards, from the binary", () => {
  test("there is at least the pipeline, permissions and journal card", () => {
    expect(shipped.map((s) => s.name)).toEqual(
      expect.arrayContaining(["toolgate-call", "toolgate-permissions", "toolgate-journal"]),
    );
  });

  test.each(shipped.map((s) => [s.name, s] as const))(
    "skill_load %s returns the card whole, name and description matching",
    async (name, card) => {
      await using dir = tempDir(); // no skills/ here: the card comes from inside the binary
      const r = await run(["call", "skill_load", JSON.stringify({ name }), ...GRANT], { cwd: dir.path });
      expect(r.code).toBe(0);
      expect(json(r)).toEqual({
        status: "success",
        tool: "skill_load",
        payload: {
          name: card.folder,
          description: card.description,
          source: "bundled",
          path: `bundled:${name}`,
          shadows: [],
          text: card.text,
        },
      });
    },
  );

  test("skill_list shows each shipped card as one `name — description` line, sorted", async () => {
    await using dir = tempDir();
    const r = await run(["call", "skill_list", "{}", ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(0);
    const sorted = [...shipped].sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(json(r).payload).toEqual({
      lines: sorted.map((s) => `${s.name} — ${s.description.replace(/\s+/g, " ")}`),
      cards: sorted.map((s) => ({ name: s.name, source: "bundled", path: `bundled:${s.name}` })),
      counts: {
        cards: shipped.length,
        workspace: 0,
        bundled: shipped.length,
        shadowed: 0,
        skipped: 0,
        clippedDescriptions: 0,
      },
      shadowed: [],
      skipped: [],
      folders: [{ path: "skills", status: "missing" }],
      scanCapped: false,
      truncated: false,
    });
  });
});

describe("workspace cards", () => {
  test("a workspace card shadows the bundled one of the same name, and says so", async () => {
    await using dir = tempDir();
    const mine = "---\nname: toolgate-call\ndescription: 'our own: how we call tools'\n---\nUse the wrapper script.\n";
    put(dir.path, "skills/call/SKILL.md", mine);
    const load = await run(["call", "skill_load", "--arg", "name=toolgate-call", ...GRANT], { cwd: dir.path });
    expect(json(load).payload).toEqual({
      name: "toolgate-call",
      description: "our own: how we call tools",
      source: "workspace",
      path: "skills/call/SKILL.md",
      shadows: ["bundled:toolgate-call"],
      text: mine,
    });
    const list = json(await run(["call", "skill_list", ...GRANT], { cwd: dir.path })).payload;
    expect(list.lines).toContain("toolgate-call — our own: how we call tools");
    expect(list.shadowed).toEqual([
      { name: "toolgate-call", path: "bundled:toolgate-call", by: "skills/call/SKILL.md" },
    ]);
    expect(list.counts).toMatchObject({ workspace: 1, shadowed: 1 });
  });

  test("the config's `skills` folders are read in order; a broken card is skipped and counted", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "toolgate.json"), '{ "skills": ["cards", "more"] }');
    put(
      dir.path,
      "cards/deploy/SKILL.md",
      "---\nname: deploy\ndescription: >\n  How we deploy,\n  step by step.\n---\n# Deploy\n",
    );
    put(dir.path, "more/deploy/SKILL.md", "---\nname: deploy\ndescription: the shadowed one\n---\n");
    put(dir.path, "more/broken/SKILL.md", "no front matter\n");
    put(dir.path, "skills/ignored/SKILL.md", "---\nname: ignored\ndescription: not a configured folder\n---\n");
    const list = json(await run(["call", "skill_list", ...GRANT], { cwd: dir.path })).payload;
    expect(list.lines[0]).toBe("deploy — How we deploy, step by step.");
    expect(list.lines.some((l: string) => l.startsWith("ignored"))).toBe(false);
    expect(list.folders).toEqual([
      { path: "cards", status: "read" },
      { path: "more", status: "read" },
    ]);
    expect(list.skipped).toEqual([
      { path: "more/broken/SKILL.md", reason: "no front matter: the file must start with a --- line" },
    ]);
    expect(list.counts).toMatchObject({ workspace: 1, shadowed: 1, skipped: 1 });
  });
});

describe("refusals", () => {
  test("an unknown name: skill.unknown naming it and the names available (exit 1)", async () => {
    await using dir = tempDir();
    const r = await run(["call", "skill_load", '{"name":"toolgate-cal"}', ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(json(r)).toMatchObject({
      status: "failed",
      tool: "skill_load",
      error_code: "skill.unknown",
      details: { name: "toolgate-cal" },
    });
    expect(json(r).message).toContain('no skill card named "toolgate-cal"');
    expect(json(r).details.available).toEqual(expect.arrayContaining(shipped.map((s) => s.name)));
    expect(r.stderr).toContain("skill.unknown");
  });

  test("no name: args.invalid (exit 1)", async () => {
    await using dir = tempDir();
    const r = await run(["call", "skill_load", "{}", ...GRANT], { cwd: dir.path });
    expect([r.code, json(r).error_code]).toEqual([1, "args.invalid"]);
  });

  const CALLS = [
    ["skill_list", "{}"],
    ["skill_load", '{"name":"toolgate-call"}'],
  ] as const;

  test.each(CALLS)("%s needs approval: without --approve it is approval.required (exit 4)", async (tool, args) => {
    await using dir = tempDir();
    const r = await run(["call", tool, args, "--allow-read"], { cwd: dir.path });
    expect([r.code, json(r).error_code]).toEqual([4, "approval.required"]);
  });

  test.each(CALLS)(
    "%s reads the skill folder: without a read grant it is permission.denied (exit 4)",
    async (tool, args) => {
      await using dir = tempDir();
      mkdirSync(join(dir.path, "skills"));
      const r = await run(["call", tool, args, "--approve", tool], { cwd: dir.path });
      expect([r.code, json(r).error_code]).toEqual([4, "permission.denied"]);
      expect(json(r).details.flag).toStartWith("--allow-read=");
    },
  );

  test("a denied skill folder stays unread", async () => {
    await using dir = tempDir();
    put(dir.path, "skills/x/SKILL.md", "---\nname: x\ndescription: d\n---\n");
    const r = await run(
      ["call", "skill_list", "--allow-read", `--deny-read=${join(dir.path, "skills")}`, "--approve", "skill_list"],
      { cwd: dir.path },
    );
    expect([r.code, json(r).error_code]).toEqual([4, "permission.denied"]);
  });

  // Pending the pipeline handing `skillDirs` to needs() (NeedsContext): until then the whole
  // workspace is asked for, so a grant of only the skill folder is not enough.
  test("a read grant of only the configured skill folder is enough", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, "skills"));
    const r = await run(["call", "skill_list", "--allow-read=skills", "--approve", "skill_list"], { cwd: dir.path });
    expect(r.code).toBe(0);
  });
});
