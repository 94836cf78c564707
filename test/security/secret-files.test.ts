// Well-known secret files in the workspace (docs/permissions.md): a
// `.env` holding an API key used to be served whole to an MCP client through `file_read` with a
// plain --allow-read, and found by `file_search`. Now only a grant naming the file itself reads or
// writes it; walks (file_find, file_search) leave such files out and count them. Against the
// compiled binary, through `serve` (the SDK's own client) and `call`.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, json, run, tempDir } from "../helpers.ts";
import { serve, textJson } from "../serve/client.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const CANARY = "sk-live-canary-4711-secret";

/** A workspace with an ordinary file and a `.env` holding the canary; HOME beside it. */
function site(root: string): { ws: string; home: string } {
  const ws = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(ws);
  mkdirSync(home);
  writeFileSync(join(ws, "a.txt"), "alpha API_KEY is read from the environment\n");
  writeFileSync(join(ws, ".env"), `API_KEY=${CANARY}\n`);
  return { ws, home };
}

const text = (r: object) => JSON.stringify(r);

describe("a workspace .env served to an MCP client", () => {
  test("--allow-read (all) reads, finds and searches everything but the .env: refused naming --allow-read=<the file>, skipped and counted", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serve(["--allow-read", "--approve", "all"], { cwd: s.ws, home: s.home });
    const read = await served.client.callTool({ name: "file_read", arguments: { path: ".env" } });
    expect(read.isError).toBe(true);
    const refusal = textJson(read);
    expect(refusal).toMatchObject({
      status: "failed",
      error_code: "permission.denied",
      details: { flag: "--allow-read=.env" },
    });
    expect(refusal.message).toContain("well-known secret file");
    const found = textJson(await served.client.callTool({ name: "file_find", arguments: {} }));
    expect([found.paths, found.skippedSecretFiles]).toEqual([["a.txt"], 1]);
    const searched = await served.client.callTool({ name: "file_search", arguments: { pattern: "API_KEY" } });
    expect(textJson(searched)).toMatchObject({ matches: [{ path: "a.txt", line: 1 }], skippedSecretFiles: 1 });
    const one = await served.client.callTool({ name: "file_search", arguments: { pattern: "API_KEY", path: ".env" } });
    expect(textJson(one).error_code).toBe("permission.denied");
    for (const r of [read, searched, one]) expect(text(r)).not.toContain(CANARY);
    expect(served.stderr()).not.toContain(CANARY);
  });

  test("naming the file in --allow-read is the user's choice: then it is read, listed and searched", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serve(["--allow-read", "--allow-read=.env", "--approve", "all"], {
      cwd: s.ws,
      home: s.home,
    });
    expect(
      textJson(await served.client.callTool({ name: "file_read", arguments: { path: ".env" } })).content,
    ).toContain(CANARY);
    const found = textJson(await served.client.callTool({ name: "file_find", arguments: {} }));
    expect([found.paths, found.skippedSecretFiles]).toEqual([[".env", "a.txt"], 0]);
    const searched = textJson(await served.client.callTool({ name: "file_search", arguments: { pattern: "sk-live" } }));
    expect(searched.matches.map((m: { path: string }) => m.path)).toEqual([".env"]);
  });
});

