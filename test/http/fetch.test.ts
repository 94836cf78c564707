// The adapter end to end in-process, inside a loopback-only network namespace: real Bun.serve
// servers on port 0 reached through --resolve pins and exact grants, an injected resolver for DNS.
import { afterAll, describe, expect, test } from "bun:test";
import { checkBoundary } from "../../src/boundary/boundary.ts";
import { httpClient, exactNetGrants, policyFetch, type NetSetup } from "../../src/http/client.ts";
import { guardedFetch, type HttpDeps } from "../../src/http/fetch.ts";
import type { PermissionGrants } from "../../src/permission/types.ts";
import { inLoopbackNamespace } from "./netns.ts";

inLoopbackNamespace(import.meta.path, () => {
  const seen: { host: string | null; path: string; auth: string | null; method: string }[] = [];
  let pulled = 0;
  let hold!: () => void;
  const held = new Promise<void>((r) => (hold = r));
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const u = new URL(req.url);
      seen.push({
        host: req.headers.get("host"),
        path: u.pathname + u.search,
        auth: req.headers.get("authorization"),
        method: req.method,
      });
      const n = Number(u.searchParams.get("n") ?? 0);
      switch (u.pathname) {
        case "/hop":
          return n > 0 ? Response.redirect(`/hop?n=${n - 1}`, 302) : new Response("landed");
        case "/loop":
          return new Response(null, { status: 301, headers: { location: "/loop" } });
        case "/to": // a redirect to whatever ?u= says
          return new Response(null, {
            status: Number(u.searchParams.get("s") ?? 302),
            headers: { location: u.searchParams.get("u")! },
          });
        case "/big": {
          const chunk = new Uint8Array(64 * 1024).fill(97);
          let sent = 0;
          return new Response(
            new ReadableStream({
              pull(c) {
                if (sent >= 50 * 1024 * 1024) return c.close();
                sent += chunk.byteLength;
                pulled = sent;
                c.enqueue(chunk);
              },
            }),
            { headers: { "content-type": "text/plain" } },
          );
        }
        case "/hang":
          await held;
          return new Response("late");
        default:
          return new Response(`hello ${u.pathname}`, { headers: { "content-type": "text/plain" } });
      }
    },
  });
  const other = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("other") });
  afterAll(() => {
    hold();
    server.stop(true);
    other.stop(true);
  });
  const P = server.port;
  const grants = (...allow: string[]): PermissionGrants => ({ allow: { net: allow }, deny: {} });
  const setup = (allow: string[], pins: [string, string[]][] = [[`site.test:${P}`, ["127.0.0.1"]]]): NetSetup => {
    const g = grants(...allow);
    return {
      exact: exactNetGrants(g.allow.net),
      pins: new Map(pins),
      grants: g,
      cwd: "/",
      resolver: async () => {
        throw Object.assign(new Error("no DNS in tests"), { code: "ENOTFOUND" });
      },
    };
  };
  const get = (url: string, s: NetSetup, maxBytes = 1 << 20) => httpClient(s).get(url, { maxBytes, timeoutMs: 5000 });
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  const rule = (r: { ok: boolean; refusal?: { code: string; details?: unknown } }) =>
    r.ok ? "ok" : `${r.refusal!.code}:${(r.refusal!.details as { rule?: string } | undefined)?.rule ?? ""}`;

  describe("pins and exact grants", () => {
    test("a pinned name with the exact grant reaches the loopback server, keeping the Host header and path", async () => {
      seen.length = 0;
      const r = await get(`http://site.test:${P}/page?q=1`, setup([`site.test:${P}`]));
      expect(
        r.ok && { status: r.value.status, body: text(r.value.bytes), url: r.value.url, truncated: r.value.truncated },
      ).toEqual({ status: 200, body: "hello /page", url: `http://site.test:${P}/page?q=1`, truncated: false });
      expect(seen).toEqual([{ host: `site.test:${P}`, path: "/page?q=1", auth: null, method: "GET" }]);
    });
    test("without the exact grant the pinned loopback address is refused and nothing is sent", async () => {
      seen.length = 0;
      expect(rule(await get(`http://site.test:${P}/`, setup([])))).toBe("url.rejected:private_address");
      expect(rule(await get(`http://site.test:${P}/`, setup(["site.test"])))).toBe("url.rejected:private_address");
      expect(seen).toEqual([]);
    });
    test("an exact grant of the address reaches a literal loopback URL; another port does not", async () => {
      expect(rule(await get(`http://127.0.0.1:${P}/`, setup([`127.0.0.1:${P}`])))).toBe("ok");
      expect(rule(await get(`http://127.0.0.1:${other.port}/`, setup([`127.0.0.1:${P}`])))).toBe(
        "url.rejected:private_address",
      );
    });
    test("a pin answering one public and one private address refuses the name", async () => {
      expect(
        rule(await get(`http://mixed.test:${P}/`, setup([], [[`mixed.test:${P}`, ["93.184.216.34", "127.0.0.1"]]]))),
      ).toBe("url.rejected:private_address");
    });
  });

  describe("localhost and grants as a union", () => {
    test("localhost:PORT reaches the loopback server without asking DNS (the resolver here throws), Host kept", async () => {
      seen.length = 0;
      const r = await get(`http://localhost:${P}/mcp`, setup([`localhost:${P}`], []));
      expect(r.ok && { status: r.value.status, body: text(r.value.bytes) }).toEqual({
        status: 200,
        body: "hello /mcp",
      });
      expect(seen).toEqual([{ host: `localhost:${P}`, path: "/mcp", auth: null, method: "GET" }]);
    });
    test("localhost:PORT also reaches 127.0.0.1 on that port, not another port, and no other name reaches localhost", async () => {
      expect(rule(await get(`http://127.0.0.1:${P}/`, setup([`localhost:${P}`], [])))).toBe("ok");
      expect(rule(await get(`http://[::1]:${other.port}/`, setup([`localhost:${P}`], [])))).toBe(
        "url.rejected:private_address",
      );
      expect(rule(await get(`http://localhost:${other.port}/`, setup([`localhost:${P}`], [])))).toBe(
        "url.rejected:private_address",
      );
      expect(rule(await get(`http://localhost:${P}/`, setup([`127.0.0.1:${P}`, "localhost"], [])))).toBe(
        "url.rejected:private_address",
      );
    });
    test("a bare grant beside an exact one keeps the exact one: the union reaches both", () => {
      expect([...exactNetGrants(true, [`127.0.0.1:${P}`], ["example.com", "localhost:3000"])].sort()).toEqual(
        [`127.0.0.1:${P}`, "127.0.0.1:3000", "[::1]:3000", "localhost:3000"].sort(),
      );
    });
  });

  describe("DNS", () => {
    const spy = (answers: string[] | Error) => {
      const sent: string[] = [];
      const deps: HttpDeps = {
        reach: { exact: new Set(), pinned: new Set() },
        pins: new Map(),
        resolver: async () => {
          if (answers instanceof Error) throw answers;
          return answers;
        },
        fetchImpl: async (u) => {
          sent.push(u);
          return new Response("x");
        },
      };
      return { deps, sent };
    };
    test("a resolver answering one public and one private address: refused before any connection", async () => {
      const { deps, sent } = spy(["93.184.216.34", "10.0.0.7"]);
      expect(rule(await guardedFetch("https://mixed.test/", {}, deps))).toBe("url.rejected:private_address");
      expect(sent).toEqual([]);
    });
    test.each([
      ["127.0.0.1"],
      ["::1"],
      ["::ffff:169.254.169.254"],
      ["169.254.169.254"],
      ["fd00::1"],
      ["0.0.0.0"],
      ["100.64.1.1"],
    ])("a name resolving to %s is refused", async (addr) => {
      const { deps, sent } = spy([addr]);
      expect(rule(await guardedFetch("http://rebind.test/", {}, deps))).toBe("url.rejected:private_address");
      expect(sent).toEqual([]);
    });
    test("a resolution failure is a refusal", async () => {
      const { deps } = spy(Object.assign(new Error("nope"), { code: "ENOTFOUND" }));
      expect(rule(await guardedFetch("http://nowhere.test/", {}, deps))).toBe("url.rejected:dns_failed");
    });
    test("the system resolver in a namespace without DNS fails closed", async () => {
      const s = setup([]);
      const r = await httpClient({ exact: s.exact, pins: s.pins, grants: s.grants, cwd: "/" }).get(
        "http://example.com/",
        { maxBytes: 10, timeoutMs: 5000 },
      );
      expect(rule(r)).toBe("url.rejected:dns_failed");
    });
    test("a public answer is connected to by address, the Host header and TLS name kept", async () => {
      const calls: { url: string; host: string | null; tls: unknown }[] = [];
      const deps: HttpDeps = {
        reach: { exact: new Set(), pinned: new Set() },
        pins: new Map(),
        resolver: async () => ["93.184.216.34"],
        fetchImpl: async (u, i) => {
          calls.push({
            url: u,
            host: new Headers(i.headers).get("host"),
            tls: (i.tls as { serverName?: string } | undefined)?.serverName,
          });
          return new Response("x");
        },
      };
      expect(rule(await guardedFetch("https://example.com/a?b=1", {}, deps))).toBe("ok");
      expect(calls).toEqual([{ url: "https://93.184.216.34:443/a?b=1", host: "example.com", tls: "example.com" }]);
    });
  });

  describe("redirects", () => {
    const s = () => setup([`site.test:${P}`, `127.0.0.1:${other.port}`]);
    test("five redirects are followed, each hop through the policy", async () => {
      const r = await get(`http://site.test:${P}/hop?n=5`, s());
      expect(r.ok && { body: text(r.value.bytes), redirects: r.value.redirects }).toEqual({
        body: "landed",
        redirects: 5,
      });
    });
    test("a sixth is refused redirect_limit, and so is a loop", async () => {
      expect(rule(await get(`http://site.test:${P}/hop?n=6`, s()))).toBe("url.rejected:redirect_limit");
      expect(rule(await get(`http://site.test:${P}/loop`, s()))).toBe("url.rejected:redirect_limit");
    });
    test.each([
      ["http://127.0.0.1:1/", "url.rejected:private_address"],
      ["http://169.254.169.254/latest/meta-data/", "url.rejected:private_address"],
      ["http://[::ffff:7f00:1]:1/", "url.rejected:private_address"],
      ["http://0x7f.1:1/", "url.rejected:private_address"],
      ["http://localhost:1/", "url.rejected:private_address"],
      ["file:///etc/passwd", "url.rejected:scheme"],
      ["http://u:p@site.test/", "url.rejected:userinfo"],
    ])("a redirect to %s is refused %s", async (target, expected) => {
      expect(rule(await get(`http://site.test:${P}/to?u=${encodeURIComponent(target)}`, s()))).toBe(expected);
    });
    test.each(["file:///etc/passwd", "FILE:/etc/shadow", "file:"])(
      "a redirect to %s is refused naming the scheme, a refusal the output boundary lets through",
      async (target) => {
        const r = await get(`http://site.test:${P}/to?u=${encodeURIComponent(target)}`, s());
        expect(!r.ok && r.refusal.message).toBe(
          `http://site.test:${P} redirected to a URL with the scheme "file": the scheme "file" is not allowed; only http and https are (that scheme names a file on this machine: file_read reads one)`,
        );
        // web_extract's and the rails' results are read with local paths withheld: the refusal is not.
        expect(!r.ok && checkBoundary(r.refusal, { localPaths: true })).toBeNull();
      },
    );
    test("a redirect to a host --allow-net does not grant is refused, even an exactly granted address needs its grant", async () => {
      expect(
        rule(
          await get(
            `http://site.test:${P}/to?u=${encodeURIComponent(`http://127.0.0.1:${other.port}/`)}`,
            setup([`site.test:${P}`]),
          ),
        ),
      ).toBe("url.rejected:private_address");
      const r = await get(`http://site.test:${P}/to?u=${encodeURIComponent(`http://127.0.0.1:${other.port}/`)}`, s());
      expect(r.ok && text(r.value.bytes)).toBe("other");
    });
    test("an operator endpoint (rails, Most) is trusted for its address, not where it redirects: another origin is judged as any URL", async () => {
      seen.length = 0;
      const op = (url: string, s: NetSetup) =>
        httpClient(s).get(url, { maxBytes: 1 << 20, timeoutMs: 5000, operatorEndpoint: true });
      // Its own origin (a loopback address, no grant): followed.
      const own = await op(`http://127.0.0.1:${P}/hop?n=2`, setup([]));
      expect(own.ok && { body: text(own.value.bytes), redirects: own.value.redirects }).toEqual({
        body: "landed",
        redirects: 2,
      });
      // Another loopback origin, or the metadata address: refused at the hop, nothing sent there.
      for (const target of [
        `http://127.0.0.1:${other.port}/`,
        "http://169.254.169.254/latest/meta-data/",
        `http://localhost:${other.port}/`,
      ]) {
        const r = await op(`http://127.0.0.1:${P}/to?u=${encodeURIComponent(target)}`, setup([]));
        expect([target, rule(r)]).toEqual([target, "url.rejected:private_address"]);
      }
      // The exact grant reaches it, as for any URL.
      const granted = await op(
        `http://127.0.0.1:${P}/to?u=${encodeURIComponent(`http://127.0.0.1:${other.port}/`)}`,
        setup([`127.0.0.1:${other.port}`]),
      );
      expect(granted.ok && text(granted.value.bytes)).toBe("other");
    });
    test("an https to http redirect is refused redirect_downgrade", async () => {
      const deps: HttpDeps = {
        reach: { exact: new Set(), pinned: new Set() },
        pins: new Map(),
        resolver: async () => ["93.184.216.34"],
        fetchImpl: async () => new Response(null, { status: 302, headers: { location: "http://example.com/" } }),
      };
      expect(rule(await guardedFetch("https://example.com/", {}, deps))).toBe("url.rejected:redirect_downgrade");
    });
    test("credentials are not carried to another origin; a 303 after POST continues as GET", async () => {
      seen.length = 0;
      const f = policyFetch(setup([`site.test:${P}`, `127.0.0.1:${P}`]));
      const res = await f(`http://site.test:${P}/to?s=303&u=${encodeURIComponent(`http://127.0.0.1:${P}/landed`)}`, {
        method: "POST",
        body: "x",
        headers: { authorization: "Bearer s3cret" },
      });
      expect(await res.text()).toBe("hello /landed");
      expect(seen.map((x) => ({ method: x.method, auth: x.auth }))).toEqual([
        { method: "POST", auth: "Bearer s3cret" },
        { method: "GET", auth: null },
      ]);
    });
  });

  describe("size cap and failures", () => {
    test("a 50 MB response is read only up to the cap, the rest never received", async () => {
      const r = await get(`http://site.test:${P}/big`, setup([`site.test:${P}`]), 1 << 20);
      expect(r.ok && { size: r.value.bytes.byteLength, truncated: r.value.truncated }).toEqual({
        size: 1 << 20,
        truncated: true,
      });
      expect(pulled).toBeLessThan(20 * 1024 * 1024);
    });
    test("a closed port is net.unreachable, told apart from a policy refusal", async () => {
      const r = await get(`http://closed.test:1/`, setup(["closed.test:1"], [["closed.test:1", ["127.0.0.1"]]]));
      expect(r).toEqual({
        ok: false,
        refusal: { code: "net.unreachable", message: "http://closed.test:1 cannot be reached (ECONNREFUSED)" },
      });
    });
    test("a server that never answers is net.timeout", async () => {
      const r = await httpClient(setup([`site.test:${P}`])).get(`http://site.test:${P}/hang?secret=1`, {
        maxBytes: 10,
        timeoutMs: 200,
      });
      expect(r).toEqual({
        ok: false,
        refusal: { code: "net.timeout", message: `http://site.test:${P} did not answer in time` },
      });
    });
    test("a TLS handshake with a server that does not speak TLS is net.tls", async () => {
      const r = await get(`https://site.test:${P}/`, setup([`site.test:${P}`]));
      expect(rule(r)).toBe("net.tls:");
    });
    test("the policy fetch for the MCP SDK throws the refusal's code", async () => {
      const err = await policyFetch(setup([]))(`http://127.0.0.1:${P}/mcp`).catch((e) => e);
      expect({ code: err.code, rule: err.details.rule }).toEqual({ code: "url.rejected", rule: "private_address" });
    });
  });
});
