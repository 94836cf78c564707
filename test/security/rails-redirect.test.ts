// The rails followed their endpoint's redirects to any address, since an operator
// endpoint is trusted for its address class. Now only the endpoint's own origin keeps that trust: a
// redirect elsewhere is judged by the URL policy like any URL, so a private address is refused at
// the hop and nothing is sent to it. Through dist/toolgate, in a loopback-only network namespace.
import { afterAll, describe, expect, test } from "bun:test";
import { json, run, tempDir } from "../helpers.ts";
import { inLoopbackNamespace } from "../http/netns.ts";

const TOKEN = "rail-token-7c2e91d4";

inLoopbackNamespace(import.meta.path, () => {
  // What must never be reached: a second loopback address standing in for an internal service.
  const reached: string[] = [];
  const internal = Bun.serve({
    hostname: "127.0.0.2",
    port: 0,
    fetch: (req) => (
      reached.push(`${req.method} ${new URL(req.url).pathname} ${req.headers.get("authorization")}`),
      Response.json({ hits: ["internal"] })
    ),
  });
  const endpoint = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/store/search")
        return new Response(null, {
          status: 307,
          headers: { location: `http://127.0.0.2:${internal.port}/admin/search` },
        });
      if (path === "/meta/search")
        return new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
      if (path === "/file/search")
        return new Response(null, { status: 302, headers: { location: "file:///etc/passwd" } });
      if (path === "/moved/search") return new Response(null, { status: 307, headers: { location: "/store2/search" } });
      if (path === "/store2/search") return Response.json({ hits: [{ slug: "tides", title: "Tides", score: 1 }] });
      return new Response("?", { status: 404 });
    },
  });
  afterAll(() => {
    internal.stop(true);
    endpoint.stop(true);
  });
  const call = (cwd: string, base: string) =>
    run(["call", "bank_search", '{"query":"moon"}', "--approve", "bank_search"], {
      cwd,
      env: { RAILS_BANK_URL: `http://127.0.0.1:${endpoint.port}${base}`, RAILS_BANK_TOKEN: TOKEN },
    });

  describe("a rail's endpoint redirects", () => {
    test("to another loopback address: refused at the hop (url.rejected, private_address), nothing sent to it", async () => {
      await using dir = tempDir();
      const r = await call(dir.path, "/store");
      expect([r.code, json(r)]).toEqual([
        1,
        {
          status: "failed",
          tool: "bank_search",
          error_code: "url.rejected",
          message: `http://127.0.0.1:${endpoint.port} redirected to http://127.0.0.2:${internal.port}: the address 127.0.0.2 is in a non-public range (loopback); only an exact grant reaches it (--allow-net=127.0.0.2:${internal.port})`,
          details: {
            rule: "private_address",
            host: "127.0.0.2",
            address: "127.0.0.2",
            range: "loopback",
            flag: `--allow-net=127.0.0.2:${internal.port}`,
          },
        },
      ]);
      expect(reached).toEqual([]);
    });

    test("to the cloud metadata address: refused the same way", async () => {
      await using dir = tempDir();
      const r = await call(dir.path, "/meta");
      expect([r.code, json(r).error_code, json(r).message]).toEqual([
        1,
        "url.rejected",
        `http://127.0.0.1:${endpoint.port} redirected to http://169.254.169.254: the address 169.254.169.254 is in a non-public range (linkLocal); only an exact grant reaches it (--allow-net=169.254.169.254:80)`,
      ]);
    });

    test("to a file: URL: refused url.rejected naming the scheme, not withheld as sensitive output for quoting the URL", async () => {
      await using dir = tempDir();
      const r = await call(dir.path, "/file");
      expect([r.code, json(r)]).toEqual([
        1,
        {
          status: "failed",
          tool: "bank_search",
          error_code: "url.rejected",
          message: `http://127.0.0.1:${endpoint.port} redirected to a URL with the scheme "file": the scheme "file" is not allowed; only http and https are (that scheme names a file on this machine: file_read reads one)`,
          details: { rule: "scheme", scheme: "file" },
        },
      ]);
    });

    test("within its own origin: followed, as the endpoint itself is trusted", async () => {
      await using dir = tempDir();
      const r = await call(dir.path, "/moved");
      expect([r.code, json(r)]).toEqual([
        0,
        { status: "success", tool: "bank_search", payload: { hits: [{ slug: "tides", title: "Tides", score: 1 }] } },
      ]);
      expect(reached).toEqual([]);
    });
  });
});
