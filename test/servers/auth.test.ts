// The OAuth wiring of one HTTP server: every host of the flow passes its net permission before a
// request leaves; the config's headers stay with the server's origin; a 403 insufficient_scope
// leaves the wanted scope for the next `toolgate auth` and refuses the call mcp.auth_required.
import { describe, expect, test } from "bun:test";
import { checkBoundary } from "../../src/boundary/boundary.ts";
import { authWiring, challengeScope, retryAfter } from "../../src/servers/auth.ts";
import type { RemoteSpec } from "../../src/servers/specs.ts";
import type { Need } from "../../src/permission/types.ts";
import { AuthStore } from "../../src/auth/store.ts";
import { tempDir } from "../helpers.ts";

const URL_S = "https://mcp.example.com/mcp";
const spec = (headers: Record<string, string> = {}): RemoteSpec => ({
  name: "srv",
  origin: "mcp:srv",
  kind: "mcp",
  transport: { kind: "http", url: URL_S, headers, secrets: {} },
  needs: [],
  network: true,
  pin: false,
  connectTimeoutMs: 1000,
  timeoutMs: 1000,
  graceMs: 0,
  required: false,
});

function wired(
  opts: { userState?: string | null; headers?: Record<string, string>; deny?: string; answer?: Response } = {},
) {
  const sent: { url: string; headers: Headers }[] = [];
  const asked: Need[] = [];
  const w = authWiring(spec(opts.headers), {
    userState: opts.userState ?? null,
    secrets: [],
    base: async (input, init) => {
      sent.push({ url: String(input), headers: new Headers(init?.headers) });
      return opts.answer ?? new Response("{}", { status: 200 });
    },
    check: (need) => {
      asked.push(need);
      return need.value === opts.deny
        ? {
            ok: false,
            code: "permission.denied",
            message: `net access to "${need.value}" is not granted`,
            flag: `--allow-net=${need.value}`,
          }
        : { ok: true };
    },
    now: () => 0,
    version: "test",
  });
  return { w, sent, asked };
}

