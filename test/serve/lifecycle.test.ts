// End to end: serve's lifetime. Raw newline JSON-RPC over the binary's stdin/stdout (no client
// library in between), so stdin EOF, signals and the exact stdout bytes are the test's to control:
// stdin EOF and SIGTERM end it with exit 0 and no process left; a call in flight gets the grace and
// is then cancelled; 100 concurrent calls give 100 results and 100 journal rows.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, ROOT, run, tempDir } from "../helpers.ts";
import { site } from "./client.ts";

const FIXTURE = join(ROOT, "test", "fixtures", "las", "server.ts");

class Raw {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  readonly lines: any[] = [];
  readonly #waiters = new Map<number, (m: any) => void>();
  #id = 0;
  stderr = "";

  constructor(args: readonly string[], cwd: string, home: string) {
    const proc = Bun.spawn([BIN, "serve", ...args], {
      cwd,
      env: { PATH: "/usr/bin:/bin", HOME: home, XDG_STATE_HOME: join(home, "state"), CI: "true" },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    this.proc = proc;
    void this.#read();
    void (async () => {
      for await (const chunk of proc.stderr) this.stderr += new TextDecoder().decode(chunk);
    })();
  }

  /** Waits (bounded) until stderr holds `text`. */
  async said(text: string) {
    for (let i = 0; i < 400 && !this.stderr.includes(text); i++) await Bun.sleep(25);
    expect(this.stderr).toContain(text);
  }

  async #read() {
    let buf = "";
    for await (const chunk of this.proc.stdout) {
      buf += new TextDecoder().decode(chunk);
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const msg = JSON.parse(line); // anything but JSON on stdout fails here
        this.lines.push(msg);
        if (typeof msg.id === "number") this.#waiters.get(msg.id)?.(msg);
      }
    }
  }

  request(method: string, params: unknown = {}): Promise<any> {
    const id = ++this.#id;
    const answered = new Promise((res) => this.#waiters.set(id, res));
    this.proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    this.proc.stdin.flush();
    return answered;
  }

  async init() {
    const r = await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    });
    this.proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    return r;
  }

  call(name: string, args: unknown) {
    return this.request("tools/call", { name, arguments: args });
  }
}

const alive = (pid: number) =>
  existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z");

describe("shutdown", () => {
  test("stdin EOF: exit 0, and the MCP server it started is gone", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const pidFile = join(root.path, "server.pid");
    writeFileSync(
      join(s.ws, "toolgate.json"),
      JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE, `--pid-out=${pidFile}`] } } }),
    );
    const raw = new Raw(["--allow-run", "--approve", "all"], s.ws, s.home);
    expect((await raw.init()).result.serverInfo.name).toBe("toolgate");
    const echo = await raw.call("fx__echo__echo", { message: "hi" });
    expect(echo.result.isError).toBeUndefined();
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(true);
    raw.proc.stdin.end();
    expect(await raw.proc.exited).toBe(0);
    expect(alive(pid)).toBe(false);
  });

  test("SIGTERM with a call in flight: the call gets the grace, is cancelled, answered; exit 0, nothing left running", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const cfg = join(root.path, "toolgate.json");
    writeFileSync(cfg, JSON.stringify({ workspace: s.ws, las: { shutdown_grace_secs: 1 } }));
    const raw = new Raw(["--config", cfg, "--allow-run", "--approve", "bash"], s.ws, s.home);
    await raw.init();
    const pidFile = join(s.ws, "sleep.pid");
    const inflight = raw.call("bash", { command: `echo $$ > sleep.pid; exec sleep 30` });
    for (let i = 0; i < 200 && !existsSync(pidFile); i++) await Bun.sleep(25);
    const sleeper = Number(readFileSync(pidFile, "utf8"));
    const t0 = performance.now();
    raw.proc.kill("SIGTERM");
    await raw.said("stopping (SIGTERM)");
    // A call that arrives during the shutdown is refused, not run.
    const late = await raw.call("plan", {});
    expect(late.result._meta).toEqual({ toolgate: { status: "failed", error_code: "serve.shutting_down" } });
    const answer = await inflight;
    expect(answer.result.isError).toBe(true);
    expect(await raw.proc.exited).toBe(0);
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(alive(sleeper)).toBe(false);
    // The call's row is finished, not left started; the refused one has its row too.
    const rows = (await run(["log", "--json", "--config", cfg], { cwd: s.ws, env: { HOME: s.home } })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.filter((r) => r.tool === "bash").map((r) => r.event)).toEqual(["tool_finished"]);
    expect(rows.filter((r) => r.tool === "plan").map((r) => [r.event, r.status, r.error_code])).toEqual([
      ["tool_finished", "failed", "serve.shutting_down"],
    ]);
  }, 30_000);
});

