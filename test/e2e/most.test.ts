// The Most tools through dist/toolgate, inside a loopback-only network namespace: a Bun.serve
// stand-in for Most on port 0, the token file checked at call time, created resources kept.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";
import { inLoopbackNamespace } from "../http/netns.ts";

const TOKEN = "most-token-8c1e77a0";

inLoopbackNamespace(import.meta.path, () => {
  const seen: { method: string; path: string; auth: string | null; body: unknown }[] = [];
  let next = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const body = req.method === "POST" ? await req.json() : null;
      seen.push({ method: req.method, path, auth: req.headers.get("authorization"), body });
      if (req.headers.get("authorization") !== `Bearer ${TOKEN}`) return new Response("no", { status: 401 });
      if (path === "/health") return Response.json({ ok: true, echo: TOKEN });
      if (path === "/chats") return Response.json({ chat_id: `chat-${++next}`, message_id: `msg-${++next}` });
      const m = /^\/chats\/([^/]+)\/messages$/.exec(path);
      if (m) return Response.json({ message_id: `msg-${++next}`, chat_id: decodeURIComponent(m[1]!) });
      return new Response("?", { status: 404 });
    },
  });
  afterAll(() => server.stop(true));
  const URL_ = `http://127.0.0.1:${server.port}`;
  const setup = (dir: string, mode = 0o600) => {
    const file = join(dir, "most.token");
    writeFileSync(file, `${TOKEN}\n`);
    chmodSync(file, mode);
    return { MOST_SERVICE_TOKEN_FILE: file, MOST_SERVICE_URL: URL_ };
  };
  const names = async (cwd: string, env: Record<string, string>) =>
    (await run(["tools", "--json"], { cwd, env })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).name)
      .filter((n: string) => n.startsWith("most_"))
      .sort();

  describe("offered only with MOST_SERVICE_TOKEN_FILE", () => {
    test("absent without it, the three tools with it; a token file without an endpoint fails the boot", async () => {
      await using dir = tempDir();
      expect(await names(dir.path, { MOST_SERVICE_URL: URL_ })).toEqual([]);
      expect(await names(dir.path, setup(dir.path))).toEqual(["most_create_chat", "most_health", "most_send_message"]);
      const r = await run(["tools"], { cwd: dir.path, env: { MOST_SERVICE_TOKEN_FILE: join(dir.path, "most.token") } });
      expect([r.code, r.stderr.split("\n")[0]]).toEqual([
        5,
        "toolgate: most.service_token_file (MOST_SERVICE_TOKEN_FILE) is set but Most has no endpoint",
      ]);
    });
  });

  describe("the token file, read at call time", () => {
    test("most_health needs no approval, sends the token as a bearer credential and never shows it", async () => {
      await using dir = tempDir();
      seen.length = 0;
      const r = await run(["call", "most_health", "{}"], { cwd: dir.path, env: setup(dir.path) });
      expect([r.code, json(r)]).toEqual([
        0,
        { status: "success", tool: "most_health", payload: { ok: true, echo: "[REDACTED]" } },
      ]);
      expect(seen).toEqual([{ method: "GET", path: "/health", auth: `Bearer ${TOKEN}`, body: null }]);
    });
    test("missing, too open, not a file: each a clear refusal, nothing sent", async () => {
      await using dir = tempDir();
      const env = setup(dir.path);
      seen.length = 0;
      chmodSync(env.MOST_SERVICE_TOKEN_FILE, 0o644);
      const open = json(await run(["call", "most_health", "{}"], { cwd: dir.path, env }));
      expect([open.error_code, open.details]).toEqual(["most.token_too_open", { mode: "644" }]);
      rmSync(env.MOST_SERVICE_TOKEN_FILE);
      expect(json(await run(["call", "most_health", "{}"], { cwd: dir.path, env })).error_code).toBe(
        "most.token_missing",
      );
      mkdirSync(env.MOST_SERVICE_TOKEN_FILE);
      expect(json(await run(["call", "most_health", "{}"], { cwd: dir.path, env })).error_code).toBe(
        "most.token_unreadable",
      );
      expect(seen).toEqual([]);
    });
  });

  describe("created resources", () => {
    test("chat and message ids are recorded with their journal rows and listed by a later process", async () => {
      await using dir = tempDir();
      const env = setup(dir.path);
      const chat = await run(
        [
          "call",
          "most_create_chat",
          JSON.stringify({ from: "me", recipients: ["+15550100"], text: "hi", preferred_service: "SMS" }),
          "--approve",
          "most_create_chat",
        ],
        { cwd: dir.path, env },
      );
      const chatId = json(chat).payload.chat_id;
      const sent = await run(
        [
          "call",
          "most_send_message",
          JSON.stringify({ chat_id: chatId, text: "again" }),
          "--approve",
          "most_send_message",
        ],
        { cwd: dir.path, env },
      );
      expect([chat.code, sent.code, json(sent).payload.chat_id]).toEqual([0, 0, chatId]);
      const listed = await run(["log", "--resources", "--json"], { cwd: dir.path, env });
      const rows = listed.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(rows.map((r) => [r.tool, r.kind, r.resource_id])).toEqual([
        ["most_create_chat", "chat", chatId],
        ["most_create_chat", "message", json(chat).payload.message_id],
        ["most_send_message", "chat", chatId],
        ["most_send_message", "message", json(sent).payload.message_id],
      ]);
      const journal = (await run(["log", "--json"], { cwd: dir.path, env })).stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(rows.map((r) => journal.find((j) => j.id === r.journal_id)?.tool)).toEqual([
        "most_create_chat",
        "most_create_chat",
        "most_send_message",
        "most_send_message",
      ]);
    });
    test("preferred_service is one of iMessage, SMS, RCS", async () => {
      await using dir = tempDir();
      const r = await run(
        [
          "call",
          "most_send_message",
          JSON.stringify({ chat_id: "c", text: "x", preferred_service: "Telegram" }),
          "--approve",
          "most_send_message",
        ],
        { cwd: dir.path, env: setup(dir.path) },
      );
      expect(json(r).error_code).toBe("args.invalid");
    });
  });
});
