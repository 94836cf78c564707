import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Permissions } from "../../src/permission/check.ts";
import { noPrompter, type Answer, type Prompter, type PromptRequest } from "../../src/permission/prompt.ts";
import { tempTree } from "./helpers.ts";

function scripted(...answers: Answer[]): Prompter & { asked: PromptRequest[] } {
  const asked: PromptRequest[] = [];
  const prompter = (req: PromptRequest): Answer => {
    asked.push(req);
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`unexpected prompt: ${JSON.stringify(req)}`);
    return answer;
  };
  return Object.assign(prompter, { asked });
}

test("granted needs pass without asking", async () => {
  await using t = tempTree();
  const p = new Permissions({ allow: { read: [t.root] }, deny: {} }, t.root, scripted());
  expect(p.check({ kind: "read", value: "f" }, "file_read")).toEqual({ ok: true, value: t.path("f") });
});

test("y grants this need for the process lifetime, and only this need", async () => {
  await using t = tempTree();
  t.dir("a");
  const prompter = scripted("y", "n");
  const p = new Permissions({ allow: {}, deny: {} }, t.root, prompter);
  expect(p.check({ kind: "read", value: "a" }, "file_read")).toEqual({ ok: true, value: t.path("a") });
  expect(p.check({ kind: "read", value: "a" }, "file_read")).toEqual({ ok: true, value: t.path("a") });
  expect(p.check({ kind: "read", value: "a/inside" }, "file_read")).toEqual({ ok: true, value: t.path("a/inside") });
  expect(p.check({ kind: "read", value: "b" }, "file_read").ok).toBe(false);
  expect(prompter.asked).toEqual([
    { kind: "read", value: t.path("a"), reason: "file_read", flag: `--allow-read=${t.path("a")}` },
    { kind: "read", value: t.path("b"), reason: "file_read", flag: `--allow-read=${t.path("b")}` },
  ]);
});

test("A grants the whole kind, but an explicit deny still wins", async () => {
  await using t = tempTree();
  const prompter = scripted("A", "n");
  const p = new Permissions({ allow: {}, deny: { net: ["evil.com"] } }, t.root, prompter);
  expect(p.check({ kind: "net", value: "a.com:443" }, "web_fetch")).toEqual({ ok: true, value: "a.com:443" });
  expect(p.check({ kind: "net", value: "b.com:80" }, "web_fetch")).toEqual({ ok: true, value: "b.com:80" });
  expect(p.check({ kind: "env", value: "HOME" }, "web_fetch").ok).toBe(false); // other kinds still ask
  expect(p.check({ kind: "net", value: "evil.com:443" }, "web_fetch")).toEqual({
    ok: false,
    code: "permission.denied",
    message: `net access to "evil.com:443" is denied by --deny-net=evil.com (a flag or the config's permissions.deny); deny wins over allow`,
    flag: "--allow-net=evil.com:443",
    deniedBy: "--deny-net=evil.com",
  });
});

test("n refuses with the exact flag, and is not asked again", async () => {
  await using t = tempTree();
  t.dir("real");
  t.link("alias", t.path("real"));
  const prompter = scripted("n");
  const p = new Permissions({ allow: {}, deny: {} }, t.root, prompter);
  const expected = {
    ok: false,
    code: "permission.denied",
    message: `write access to "${t.path("real/x")}" is not granted; run again with --allow-write=${t.path("real/x")}`,
    flag: `--allow-write=${t.path("real/x")}`,
  } as const;
  expect(p.check({ kind: "write", value: "alias/x" }, "file_write")).toEqual(expected);
  expect(p.check({ kind: "write", value: "real/x" }, "file_write")).toEqual(expected);
  expect(prompter.asked).toHaveLength(1);
});

test("noPrompter refuses everything not granted, naming the flag", async () => {
  await using t = tempTree();
  const p = new Permissions({ allow: { env: ["AWS_*"] }, deny: {} }, t.root, noPrompter);
  expect(
    p.checkAll(
      [
        { kind: "env", value: "AWS_REGION" },
        { kind: "run", value: "bash" },
      ],
      "bash",
    ),
  ).toEqual({
    ok: false,
    code: "permission.denied",
    message: `run access to "bash" is not granted; run again with --allow-run=bash`,
    flag: "--allow-run=bash",
  });
});

test("grants are pinned at start-up: re-pointing a symlink later does not widen them", async () => {
  await using t = tempTree();
  t.dir("safe");
  t.dir("secret");
  t.link("granted", t.path("safe"));
  const p = new Permissions({ allow: { read: [t.path("granted")] }, deny: {} }, t.root, noPrompter);
  rmSync(t.path("granted"));
  symlinkSync(t.path("secret"), t.path("granted"));
  expect(p.check({ kind: "read", value: "secret/key" }, "file_read").ok).toBe(false);
  expect(p.check({ kind: "read", value: "safe/f" }, "file_read")).toEqual({ ok: true, value: t.path("safe/f") });
});

test("refusal messages make control characters visible", async () => {
  await using t = tempTree();
  const p = new Permissions({ allow: {}, deny: {} }, t.root, noPrompter);
  const result = p.check({ kind: "env", value: "X\x1b[2J" }, "t");
  expect(result.ok).toBe(false);
  expect((result as { message: string }).message).toBe(
    `env access to "X\\u{1b}[2J" is not granted; run again with --allow-env='X\\u{1b}[2J'`,
  );
});

test("a value that cannot be resolved is refused with the reason, never prompted", async () => {
  await using t = tempTree();
  t.link("loop", "loop");
  const p = new Permissions({ allow: { read: true, net: true }, deny: {} }, t.root, scripted());
  expect(p.check({ kind: "net", value: "::1" }, "web_fetch")).toMatchObject({
    ok: false,
    message: `net access to "::1" is refused: the value is not a host or host:port`,
  });
  expect(p.check({ kind: "read", value: "loop/f" }, "file_read")).toMatchObject({
    ok: false,
    message: `read access to "loop/f" is refused: the value cannot be resolved (empty, a NUL byte, or a symlink loop)`,
  });
});