describe("authWiring's fetch", () => {
  test("checks each host's net permission first; a refused host gets no request and the refusal names the flag", async () => {
    const { w, sent, asked } = wired({ deny: "auth.example.com:443" });
    await w.fetch("https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
    await expect(w.fetch("https://auth.example.com/.well-known/oauth-authorization-server")).rejects.toThrow(
      "--allow-net=auth.example.com:443",
    );
    expect(asked.map((n) => `${n.kind} ${n.value}`)).toEqual(["net mcp.example.com:443", "net auth.example.com:443"]);
    expect(sent.map((s) => s.url)).toEqual(["https://mcp.example.com/.well-known/oauth-protected-resource/mcp"]);
    expect(w.refusal("srv")).toEqual({
      code: "permission.denied",
      message: expect.stringContaining("needs https://auth.example.com for its authorization"),
      details: { flag: "--allow-net=auth.example.com:443", flags: ["--allow-net=auth.example.com:443"] },
    });
  });

  // A metadata document names the URLs the flow fetches: a file: one (bare, or with a path) never
  // becomes a net need for a host it does not have, and no request leaves.
  test.each(["file:", "FILE:///etc/passwd", "file://auth.example.com/token"])(
    "a %s URL is refused as the URL policy refuses it, before any grant is asked for",
    async (url) => {
      const { w, sent, asked } = wired();
      await expect(w.fetch(url)).rejects.toThrow('the scheme "file" is not allowed; only http and https are');
      expect([asked, sent]).toEqual([[], []]);
      const refusal = w.refusal("srv");
      expect(refusal).toEqual({
        code: "url.rejected",
        message: expect.stringMatching(
          /^MCP server "srv" needs a URL with the scheme "file" for its authorization: the scheme "file" is not allowed/,
        ),
      });
      // It names the scheme, never the file: URL, which the output boundary would withhold.
      expect(checkBoundary(refusal, { localPaths: true })).toBeNull();
    },
  );

  test("a 401 to a token issued during this run says the server trusts another authorization server now, naming --logout; to an older token it says nothing", async () => {
    const answer = () =>
      new Response("{}", {
        status: 401,
        headers: {
          "www-authenticate":
            'Bearer error="invalid_token", error_description="the token was issued by another issuer"',
        },
      });
    const older = wired({ answer: answer() });
    await older.w.fetch(URL_S, { method: "POST", headers: { authorization: "Bearer old-token-0123456789" } });
    expect(older.w.refusal("srv")).toBeUndefined();
    const fresh = wired({ answer: answer() });
    fresh.w.provider.saveTokens({ access_token: "new-token-0123456789", token_type: "Bearer" });
    // A request without the token (discovery) is not the server refusing it.
    await fresh.w.fetch(URL_S, { method: "POST" });
    expect(fresh.w.refusal("srv")).toBeUndefined();
    await fresh.w.fetch(URL_S, { method: "POST", headers: { authorization: "Bearer new-token-0123456789" } });
    expect(fresh.w.refusal("srv")).toEqual({
      code: "mcp.auth_required",
      message:
        'MCP server "srv" refused the token its authorization server just issued (the token was issued by another issuer): it may trust another authorization server now; forget what is stored with `toolgate auth srv --logout`, then authorize again',
      details: { server: "srv", command: "toolgate auth srv --logout" },
    });
  });

  test("the config's headers go to the server's origin only", async () => {
    const { w, sent } = wired({ headers: { "X-Api-Key": "key-123456789" } });
    await w.fetch("https://mcp.example.com/mcp", {
      headers: { "X-Api-Key": "key-123456789", accept: "application/json" },
    });
    await w.fetch("https://auth.example.com/token", {
      headers: { "X-Api-Key": "key-123456789", accept: "application/json" },
    });
    expect(sent.map((s) => [s.url, s.headers.get("x-api-key"), s.headers.get("accept")])).toEqual([
      ["https://mcp.example.com/mcp", "key-123456789", "application/json"],
      ["https://auth.example.com/token", null, "application/json"],
    ]);
  });

  test("a 403 insufficient_scope keeps the wanted scope and makes the refusal mcp.auth_required naming it", async () => {
    await using d = tempDir();
    const answer = new Response("{}", {
      status: 403,
      headers: {
        "www-authenticate":
          'Bearer error="insufficient_scope", scope="read write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
      },
    });
    const { w } = wired({ userState: d.path, answer });
    await w.fetch(URL_S, { method: "POST" });
    expect(new AuthStore(d.path).read(URL_S)?.wanted_scope).toBe("read write");
    expect(w.refusal("srv")).toEqual({
      code: "mcp.auth_required",
      message:
        'MCP server "srv" needs authorization with the scope "read write": run `toolgate auth srv` (the same flags as this command grant its network)',
      details: { server: "srv", command: "toolgate auth srv", scope: "read write" },
    });
  });

  test("a 401 with no stored token: mcp.auth_required, and where the entry sends headers, a word about them", () => {
    const plain = wired().w;
    expect(() => plain.provider.discoveryState()).toThrow();
    expect(plain.refusal("srv")?.message).toBe(
      'MCP server "srv" needs authorization: run `toolgate auth srv` (the same flags as this command grant its network)',
    );
    const keyed = wired({ headers: { "X-Api-Key": "key-123456789" } }).w;
    expect(() => keyed.provider.discoveryState()).toThrow();
    expect(keyed.refusal("srv")?.message).toEndWith(
      "; if it takes a key in headers instead of OAuth, check the headers its config entry sends",
    );
  });

  test("the target is the server through this fetch and provider", () => {
    const { w } = wired({ headers: { A: "b" } });
    expect({
      ...w.target,
      fetch: typeof (w.target as { fetch?: unknown }).fetch,
      authProvider: (w.target as { authProvider?: unknown }).authProvider === w.provider,
    }).toEqual({ kind: "http", name: "srv", url: URL_S, headers: { A: "b" }, fetch: "function", authProvider: true });
  });
});

describe("an HTTP 429", () => {
  test("makes the refusal mcp.rate_limited with the Retry-After sent; nothing else repeats the header", async () => {
    const { w } = wired({ answer: new Response("slow down", { status: 429, headers: { "retry-after": "12" } }) });
    await w.fetch("https://mcp.example.com/mcp", { method: "POST" });
    expect(w.refusal("srv")).toEqual({
      code: "mcp.rate_limited",
      message:
        'MCP server "srv" is rate limiting: mcp.example.com answered HTTP 429 Too Many Requests; it asks to wait 12 s (Retry-After) before trying again',
      details: { server: "srv", status: 429, retry_after: "12" },
    });
  });
  test.each([
    ["120", "120"],
    [" 5 ", "5"],
    ["Wed, 21 Oct 2015 07:28:00 GMT", "Wed, 21 Oct 2015 07:28:00 GMT"],
    ["soon", undefined],
    ["-1", undefined],
    ["1.5", undefined],
    ["Wed, 21 Oct 2015 07:28:00 GMT\u001b[31m", undefined],
    [null, undefined],
  ])("Retry-After %p reads as %p", (header, expected) => {
    expect(retryAfter(header)).toBe(expected);
  });
});

describe("challengeScope", () => {
  test.each([
    ['Bearer error="insufficient_scope", scope="a b"', "a b"],
    ['Bearer scope="a b", error="insufficient_scope"', "a b"],
    ['Bearer error="insufficient_scope", error_description="needs scope x", scope="files:write"', "files:write"],
    ['Bearer error="invalid_token", scope="a"', undefined],
    ['Bearer error="insufficient_scope"', undefined],
    [null, undefined],
  ])("%p → %p", (header, scope) => {
    expect(challengeScope(header)).toBe(scope);
  });
});
