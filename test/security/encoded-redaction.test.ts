// A secret bound to a call is masked in the forms a command or agent commonly prints it in, not
// only as written: base64 and base64url at each byte alignment, hex in either case, percent-encoded.
// Through dist/toolgate: a `bash` call whose secret is a rail's credential (bound from the
// environment) prints them all, in the foreground and as a background task; a delegated child puts
// them in its summary and findings. No view holds any of them: the result, stderr, the journal (the
// real database file, every table), a task's log_tail and logs, and every file of the state folder.
import { beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../fixtures/gates/make-repo.ts";
import { BIN, json, ROOT, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

/** Its base64 holds a `+` after one byte and a `/` after two, so base64url differs there; `/ + : ? >` change when percent-encoded. */
const SECRET = "rk_live/7Qx+9fZ2:Lw8-ENC?>";
const FORMS_SH = join(ROOT, "test", "fixtures", "secrets", "encoded-forms.sh");
const AGENT = join(ROOT, "test", "fixtures", "delegate", "agent.ts");

/**
 * What must not appear, derived here from the definitions: the secret; for base64 and base64url
 * after 0, 1, 2 other bytes, the characters made of the secret's bits alone; hex in both cases;
 * encodeURIComponent; every byte as %xx.
 */
function forms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  const out = [secret];
  for (const lead of [0, 1, 2]) {
    const stream = Buffer.concat([Buffer.alloc(lead, "x"), bytes]);
    const [from, to] = [Math.ceil((8 * lead) / 6), Math.floor((8 * stream.length) / 6)];
    out.push(stream.toString("base64").slice(from, to), stream.toString("base64url").slice(from, to));
  }
  out.push(
    bytes.toString("hex"),
    bytes.toString("hex").toUpperCase(),
    encodeURIComponent(secret),
    [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join(""),
  );
  return [...new Set(out)];
}
const FORMS = forms(SECRET);

/** The forms a view holds. */
const held = (view: string | Buffer) => FORMS.filter((f) => view.includes(f));

/** Every text and blob of every row of every table of the state database, read with SQLite. */
function databaseText(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const tables = (db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
      (t) => t.name,
    );
    let out = "";
    for (const t of tables) {
      for (const row of db.query(`SELECT * FROM "${t}"`).all() as Record<string, unknown>[]) {
        for (const v of Object.values(row))
          out += `${typeof v === "string" ? v : v instanceof Uint8Array ? Buffer.from(v).toString("utf8") : ""}\n`;
      }
    }
    return out;
  } finally {
    db.close();
  }
}

/** The files under `dir` (the database, its WAL, artifacts) that hold any form. */
function filesHolding(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .filter((p) => held(readFileSync(p)).length > 0);
}

/** A workspace whose tok.txt holds the secret and forms.sh prints it encoded. */
function site(dir: string): string {
  writeFileSync(join(dir, "tok.txt"), SECRET);
  copyFileSync(FORMS_SH, join(dir, "forms.sh"));
  return dir;
}

/** The secret is the bank rail's credential: a secret of every call of the boot, bash's included. */
const RAIL = { RAILS_BANK_URL: "http://127.0.0.1:9/store", RAILS_BANK_TOKEN: SECRET };
const BASH = ["--allow-run", "--approve", "bash"];
const COMMAND = JSON.stringify({ command: "bash forms.sh" });

test("the script prints every form (what the views are checked for is there to be masked)", async () => {
  await using d = tempDir();
  const r = Bun.spawnSync(["bash", "forms.sh"], { cwd: site(d.path), env: { PATH: "/usr/bin:/bin" } });
  expect(FORMS.filter((f) => f !== SECRET && !r.stdout.toString().includes(f))).toEqual([]);
  expect(
    FORMS.some((f) => f.includes("+")) && FORMS.some((f) => f.includes("/")) && FORMS.some((f) => f.includes("_")),
  ).toBe(true);
});

describe("a bash call's bound secret, encoded", () => {
  test("foreground: masked in the result, stderr, the journal and every state file", async () => {
    await using d = tempDir();
    const ws = site(d.path);
    const r = await run(["call", "bash", COMMAND, ...BASH], { cwd: ws, env: RAIL });
    expect([r.code, json(r).status]).toEqual([0, "success"]);
    const shown = JSON.stringify(json(r).payload);
    // Each of the ten lines on each stream lost its secret part.
    expect(shown.split("[REDACTED]").length - 1).toBeGreaterThanOrEqual(10);
    const log = await run(["log", "--json"], { cwd: ws });
    const views = {
      result: r.stdout,
      stderr: r.stderr,
      log: log.stdout,
      database: databaseText(join(ws, ".toolgate", "toolgate.db")),
    };
    expect(Object.entries(views).map(([name, v]) => [name, held(v)])).toEqual(
      Object.keys(views).map((name) => [name, []]),
    );
    expect(filesHolding(join(ws, ".toolgate"))).toEqual([]);
  });

  test("background: masked in task_status's log_tail, tasks logs and status, the journal and every state file", async () => {
    await using d = tempDir();
    const ws = site(d.path);
    const started = await run(["call", "bash", COMMAND, "--background", ...BASH], { cwd: ws, env: RAIL });
    expect(started.code).toBe(0);
    const id = json(started).task_id as string;
    const waited = await run(["tasks", "wait", id, "--timeout", "30"], { cwd: ws, env: RAIL });
    expect([waited.code, json(waited).status]).toEqual([0, "succeeded"]);
    // Read without the credential in the environment: what was stored is what is shown.
    const status = await run(["call", "task_status", JSON.stringify({ task_id: id })], { cwd: ws });
    const tail = json(status).payload.log_tail as string;
    expect(tail.split("[REDACTED]").length - 1).toBeGreaterThanOrEqual(10);
    const views: Record<string, string> = {
      started: started.stdout,
      waited: waited.stdout + waited.stderr,
      log_tail: tail,
      task_status: status.stdout,
    };
    for (const args of [
      ["tasks", "logs", id],
      ["tasks", "status", id],
      ["log", "--json"],
    ]) {
      const v = await run(args, { cwd: ws });
      views[args.join(" ")] = v.stdout + v.stderr;
    }
    views.database = databaseText(join(ws, ".toolgate", "toolgate.db"));
    expect(Object.entries(views).map(([name, v]) => [name, held(v)])).toEqual(
      Object.keys(views).map((name) => [name, []]),
    );
    expect(filesHolding(join(ws, ".toolgate"))).toEqual([]);
  });
});

describe("a delegated child's summary and findings, encoded", () => {
  test("delegation.env's value in base64 (each alignment), hex and percent-encoded: masked in the envelope, the journal and every state file", async () => {
    await using d = tempDir();
    const ws = join(d.path, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "a.txt"), "one\n");
    git(ws, "init", "-q", "-b", "main");
    git(ws, "add", "-A");
    git(ws, "commit", "-q", "-m", "fixture");
    const cfg = join(d.path, "cfg.json");
    writeFileSync(
      cfg,
      JSON.stringify({
        workspace: ws,
        delegation: {
          command: [process.execPath, AGENT, "{objective}", "{server}"],
          timeout_secs: 60,
          env: ["AGENT_API_KEY"],
        },
      }),
    );
    const notes = [
      "b64 $BASE64{AGENT_API_KEY}",
      "b64 $BASE64_1{AGENT_API_KEY}",
      "b64 $BASE64_2{AGENT_API_KEY}",
      "hex $HEX{AGENT_API_KEY}",
      "uri k=$URI{AGENT_API_KEY}",
    ];
    const objective = JSON.stringify({ say: "key: $BASE64_2{AGENT_API_KEY}", notes });
    const r = await run(
      [
        "call",
        "task",
        JSON.stringify({ objective, kind: "scout" }),
        "--config",
        cfg,
        "--allow-read",
        "--approve",
        "task",
      ],
      { cwd: ws, env: { AGENT_API_KEY: SECRET } },
    );
    const p = json(r).payload;
    // What stays of a base64 form is made of other bits too: the leading bytes', the padding's.
    expect([p.status, p.summary]).toEqual(["done", "key: eHl[REDACTED]g=="]);
    expect(p.findings.slice(-5)).toEqual([
      "b64 [REDACTED]4=",
      "b64 eH[REDACTED]",
      "b64 eHl[REDACTED]g==",
      "hex [REDACTED]",
      "uri k=[REDACTED]",
    ]);
    const log = await run(["log", "--json", "--config", cfg], { cwd: ws });
    const views = {
      result: r.stdout,
      stderr: r.stderr,
      log: log.stdout,
      database: databaseText(join(ws, ".toolgate", "toolgate.db")),
    };
    expect(Object.entries(views).map(([name, v]) => [name, held(v)])).toEqual(
      Object.keys(views).map((name) => [name, []]),
    );
    expect(filesHolding(join(ws, ".toolgate"))).toEqual([]);
  }, 60_000);
});
