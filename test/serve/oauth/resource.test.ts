// What the protected resource publishes and how it challenges: RFC 9728's metadata and its paths,
// RFC 6750's WWW-Authenticate (quoted values kept to the characters the RFC allows), bearer headers.
import { describe, expect, test } from "bun:test";
import {
  bearerOf,
  challenge,
  metadataPaths,
  metadataUrl,
  resourceMetadata,
} from "../../../src/serve/oauth/resource.ts";

describe("the metadata", () => {
  test.each([
    ["http://127.0.0.1:8808/mcp", "http://127.0.0.1:8808/.well-known/oauth-protected-resource/mcp"],
    ["https://tools.example.test/team/mcp", "https://tools.example.test/.well-known/oauth-protected-resource/team/mcp"],
    ["https://tools.example.test/", "https://tools.example.test/.well-known/oauth-protected-resource"],
  ])("of %s is at %s", (resource, url) => {
    expect(metadataUrl(resource)).toBe(url);
  });

  test("answers at the bare path, the endpoint's and the resource's own", () => {
    expect([...metadataPaths("https://tools.example.test/team/mcp", "/mcp")].sort()).toEqual([
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource/team/mcp",
    ]);
  });

  test("names the resource, its issuer, its scopes and header bearer tokens only", () => {
    expect(
      resourceMetadata("http://127.0.0.1:1/mcp", { issuer: "https://id.example.test", scopes: ["mcp:tools"] }),
    ).toEqual({
      resource: "http://127.0.0.1:1/mcp",
      authorization_servers: ["https://id.example.test"],
      scopes_supported: ["mcp:tools"],
      bearer_methods_supported: ["header"],
      resource_name: "toolgate",
    });
    expect(
      resourceMetadata("http://127.0.0.1:1/mcp", { issuer: "https://id.example.test", scopes: [] }),
    ).not.toHaveProperty("scopes_supported");
  });
});

describe("the challenge", () => {
  const meta = "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp";
  test.each([
    [{}, `Bearer resource_metadata="${meta}"`],
    [
      { error: "invalid_token", description: "the token has expired" } as const,
      `Bearer resource_metadata="${meta}", error="invalid_token", error_description="the token has expired"`,
    ],
    [
      { error: "insufficient_scope", scope: ["mcp:tools", "mcp:admin"] } as const,
      `Bearer resource_metadata="${meta}", error="insufficient_scope", scope="mcp:tools mcp:admin"`,
    ],
    [
      { error: "invalid_token", description: 'a "quoted" \\ é\nline' } as const,
      `Bearer resource_metadata="${meta}", error="invalid_token", error_description="a ?quoted? ? ??line"`,
    ],
  ])("%p", (problem, header) => {
    expect(challenge(meta, problem)).toBe(header);
  });
});

test.each([
  ["Bearer abc.def-ghi_~+/==", "abc.def-ghi_~+/=="],
  ["bearer  abc ", "abc"],
  ["Basic abc", null],
  ["Bearer", null],
  ["Bearer a b", null],
  ["Bearer abc, Bearer def", null],
  [null, null],
])("bearerOf(%p) is %p", (header, token) => {
  expect(bearerOf(header)).toBe(token);
});