test("a client's notifications/cancelled stops the call's process tree; the row is finished and serve goes on", async () => {
  await using root = tempDir();
  const s = site(root.path);
  const raw = new Raw(["--allow-run", "--approve", "bash"], s.ws, s.home);
  await raw.init(); // request 1
  const pidFile = join(s.ws, "sleep.pid");
  const answered = raw.call("bash", { command: "echo $$ > sleep.pid; exec sleep 30" }).then(() => "answered"); // request 2
  for (let i = 0; i < 200 && !existsSync(pidFile); i++) await Bun.sleep(25);
  const sleeper = Number(readFileSync(pidFile, "utf8"));
  expect(alive(sleeper)).toBe(true);
  raw.proc.stdin.write(
    `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2, reason: "the user pressed stop" } })}\n`,
  );
  raw.proc.stdin.flush();
  for (let i = 0; i < 200 && alive(sleeper); i++) await Bun.sleep(25);
  expect(alive(sleeper)).toBe(false);
  // Still serving; the cancelled request gets no answer (the protocol's rule), the next one does.
  const next = await raw.call("plan", {});
  expect(next.result._meta).toEqual({ toolgate: { status: "success" } });
  expect(await Promise.race([answered, Bun.sleep(200).then(() => "none")])).toBe("none");
  raw.proc.stdin.end();
  expect(await raw.proc.exited).toBe(0);
  const rows = (await run(["log", "--json"], { cwd: s.ws, env: { HOME: s.home } })).stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(rows.filter((r) => r.tool === "bash").map((r) => [r.event, r.status])).toEqual([["tool_finished", "failed"]]);
}, 30_000);

test("a client that vanishes mid-call (its pipes closed unread): serve still stops, nothing left spinning", async () => {
  await using root = tempDir();
  const s = site(root.path);
  const cfg = join(root.path, "toolgate.json");
  writeFileSync(cfg, JSON.stringify({ workspace: s.ws, las: { shutdown_grace_secs: 1 } }));
  // A client process of its own, so its end closes both pipes the way a crashed client does.
  const client = join(root.path, "client.ts");
  writeFileSync(
    client,
    `const p = Bun.spawn([${JSON.stringify(BIN)}, "serve", "--config", ${JSON.stringify(cfg)}, "--allow-run", "--approve", "bash"], { cwd: ${JSON.stringify(s.ws)}, env: { PATH: "/usr/bin:/bin", HOME: ${JSON.stringify(s.home)}, CI: "true" }, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
const w = (m) => { p.stdin.write(JSON.stringify(m) + "\\n"); p.stdin.flush(); };
w({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } } });
w({ jsonrpc: "2.0", method: "notifications/initialized" });
w({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "bash", arguments: { command: "echo $$ > sleep.pid; exec sleep 30" } } });
for (let i = 0; i < 200; i++) { if (await Bun.file(${JSON.stringify(join(s.ws, "sleep.pid"))}).exists()) break; await Bun.sleep(25); }
p.kill("SIGTERM");
console.log(p.pid);
process.exit(0);`,
  );
  const c = Bun.spawn([process.execPath, client], { stdout: "pipe", stderr: "inherit" });
  const pid = Number((await new Response(c.stdout).text()).trim());
  expect(await c.exited).toBe(0);
  for (let i = 0; i < 400 && alive(pid); i++) await Bun.sleep(25);
  expect(alive(pid)).toBe(false);
  expect(alive(Number(readFileSync(join(s.ws, "sleep.pid"), "utf8")))).toBe(false);
}, 30_000);

test("a line that is not JSON-RPC is reported on stderr (escaped) and the session goes on", async () => {
  await using root = tempDir();
  const s = site(root.path);
  const raw = new Raw([], s.ws, s.home);
  await raw.init();
  raw.proc.stdin.write("not json \u001b[31m\n");
  expect((await raw.request("tools/list")).result.tools.length).toBeGreaterThan(5);
  await raw.said("toolgate: MCP: JSON Parse error");
  expect(raw.stderr).not.toContain("\u001b");
  raw.proc.stdin.end();
  expect(await raw.proc.exited).toBe(0);
});

test("100 concurrent calls: 100 answers, each its own, and 100 journal rows", async () => {
  await using root = tempDir();
  const s = site(root.path);
  for (let i = 0; i < 100; i++) writeFileSync(join(s.ws, `f${i}.txt`), `content ${i}\n`);
  const raw = new Raw(["--allow-read", "--approve", "file_read"], s.ws, s.home);
  await raw.init();
  const answers = await Promise.all(
    Array.from({ length: 100 }, (_, i) => raw.call("file_read", { path: `f${i}.txt` })),
  );
  expect(answers.map((a, i) => a.result.structuredContent.content.includes(`content ${i}`))).toEqual(
    Array(100).fill(true),
  );
  raw.proc.stdin.end();
  expect(await raw.proc.exited).toBe(0);
  const rows = (await run(["log", "--json"], { cwd: s.ws, env: { HOME: s.home } })).stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(
    rows.filter((r) => r.tool === "file_read" && r.event === "tool_finished" && r.status === "success"),
  ).toHaveLength(100);
});
