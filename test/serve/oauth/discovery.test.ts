// Finding the authorization server's metadata from its issuer, in the order MCP's authorization
// spec gives, and refusing a document that names another issuer or an endpoint that is not https.
import { describe, expect, test } from "bun:test";
import { discover, discoveryUrls, endpointProblem, type Fetched } from "../../../src/serve/oauth/discovery.ts";

describe("discoveryUrls", () => {
  test("an issuer without a path: RFC 8414, then OpenID Connect", () => {
    expect(discoveryUrls("https://id.example.test")).toEqual([
      "https://id.example.test/.well-known/oauth-authorization-server",
      "https://id.example.test/.well-known/openid-configuration",
    ]);
  });
  test("with a path: RFC 8414 inserted, OpenID Connect inserted, then appended", () => {
    expect(discoveryUrls("https://id.example.test/tenant/")).toEqual([
      "https://id.example.test/.well-known/oauth-authorization-server/tenant",
      "https://id.example.test/.well-known/openid-configuration/tenant",
      "https://id.example.test/tenant/.well-known/openid-configuration",
    ]);
  });
});

describe("discover", () => {
  const answers = (m: Record<string, Fetched>) => {
    const asked: string[] = [];
    return { asked, get: async (url: string) => (asked.push(url), m[url] ?? { status: 404, json: undefined }) };
  };

  test("takes the first document that answers, naming the issuer", async () => {
    const a = answers({
      "https://id.example.test/.well-known/openid-configuration": {
        status: 200,
        json: { issuer: "https://id.example.test", jwks_uri: "https://id.example.test/keys" },
      },
    });
    expect(await discover("https://id.example.test", a.get)).toEqual({
      ok: true,
      value: {
        issuer: "https://id.example.test",
        jwks_uri: "https://id.example.test/keys",
        from: "https://id.example.test/.well-known/openid-configuration",
      },
    });
    expect(a.asked).toHaveLength(2);
  });

  test("refuses a document naming another issuer", async () => {
    const a = answers({
      "https://id.example.test/.well-known/oauth-authorization-server": {
        status: 200,
        json: { issuer: "https://evil.example.test", jwks_uri: "https://evil.example.test/keys" },
      },
    });
    const r = await discover("https://id.example.test", a.get);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problem).toContain('names the issuer "https://evil.example.test"');
  });

  test("says what each URL answered when none did", async () => {
    const a = answers({
      "https://id.example.test/.well-known/oauth-authorization-server": { problem: "connection refused" },
    });
    const r = await discover("https://id.example.test", a.get);
    expect(!r.ok && r.problem).toBe(
      "no authorization server metadata for https://id.example.test (https://id.example.test/.well-known/oauth-authorization-server: connection refused; https://id.example.test/.well-known/openid-configuration: HTTP 404)",
    );
  });
});

test.each([
  ["https://id.example.test", null],
  ["http://127.0.0.1:8080", null],
  ["http://localhost:8080/realms/team", null],
  ["http://id.example.test", "is not https"],
  ["https://user:pw@id.example.test", "user name or password"],
  ["https://id.example.test/?x=1", "query or fragment"],
  ["id.example.test", "is not a URL"],
])("endpointProblem(%s)", (url, problem) => {
  const p = endpointProblem(url, "the issuer");
  if (problem === null) expect(p).toBeNull();
  else expect(p).toContain(problem);
});
