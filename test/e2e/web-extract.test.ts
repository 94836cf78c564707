// web_extract and MCP over HTTP through dist/toolgate, inside a loopback-only network namespace:
// Bun.serve on port 0 stands in for the web, reached through --resolve and an exact grant.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir, type TempDir } from "../helpers.ts";
import { answerMcp } from "../support/http-mcp-server.ts";
import { inLoopbackNamespace } from "../http/netns.ts";

const PAGE = readFileSync(join(import.meta.dir, "..", "fixtures", "web", "idle-python-docs.html"));

inLoopbackNamespace(import.meta.path, () => {
  let streamed = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const u = new URL(req.url);
      switch (u.pathname) {
        case "/page":
          return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
        case "/data.json":
          return Response.json({ a: 1, b: ["x"] });
        case "/image.png":
          return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]), {
            headers: { "content-type": "image/png" },
          });
        case "/missing":
          return new Response("no", { status: 404 });
        case "/metadata":
          return Response.redirect("http://169.254.169.254/latest/meta-data/", 302);
        case "/big": {
          const chunk = new Uint8Array(64 * 1024).fill(98);
          let sent = 0;
          return new Response(
            new ReadableStream({
              pull(c) {
                if (sent >= 50 * 1024 * 1024) return c.close();
                sent += chunk.byteLength;
                streamed = sent;
                c.enqueue(chunk);
              },
            }),
            { headers: { "content-type": "text/plain" } },
          );
        }
        case "/mcp":
          return answerMcp(req);
        default:
          return new Response("?", { status: 404 });
      }
    },
  });
  afterAll(() => server.stop(true));
  const P = server.port;
  const site = `docs.test:${P}`;
  const reach = ["--resolve", `${site}:127.0.0.1`, `--allow-net=${site}`, "--approve", "web_extract"];
  const extract = (dir: string, args: object, flags = reach) =>
    run(["call", "web_extract", JSON.stringify(args), ...flags], { cwd: dir });

  describe("web_extract", () => {
    test("a real-world HTML page becomes its title and readable text", async () => {
      await using dir = tempDir();
      const r = await extract(dir.path, { url: `http://${site}/page?from=test#top` });
      const out = json(r);
      expect([r.code, out.status, out.payload.title, out.payload.truncated, out.payload.content_type]).toEqual([
        0,
        "success",
        "IDLE — Python 3.13.0a2 documentation",
        true,
        "text/html",
      ]);
      expect(out.payload.text).toContain("IDLE is Python’s Integrated Development and Learning Environment.");
      expect(out.payload.text).not.toContain("<script");
      expect(out.payload.text).not.toContain("var DOCUMENTATION_OPTIONS");
      expect(out.payload.text).not.toContain("&#8212;");
    });
    test("max_chars bounds the text, with truncated", async () => {
      await using dir = tempDir();
      const out = json(await extract(dir.path, { url: `http://${site}/page`, max_chars: 100 }));
      expect([out.payload.chars, out.payload.text.length, out.payload.truncated]).toEqual([100, 100, true]);
    });
    test("JSON comes back as text; binary is refused web.binary; an error status is web.status", async () => {
      await using dir = tempDir();
      const j = json(await extract(dir.path, { url: `http://${site}/data.json` }));
      expect([j.payload.content_type, JSON.parse(j.payload.text)]).toEqual(["application/json", { a: 1, b: ["x"] }]);
      const bin = await extract(dir.path, { url: `http://${site}/image.png` });
      expect([bin.code, json(bin)]).toEqual([
        1,
        {
          status: "failed",
          tool: "web_extract",
          error_code: "web.binary",
          message: 'the content type "image/png" is not text; web_extract returns text only',
          details: { content_type: "image/png" },
        },
      ]);
      expect(json(await extract(dir.path, { url: `http://${site}/missing` })).error_code).toBe("web.status");
    });
    test("a 50 MB response is cut at the cap while streaming", async () => {
      await using dir = tempDir();
      const out = json(await extract(dir.path, { url: `http://${site}/big`, max_chars: 10 }));
      expect([out.status, out.payload.truncated, out.payload.text]).toEqual(["success", true, "bbbbbbbbbb"]);
      expect(streamed).toBeLessThan(30 * 1024 * 1024);
    });
    test("the whole network granted is not an exact grant: the loopback address is refused url.rejected", async () => {
      await using dir = tempDir();
      const r = await extract(dir.path, { url: `http://${site}/page` }, [
        "--resolve",
        `${site}:127.0.0.1`,
        "--allow-net",
        "--approve",
        "web_extract",
      ]);
      expect([r.code, json(r).error_code, json(r).details.rule]).toEqual([1, "url.rejected", "private_address"]);
      const literal = await extract(dir.path, { url: `http://127.0.0.1:${P}/page` }, [
        "--allow-net",
        "--approve",
        "web_extract",
      ]);
      expect(json(literal).details).toEqual({
        rule: "private_address",
        host: "127.0.0.1",
        address: "127.0.0.1",
        range: "loopback",
        flag: `--allow-net=127.0.0.1:${P}`,
      });
    });
    test("without --allow-net for the host it is permission.denied (exit 4), naming the flag", async () => {
      await using dir = tempDir();
      const r = await extract(dir.path, { url: `http://${site}/page` }, [
        "--resolve",
        `${site}:127.0.0.1`,
        "--approve",
        "web_extract",
      ]);
      expect([r.code, json(r).error_code]).toEqual([4, "permission.denied"]);
      expect(r.stderr + r.stdout).toContain(`--allow-net=${site}`);
    });
    test("a redirect to the metadata address is refused; a name without DNS is dns_failed", async () => {
      await using dir = tempDir();
      expect(json(await extract(dir.path, { url: `http://${site}/metadata` })).details.rule).toBe("private_address");
      const nodns = await extract(dir.path, { url: "https://example.com/" }, [
        "--allow-net=example.com",
        "--approve",
        "web_extract",
      ]);
      expect([json(nodns).error_code, json(nodns).details.rule]).toEqual(["url.rejected", "dns_failed"]);
    });
    // A file: URL, bare or with a host, is refused for its scheme before a grant is asked for: it
    // once read as a URL that cannot be parsed, or (with a host) as a need for --allow-net=HOST:80.
    test.each(["file:", "FILE:", " file: ", "file:///etc/passwd", "file://example.com/etc/passwd"])(
      "%j is refused url.rejected (scheme) with no grant asked for",
      async (url) => {
        await using dir = tempDir();
        const r = await extract(dir.path, { url }, ["--approve", "web_extract"]);
        expect([r.code, json(r).error_code, json(r).details]).toEqual([
          1,
          "url.rejected",
          { rule: "scheme", scheme: "file" },
        ]);
        expect(json(r).message).toContain("that scheme names a file on this machine: file_read reads one");
      },
    );
    test("the journal keeps the URL's scheme and host only", async () => {
      await using dir = tempDir();
      await extract(dir.path, { url: `http://${site}/page?token=s3cret#frag` });
      const log = await run(["log", "--json"], { cwd: dir.path });
      expect(JSON.parse(log.stdout.trim().split("\n")[0]!).args_preview).toBe(`{"url":"http://${site}"}`);
      expect(log.stdout).not.toContain("s3cret");
      expect(log.stdout).not.toContain("/page");
    });
    test("a bad --resolve is a usage error (exit 2)", async () => {
      await using dir = tempDir();
      const r = await run(["call", "web_extract", "{}", "--resolve", "docs.test:80:127.1"], { cwd: dir.path });
      expect([r.code, r.stderr.split("\n")[0]]).toEqual([
        2,
        'toolgate: --resolve "docs.test:80:127.1": "127.1" is not an IP address',
      ]);
    });
  });

  describe("MCP over HTTP goes through the same policy", () => {
    const config = (dir: string, url: string) =>
      writeFileSync(join(dir, "toolgate.json"), JSON.stringify({ mcpServers: { web: { type: "http", url } } }));
    test("an mcpServers entry at a loopback address needs the exact grant: --allow-net alone is refused url.rejected", async () => {
      await using dir = tempDir();
      config(dir.path, `http://127.0.0.1:${P}/mcp?key=s3cret`);
      const blanket = await run(["call", "web__hello", "{}", "--allow-net", "--approve", "all"], { cwd: dir.path });
      expect([blanket.code, json(blanket).error_code]).toEqual([1, "mcp.connect_failed"]);
      expect(json(blanket).message).toContain("the address 127.0.0.1 is in a non-public range (loopback)");
      expect(blanket.stdout + blanket.stderr).toContain(`--allow-net=127.0.0.1:${P}`);
      // Another folder: a failed server is remembered for 30 seconds in its state folder.
      await using again = tempDir();
      config(again.path, `http://127.0.0.1:${P}/mcp?key=s3cret`);
      const exact = await run(["call", "web__hello", "{}", `--allow-net=127.0.0.1:${P}`, "--approve", "all"], {
        cwd: again.path,
      });
      expect([exact.code, json(exact)]).toEqual([
        0,
        { status: "success", tool: "web__hello", payload: { content: [{ type: "text", text: "hello" }] } },
      ]);
      const log = await run(["log", "--json"], { cwd: again.path });
      expect([
        log.stdout.includes("mcp.connect:web"),
        log.stdout.includes("s3cret"),
        log.stdout.includes("/mcp"),
      ]).toEqual([true, false, false]);
    });
    test("a name pinned with --resolve and granted exactly by name reaches it", async () => {
      await using dir = tempDir();
      config(dir.path, `http://mcp.test:${P}/mcp`);
      const r = await run(
        [
          "call",
          "web__hello",
          "{}",
          "--resolve",
          `mcp.test:${P}:127.0.0.1`,
          `--allow-net=mcp.test:${P}`,
          "--approve",
          "all",
        ],
        { cwd: dir.path },
      );
      expect([r.code, json(r).status]).toEqual([0, "success"]);
    });
  });

  describe("https: the connection goes to the pinned address, the certificate is checked against the URL's name", () => {
    let certs: TempDir;
    let tls: ReturnType<typeof Bun.serve>;
    beforeAll(() => {
      certs = tempDir();
      const made = Bun.spawnSync(
        [
          "openssl",
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          join(certs.path, "key.pem"),
          "-out",
          join(certs.path, "cert.pem"),
          "-days",
          "2",
          "-subj",
          "/CN=secure.test",
          "-addext",
          "subjectAltName=DNS:secure.test",
        ],
        { stderr: "pipe" },
      );
      if (made.exitCode !== 0) throw new Error(`openssl could not make a test certificate: ${made.stderr}`);
      tls = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        tls: { cert: Bun.file(join(certs.path, "cert.pem")), key: Bun.file(join(certs.path, "key.pem")) },
        fetch: (req) =>
          new Response(`served to ${req.headers.get("host")}`, { headers: { "content-type": "text/plain" } }),
      });
    });
    afterAll(async () => {
      tls.stop(true);
      await certs[Symbol.asyncDispose]();
    });
    const fetchAs = (dir: string, name: string) => {
      const site = `${name}:${tls.port}`;
      return run(
        [
          "call",
          "web_extract",
          JSON.stringify({ url: `https://${site}/` }),
          "--resolve",
          `${site}:127.0.0.1`,
          `--allow-net=${site}`,
          "--approve",
          "web_extract",
        ],
        { cwd: dir, env: { NODE_EXTRA_CA_CERTS: join(certs.path, "cert.pem") } },
      );
    };
    test("the certificate's name matches the URL's host: the page is read, with the original Host header", async () => {
      await using dir = tempDir();
      const r = await fetchAs(dir.path, "secure.test");
      expect([r.code, json(r).payload?.text]).toEqual([0, `served to secure.test:${tls.port}`]);
    });
    test("another name pinned to the same address fails the certificate check: net.tls, not a policy refusal", async () => {
      await using dir = tempDir();
      const r = await fetchAs(dir.path, "impostor.test");
      expect([r.code, json(r).error_code, json(r).message]).toEqual([
        1,
        "net.tls",
        `the TLS connection to https://impostor.test:${tls.port} failed (ERR_TLS_CERT_ALTNAME_INVALID)`,
      ]);
    });
  });
});
