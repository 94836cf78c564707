// The four rails through dist/toolgate, inside a loopback-only network namespace: a Bun.serve
// store on port 0 stands in for the operator's endpoints (trusted for their address class).
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";
import { inLoopbackNamespace } from "../http/netns.ts";

const TOKEN = "rail-token-5f1c2d9e";
const RAILS = ["bank_search", "bank_get", "librarian", "research"];

inLoopbackNamespace(import.meta.path, () => {
  const seen: { path: string; auth: string | null; body: unknown }[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const body = await req.json().catch(() => null);
      seen.push({ path, auth: req.headers.get("authorization"), body });
      if (req.headers.get("authorization") !== `Bearer ${TOKEN}`) return new Response("no", { status: 401 });
      switch (path) {
        case "/store/search":
          return Response.json({ hits: [{ slug: "tides", title: "Tides", score: 0.9 }], echo: TOKEN });
        case "/store/get":
          return Response.json({ slug: "tides", title: "Tides", text: "The moon pulls." });
        case "/store/librarian":
          return Response.json({ manifest: [{ slug: "tides", title: "Tides", score: 1 }] });
        case "/web/research":
          return Response.json({ answer: "42", citations: [{ url: "https://example.com/a", title: "A" }] });
        default:
          return new Response("?", { status: 404 });
      }
    },
  });
  afterAll(() => server.stop(true));
  const base = `http://127.0.0.1:${server.port}`;
  const all = {
    RAILS_BANK_URL: `${base}/store`,
    RAILS_BANK_TOKEN: TOKEN,
    RAILS_RESEARCH_URL: `${base}/web`,
    RAILS_RESEARCH_TOKEN: TOKEN,
  };
  const listed = async (cwd: string, env: Record<string, string>) =>
    (await run(["tools", "--json"], { cwd, env })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).name)
      .filter((n: string) => RAILS.includes(n))
      .sort();

  describe("offered only with endpoint and credential", () => {
    test("none without the variables; bank rails with the bank pair only; all four with both", async () => {
      await using dir = tempDir();
      expect(await listed(dir.path, {})).toEqual([]);
      expect(await listed(dir.path, { RAILS_BANK_URL: `${base}/store` })).toEqual([]);
      expect(await listed(dir.path, { RAILS_BANK_URL: `${base}/store`, RAILS_BANK_TOKEN: TOKEN })).toEqual([
        "bank_get",
        "bank_search",
        "librarian",
      ]);
      expect(await listed(dir.path, all)).toEqual([...RAILS].sort());
    });
    test("--require-rails with a missing credential fails the boot (exit 5) naming the variable", async () => {
      await using dir = tempDir();
      const r = await run(["tools", "--require-rails"], { cwd: dir.path, env: { ...all, RAILS_RESEARCH_TOKEN: "" } });
      expect([r.code, r.stderr.split("\n")[0]]).toEqual([
        5,
        "toolgate: rails are required (--require-rails) but research cannot be offered: RAILS_RESEARCH_TOKEN is not set",
      ]);
      expect((await run(["tools", "--require-rails"], { cwd: dir.path, env: all })).code).toBe(0);
    });
    test('"rails": {"required": true} in a config does the same', async () => {
      await using dir = tempDir();
      writeFileSync(join(dir.path, "mine.json"), JSON.stringify({ rails: { required: true } }));
      const r = await run(["tools", "--config", join(dir.path, "mine.json")], {
        cwd: dir.path,
        env: { RAILS_BANK_URL: `${base}/store` },
      });
      expect([
        r.code,
        r.stderr.includes("RAILS_BANK_TOKEN, RAILS_RESEARCH_URL, RAILS_RESEARCH_TOKEN are not set"),
      ]).toEqual([5, true]);
    });
    test("toolgate config shows the endpoints and never a credential", async () => {
      await using dir = tempDir();
      const r = await run(["config", "--json"], { cwd: dir.path, env: all });
      expect(r.stdout).not.toContain(TOKEN);
      expect(r.stdout).toContain("RAILS_BANK_TOKEN");
      expect(r.stdout).toContain(`${base}/store`);
    });
  });

  describe("calls", () => {
    const call = (cwd: string, tool: string, args: object, env: Record<string, string> = all) =>
      run(["call", tool, JSON.stringify(args), "--approve", tool], { cwd, env });
    test("bank_search posts the query with the bearer credential; the credential is redacted from the result and the journal", async () => {
      await using dir = tempDir();
      seen.length = 0;
      const r = await call(dir.path, "bank_search", { query: "moon", limit: 3 });
      expect([r.code, json(r)]).toEqual([
        0,
        {
          status: "success",
          tool: "bank_search",
          payload: { hits: [{ slug: "tides", title: "Tides", score: 0.9 }], echo: "[REDACTED]" },
        },
      ]);
      expect(seen).toEqual([{ path: "/store/search", auth: `Bearer ${TOKEN}`, body: { query: "moon", limit: 3 } }]);
      const log = await run(["log", "--json"], { cwd: dir.path, env: all });
      expect([log.stdout.includes("bank_search"), log.stdout.includes(TOKEN)]).toEqual([true, false]);
    });
    test("bank_get, librarian and research each make one request to their route", async () => {
      await using dir = tempDir();
      seen.length = 0;
      expect(json(await call(dir.path, "bank_get", { slug: "tides" })).payload).toEqual({
        slug: "tides",
        title: "Tides",
        text: "The moon pulls.",
      });
      expect(json(await call(dir.path, "librarian", { angles: ["moon", "sea"] })).payload).toEqual({
        manifest: [{ slug: "tides", title: "Tides", score: 1 }],
      });
      expect(json(await call(dir.path, "research", { question: "why?" })).payload.answer).toBe("42");
      expect(seen.map((s) => [s.path, s.body])).toEqual([
        ["/store/get", { slug: "tides" }],
        ["/store/librarian", { angles: ["moon", "sea"], limit: 20 }],
        ["/web/research", { question: "why?" }],
      ]);
    });
    test("librarian takes two to four angles", async () => {
      await using dir = tempDir();
      expect(json(await call(dir.path, "librarian", { angles: ["a", "b", "c", "d", "e"] })).error_code).toBe(
        "args.invalid",
      );
      expect(json(await call(dir.path, "librarian", { angles: ["a"] })).error_code).toBe("args.invalid");
    });
    test("an operator endpoint is still scheme-checked; a refused credential is rail.status", async () => {
      await using dir = tempDir();
      const bad = await call(dir.path, "research", { question: "q" }, { ...all, RAILS_RESEARCH_URL: "file:///etc" });
      expect([json(bad).error_code, json(bad).details.rule]).toEqual(["url.rejected", "scheme"]);
      const denied = await call(
        dir.path,
        "research",
        { question: "q" },
        { ...all, RAILS_RESEARCH_TOKEN: "wrong-token-value" },
      );
      expect([json(denied).error_code, json(denied).details]).toEqual(["rail.status", { status: 401 }]);
    });
  });
});