describe("recursive needs", () => {
  test("a deny inside a folder refuses a walk of the folder; outside it or the folder itself denied behave as usual", async () => {
    await using t = tempTree();
    const root = t.root;
    mkdirSync(join(root, "a", "secret"), { recursive: true });
    mkdirSync(join(root, "b"), { recursive: true });
    const p = new Permissions(
      { allow: { read: [root] }, deny: { read: [join(root, "a", "secret")] } },
      root,
      noPrompter,
    );
    const walkA = p.check({ kind: "read", value: join(root, "a"), recursive: true }, "file_find");
    expect(walkA.ok).toBe(false);
    if (!walkA.ok) expect(walkA.message).toContain("deny wins");
    expect(p.check({ kind: "read", value: join(root, "a") }, "file_read").ok).toBe(true);
    expect(p.check({ kind: "read", value: join(root, "b"), recursive: true }, "file_find").ok).toBe(true);
  });
});

test("a granted need reports the real path it was matched as: what the handler must then open", async () => {
  await using t = tempTree();
  t.dir("real");
  t.link("alias", t.path("real"));
  const p = new Permissions({ allow: { read: [t.root] }, deny: {} }, t.root, noPrompter);
  expect(p.check({ kind: "read", value: "alias/x" }, "file_read")).toEqual({ ok: true, value: t.path("real/x") });
});

describe("well-known secret files (.env, *.pem, id_rsa, ...)", () => {
  test("a whole-kind or folder grant does not cover one; a grant naming it does, also beside --allow-read (all)", async () => {
    await using t = tempTree();
    t.file(".env", "A=1\n");
    t.file("keys/id_ed25519", "k\n");
    const whole = new Permissions({ allow: { read: true }, deny: {} }, t.root, noPrompter);
    const refused = whole.check({ kind: "read", value: ".env" }, "file_read");
    expect(refused).toMatchObject({ ok: false, code: "permission.denied", flag: `--allow-read=${t.path(".env")}` });
    expect(!refused.ok && refused.message).toContain(
      `".env" is a well-known secret file, which only a grant naming that file covers (not --allow-read or a folder's grant)`,
    );
    const folder = new Permissions({ allow: { read: [t.root], write: [t.root] }, deny: {} }, t.root, noPrompter);
    expect(folder.check({ kind: "read", value: "keys/id_ed25519" }, "file_read").ok).toBe(false);
    expect(folder.check({ kind: "write", value: ".env" }, "file_write").ok).toBe(false);
    expect(folder.check({ kind: "read", value: "keys" }, "file_find").ok).toBe(true);
    const named = new Permissions({ allow: { read: true }, deny: {}, named: { read: [".env"] } }, t.root, noPrompter);
    expect(named.check({ kind: "read", value: ".env" }, "file_read")).toEqual({ ok: true, value: t.path(".env") });
    expect(named.check({ kind: "write", value: ".env" }, "file_write").ok).toBe(false);
    expect([named.names("read", t.path(".env")), named.names("read", t.path("keys/id_ed25519"))]).toEqual([
      true,
      false,
    ]);
  });

  test("the prompt says why; a yes names the file (walks then keep it), and a deny still wins over a naming grant", async () => {
    await using t = tempTree();
    t.file("server.pem", "x\n");
    const prompter = scripted("y");
    const p = new Permissions({ allow: { read: true }, deny: {} }, t.root, prompter);
    expect(p.check({ kind: "read", value: "server.pem" }, "file_read")).toEqual({
      ok: true,
      value: t.path("server.pem"),
    });
    expect(prompter.asked[0]!.detail).toContain("well-known secret file");
    expect(p.names("read", t.path("server.pem"))).toBe(true);
    expect(p.check({ kind: "read", value: "server.pem" }, "file_read").ok).toBe(true); // not asked again
    const denied = new Permissions(
      { allow: { read: ["server.pem"] }, deny: { read: ["server.pem"] } },
      t.root,
      noPrompter,
    );
    expect(denied.check({ kind: "read", value: "server.pem" }, "file_read")).toMatchObject({
      ok: false,
      deniedBy: `--deny-read=${t.path("server.pem")}`,
    });
  });
});

test("a deny-only need passes without an allow and is never asked, but a deny refuses it", async () => {
  await using t = tempTree();
  const free = new Permissions({ allow: {}, deny: {} }, t.root, scripted());
  expect(free.check({ kind: "run", value: "/bin/sh", denyOnly: true }, "x")).toMatchObject({ ok: true });
  const denied = new Permissions({ allow: { run: true }, deny: { run: ["/bin/sh"] } }, t.root, scripted());
  expect(denied.check({ kind: "run", value: "/bin/sh", denyOnly: true }, "x")).toMatchObject({
    ok: false,
    code: "permission.denied",
  });
});

test("a need's note says what the value is, in the refusal and the prompt", async () => {
  await using t = tempTree();
  t.dir("tools/x");
  const prompter = scripted("n");
  const p = new Permissions({ allow: {}, deny: {} }, t.root, prompter);
  const r = p.check({ kind: "run", value: "tools/x", note: "that is the authored tool x" }, "x");
  expect(!r.ok && r.message).toBe(
    `run access to "${t.path("tools/x")}" is not granted: that is the authored tool x; run again with --allow-run=${t.path("tools/x")}`,
  );
  expect(prompter.asked[0]!.detail).toBe("┠─ that is the authored tool x.\n");
});
