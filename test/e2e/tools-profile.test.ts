// `toolgate tools --profile P` through dist/toolgate: the narrowed list `serve --profile` offers,
// config profiles with wildcards (an untrusted workspace file may define them: they only narrow),
// an unknown name (exit 2 with the list), and a config profile redefining a built-in (exit 5).
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const ndjson = (s: string) =>
  s
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const names = (s: string) => ndjson(s).map((d) => d.name as string);

describe("tools --profile", () => {
  test.each([
    ["scout", ["desk", "file_find", "file_read", "file_search", "plan", "skill_list", "skill_load"]],
    ["writer", ["file_edit", "file_read", "file_write"]],
  ])("%s lists exactly its tools (NDJSON) and says so on stderr", async (profile, expected) => {
    await using ws = tempDir();
    const r = await run(["tools", "--profile", profile], { cwd: ws.path });
    const all = await run(["tools"], { cwd: ws.path });
    expect([r.code, names(r.stdout)]).toEqual([0, expected]);
    expect(r.stderr).toContain(`profile: ${profile} (${expected.length} of ${names(all.stdout).length} tools)`);
    // The same descriptors as the full listing, only fewer.
    expect(ndjson(r.stdout)).toEqual(ndjson(all.stdout).filter((d) => expected.includes(d.name)));
  });

  test("full is the whole catalog, and the table names the profile under it", async () => {
    await using ws = tempDir();
    const full = await run(["tools", "--profile", "full"], { cwd: ws.path });
    const none = await run(["tools"], { cwd: ws.path });
    expect([full.code, full.stdout]).toEqual([0, none.stdout]);
    expect(full.stderr).not.toContain("profile:");
  });

  test("NAME outside the profile is refused profile.excluded (exit 1); inside it, shown whole", async () => {
    await using ws = tempDir();
    const out = await run(["tools", "file_write", "--profile", "scout"], { cwd: ws.path });
    expect([out.code, out.stdout]).toEqual([1, ""]);
    expect(out.stderr).toContain('profile.excluded: file_write is not offered in profile "scout"');
    const inside = await run(["tools", "file_write", "--profile", "writer", "--json"], { cwd: ws.path });
    expect([inside.code, JSON.parse(inside.stdout).name]).toEqual([0, "file_write"]);
  });

  test("a config profile from an untrusted workspace toolgate.json: include with *, exclude wins", async () => {
    await using ws = tempDir();
    writeFileSync(
      join(ws.path, "toolgate.json"),
      JSON.stringify({
        profiles: {
          reader: { include: ["file_*", "skill_*"], exclude: ["file_write", "*_edit"] },
          "no-shell": { exclude: ["bash", "dev_*"] },
        },
      }),
    );
    const r = await run(["tools", "--profile", "reader"], { cwd: ws.path });
    expect([r.code, names(r.stdout)]).toEqual([
      0,
      ["file_find", "file_read", "file_search", "skill_list", "skill_load"],
    ]);
    const all = await run(["tools"], { cwd: ws.path });
    const noShell = await run(["tools", "--profile", "no-shell"], { cwd: ws.path });
    expect(names(noShell.stdout)).toEqual(names(all.stdout).filter((n) => n !== "bash" && n !== "dev_check"));
  });

  test("an unknown profile is a usage error (exit 2) listing the built-in and config profiles, and naming the nearest", async () => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, "toolgate.json"), JSON.stringify({ profiles: { reader: { include: ["file_read"] } } }));
    const r = await run(["tools", "--profile", "scuot"], { cwd: ws.path });
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toBe(
      'toolgate: no profile named "scuot"; the profiles are: full, scout, writer (built in); reader (toolgate.json "profiles"); did you mean "scout"?\n  hint: pass one of those to --profile\n',
    );
  });

  test("--profile with --lock is a usage error: the lock pins the whole catalog", async () => {
    await using ws = tempDir();
    const r = await run(["tools", "--lock", "--profile", "scout"], { cwd: ws.path });
    expect([r.code, existsSync(join(ws.path, "toolgate.lock"))]).toEqual([2, false]);
    expect(r.stderr).toContain("--lock pins the whole catalog");
  });

  test("a config profile named like a built-in fails the boot (exit 5) naming file, line and key, for every command", async () => {
    await using ws = tempDir();
    const file = join(ws.path, "given.json");
    writeFileSync(file, '{\n  "profiles": {\n    "mine": {},\n    "full": { "exclude": ["bash"] }\n  }\n}\n');
    writeFileSync(join(ws.path, "a.txt"), "hi\n");
    for (const args of [
      ["tools"],
      ["tools", "--profile", "mine"],
      ["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "all"],
    ]) {
      const r = await run(["--config", file, ...args], { cwd: ws.path });
      expect([r.code, r.stdout]).toEqual([5, ""]);
      expect(r.stderr).toBe(
        `toolgate: ${file}:4:5: profiles.full: "full" is a built-in profile (full, scout, writer) and cannot be redefined\n  hint: rename the profile (e.g. "my-full") and pass that name to --profile\n`,
      );
    }
  });
});

describe("call --profile", () => {
  test("narrows one call: a tool the profile leaves out is refused profile.excluded before anything is asked or run; one it offers runs", async () => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, "a.txt"), "one\n");
    const refused = await run(
      [
        "call",
        "file_write",
        '{"path":"b.txt","content":"x"}',
        "--profile",
        "scout",
        "--allow-write",
        "--approve",
        "file_write",
      ],
      { cwd: ws.path },
    );
    expect([refused.code, JSON.parse(refused.stdout).error_code]).toEqual([1, "profile.excluded"]);
    expect(existsSync(join(ws.path, "b.txt"))).toBe(false);
    const read = await run(
      ["call", "file_read", '{"path":"a.txt"}', "--profile", "scout", "--allow-read", "--approve", "file_read"],
      { cwd: ws.path },
    );
    expect([read.code, JSON.parse(read.stdout).payload.content]).toEqual([0, expect.stringContaining("one")]);
    const unknown = await run(["call", "file_read", '{"path":"a.txt"}', "--profile", "nope", "--allow-read"], {
      cwd: ws.path,
    });
    expect([unknown.code, unknown.stdout]).toEqual([2, ""]);
    expect(unknown.stderr).toStartWith(
      'toolgate: no profile named "nope"; the profiles are: full, scout, writer (built in)',
    );
  });
});