describe("every well-known name, and every way around it, through call", () => {
  const NAMES = [
    ".env",
    ".env.production",
    "server.pem",
    "tls/server.key",
    "id_rsa",
    "id_rsa.pub",
    "keys/id_ed25519",
    "id_ecdsa",
    ".npmrc",
    ".netrc",
    ".pypirc",
    ".git-credentials",
    "sub/.ENV",
  ];

  test.each(NAMES)("%s: --allow-read and a folder's grant do not read it; --allow-read=<it> does", async (name) => {
    await using ws = tempDir();
    mkdirSync(join(ws.path, name, ".."), { recursive: true });
    writeFileSync(join(ws.path, name), `${CANARY}\n`);
    for (const grant of ["--allow-read", "--allow-read=.", `--allow-read=${dirname(name)}`]) {
      const r = await run(["call", "file_read", JSON.stringify({ path: name }), grant, "--approve", "file_read"], {
        cwd: ws.path,
      });
      expect([grant, r.code, json(r).error_code]).toEqual([grant, 4, "permission.denied"]);
      expect(json(r).details.flag).toBe(`--allow-read=${name}`);
      expect(r.stdout + r.stderr).not.toContain(CANARY);
    }
    const named = await run(
      ["call", "file_read", JSON.stringify({ path: name }), `--allow-read=${name}`, "--approve", "file_read"],
      { cwd: ws.path },
    );
    expect([named.code, json(named).payload.content]).toEqual([0, `1\t${CANARY}`]);
  });

  test("a link to the .env under an innocent name is the .env (decided on the real path); a deny still wins over the naming grant", async () => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, ".env"), `${CANARY}\n`);
    symlinkSync(".env", join(ws.path, "notes.txt"));
    const r = await run(["call", "file_read", '{"path":"notes.txt"}', "--allow-read", "--approve", "file_read"], {
      cwd: ws.path,
    });
    expect([r.code, json(r).error_code]).toEqual([4, "permission.denied"]);
    expect(r.stdout).not.toContain(CANARY);
    const denied = await run(
      ["call", "file_read", '{"path":".env"}', "--allow-read=.env", "--deny-read=.env", "--approve", "file_read"],
      { cwd: ws.path },
    );
    expect([denied.code, json(denied).error_code]).toEqual([4, "permission.denied"]);
    expect(json(denied).message).toContain("--deny-read");
  });

  test("file_write and file_edit need the file named in --allow-write (a whole-kind grant does not write .npmrc)", async () => {
    await using ws = tempDir();
    const before = "registry=https://registry.internal/\n";
    writeFileSync(join(ws.path, ".npmrc"), before);
    const write = JSON.stringify({ path: ".npmrc", content: "registry=http://attacker.invalid/\n", overwrite: true });
    const refused = await run(["call", "file_write", write, "--allow-write", "--approve", "file_write"], {
      cwd: ws.path,
    });
    expect([refused.code, json(refused).details.flag]).toEqual([4, "--allow-write=.npmrc"]);
    expect(readFileSync(join(ws.path, ".npmrc"), "utf8")).toBe(before);
    const created = await run(
      [
        "call",
        "file_write",
        JSON.stringify({ path: ".env.local", content: "A=1\n" }),
        "--allow-write",
        "--approve",
        "file_write",
      ],
      { cwd: ws.path },
    );
    expect([created.code, existsSync(join(ws.path, ".env.local"))]).toEqual([4, false]);
    const named = await run(["call", "file_write", write, "--allow-write=.npmrc", "--approve", "file_write"], {
      cwd: ws.path,
    });
    expect(named.code).toBe(0);
    // file_edit: reading it named is not writing it.
    const digest = json(
      await run(["call", "file_read", '{"path":".npmrc"}', "--allow-read=.npmrc", "--approve", "file_read"], {
        cwd: ws.path,
      }),
    ).payload.digest;
    const edit = JSON.stringify({
      path: ".npmrc",
      digest,
      old_string: "attacker.invalid",
      new_string: "elsewhere.invalid",
    });
    const editRefused = await run(
      ["call", "file_edit", edit, "--allow-read=.npmrc", "--allow-write", "--approve", "file_edit"],
      { cwd: ws.path },
    );
    expect([editRefused.code, json(editRefused).details.flag]).toEqual([4, "--allow-write=.npmrc"]);
    const edited = await run(
      ["call", "file_edit", edit, "--allow-read=.npmrc", "--allow-write=.npmrc", "--approve", "file_edit"],
      { cwd: ws.path },
    );
    expect([edited.code, readFileSync(join(ws.path, ".npmrc"), "utf8")]).toEqual([
      0,
      "registry=http://elsewhere.invalid/\n",
    ]);
  });
});
