// The --http flags as values: the bind address (IP literals and localhost, loopback unless
// --http-public), and where the bearer token comes from (a private file, generated, or none on loopback).
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  generateToken,
  httpOptions,
  isLoopback,
  MIN_TOKEN_CHARS,
  parseBind,
  readTokenFile,
  withConfigOAuth,
} from "../../src/serve/http-options.ts";
import { tempDir } from "../helpers.ts";

describe("parseBind", () => {
  test.each([
    ["127.0.0.1:0", { host: "127.0.0.1", port: 0 }],
    ["localhost:8808", { host: "127.0.0.1", port: 8808 }],
    ["LOCALHOST:1", { host: "127.0.0.1", port: 1 }],
    ["[::1]:65535", { host: "::1", port: 65535 }],
    ["0.0.0.0:80", { host: "0.0.0.0", port: 80 }],
  ])("%s", (spec, value) => {
    expect(parseBind(spec)).toEqual({ ok: true, value });
  });

  test.each([
    ["127.0.0.1", "is not HOST:PORT"],
    ["::1:80", "is not HOST:PORT"],
    ["[127.0.0.1]:80", "is not an IP address or localhost"],
    ["example.com:80", "is not an IP address or localhost"],
    ["127.0.0.1:65536", "port 65536 is past 65535"],
    ["127.0.0.1:-1", "is not HOST:PORT"],
    [":80", "is not HOST:PORT"],
  ])("%s is refused", (spec, message) => {
    const r = parseBind(spec);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.refusal.message).toContain(message);
  });
});

test.each([
  ["127.0.0.1", true],
  ["127.255.0.9", true],
  ["::1", true],
  ["::ffff:127.0.0.1", true],
  ["0.0.0.0", false],
  ["::", false],
  ["10.0.0.1", false],
  ["128.0.0.1", false],
])("isLoopback(%s) is %p", (host, loopback) => {
  expect(isLoopback(host)).toBe(loopback);
});

describe("the token", () => {
  const LONG = "abc-DEF_123".padEnd(MIN_TOKEN_CHARS, "x");

  test("a private file's trimmed content (mode 600 or 400)", async () => {
    await using dir = tempDir();
    const f = join(dir.path, "t");
    writeFileSync(f, `\n  ${LONG}  \n`, { mode: 0o600 });
    expect(readTokenFile(f)).toEqual({ ok: true, value: LONG });
    chmodSync(f, 0o400);
    expect(readTokenFile(f)).toEqual({ ok: true, value: LONG });
  });

  test.each([
    [
      "world-readable",
      LONG,
      0o604,
      (f: string) => `--token-file ${f} has mode 0604: every user on this machine may read or change it`,
    ],
    ["group-readable", LONG, 0o640, (f: string) => `--token-file ${f} has mode 0640: its group may read or change it`],
    ["group-writable", LONG, 0o620, (f: string) => `--token-file ${f} has mode 0620: its group may read or change it`],
    ["empty", "  \n\t\n", 0o600, (f: string) => `--token-file ${f} is empty`],
    [
      "two words",
      "a b",
      0o600,
      (f: string) => `--token-file ${f}: the token has a space or a control character inside it`,
    ],
    [
      "one-character",
      "t",
      0o600,
      (f: string) => `--token-file ${f}: the token is 1 character long; at least 32 are required`,
    ],
    [
      "31-character",
      "t".repeat(31),
      0o600,
      (f: string) => `--token-file ${f}: the token is 31 characters long; at least 32 are required`,
    ],
  ])("a %s file is refused", async (_, content, mode, message) => {
    await using dir = tempDir();
    const f = join(dir.path, "t");
    writeFileSync(f, content);
    chmodSync(f, mode);
    const r = readTokenFile(f);
    expect(!r.ok && r.refusal.message).toBe(message(f));
  });

  test("a missing file names the error", () => {
    const r = readTokenFile("/nonexistent/token");
    expect(!r.ok && r.refusal.message).toBe("--token-file /nonexistent/token: cannot be read (ENOENT)");
  });

  test("a generated token is 32 random bytes, base64url", () => {
    expect(generateToken(() => new Uint8Array(32).fill(255))).toBe(`${"_".repeat(42)}8`);
    expect(generateToken()).not.toBe(generateToken());
  });
});

describe("httpOptions", () => {
  const flags = { http: "127.0.0.1:0", httpPublic: false, noToken: false, tokenFile: undefined };
  const zeros = () => new Uint8Array(32);

  test("loopback with a generated token", () => {
    expect(httpOptions(flags, zeros)).toEqual({
      ok: true,
      value: { host: "127.0.0.1", port: 0, loopback: true, token: "A".repeat(43), tokenSource: "generated" },
    });
  });

  test("--no-token on loopback", () => {
    expect(httpOptions({ ...flags, noToken: true })).toEqual({
      ok: true,
      value: { host: "127.0.0.1", port: 0, loopback: true, token: null, tokenSource: "none" },
    });
  });

  test("a public address with --http-public keeps a token", () => {
    expect(httpOptions({ ...flags, http: "0.0.0.0:9", httpPublic: true }, zeros)).toEqual({
      ok: true,
      value: { host: "0.0.0.0", port: 9, loopback: false, token: "A".repeat(43), tokenSource: "generated" },
    });
  });

  test.each([
    [{ http: "0.0.0.0:0" }, "--http 0.0.0.0:0 is not a loopback address: other machines could reach it"],
    [{ http: "[::]:0", noToken: true }, "--http [::]:0 is not a loopback address: other machines could reach it"],
    [
      { http: "10.1.2.3:0", httpPublic: true, noToken: true },
      "--no-token is allowed only on a loopback address, not 10.1.2.3:0",
    ],
    [{ noToken: true, tokenFile: "f" }, "--no-token and --token-file were both given"],
    [{ oauthIssuer: "https://id.example.test", tokenFile: "f" }, "--oauth-issuer and --token-file were both given"],
    [{ oauthIssuer: "https://id.example.test", noToken: true }, "--oauth-issuer and --no-token were both given"],
    [
      { http: "0.0.0.0:0", oauthIssuer: "https://id.example.test" },
      "--http 0.0.0.0:0 is not a loopback address: other machines could reach it",
    ],
  ])("%o is refused", (over, message) => {
    const r = httpOptions({ ...flags, ...over });
    expect(!r.ok && r.refusal.message).toBe(message);
  });

  test("--oauth-issuer replaces the token: none is generated", () => {
    expect(
      httpOptions({ ...flags, http: "0.0.0.0:9", httpPublic: true, oauthIssuer: "https://id.example.test" }, zeros),
    ).toEqual({
      ok: true,
      value: {
        host: "0.0.0.0",
        port: 9,
        loopback: false,
        token: null,
        tokenSource: "oauth",
        oauth: { issuer: "https://id.example.test", scopes: [], groupsClaim: "groups", from: "--oauth-issuer" },
      },
    });
  });
});

describe("withConfigOAuth", () => {
  const base = { host: "127.0.0.1", port: 0, loopback: true };
  const generated = { ...base, token: "t".repeat(43), tokenSource: "generated" as const };
  const section = {
    issuer: "https://id.example.test",
    audience: "https://tools.example.test/mcp",
    scopes: ["mcp:tools"],
    jwks_uri: "https://id.example.test/keys",
    groups_claim: "roles",
  };

  test("serve.oauth alone turns the generated token into OAuth", () => {
    expect(withConfigOAuth(generated, section)).toEqual({
      ok: true,
      value: {
        ...base,
        token: null,
        tokenSource: "oauth",
        oauth: {
          issuer: "https://id.example.test",
          audience: "https://tools.example.test/mcp",
          scopes: ["mcp:tools"],
          jwksUri: "https://id.example.test/keys",
          groupsClaim: "roles",
          from: "serve.oauth",
        },
      },
    });
  });

  test("--oauth-issuer names the issuer; the config's jwks_uri applies only to its own issuer", () => {
    const flagged = httpOptions({
      http: "127.0.0.1:0",
      httpPublic: false,
      noToken: false,
      tokenFile: undefined,
      oauthIssuer: "https://other.example.test",
    });
    const r = withConfigOAuth(flagged.ok ? flagged.value : generated, section);
    expect(r.ok && r.value.oauth).toEqual({
      issuer: "https://other.example.test",
      audience: "https://tools.example.test/mcp",
      scopes: ["mcp:tools"],
      groupsClaim: "roles",
      from: "--oauth-issuer",
    });
  });

  test.each([
    ["file", "--token-file was given, and the config's serve.oauth asks for OAuth access tokens"],
    ["none", "--no-token was given, and the config's serve.oauth asks for OAuth access tokens"],
  ] as const)("a static token (%s) beside serve.oauth is refused", (tokenSource, message) => {
    const r = withConfigOAuth({ ...base, token: null, tokenSource }, section);
    expect(!r.ok && r.refusal.message).toBe(message);
  });

  test("no serve.oauth changes nothing", () => {
    expect(withConfigOAuth(generated, undefined)).toEqual({ ok: true, value: generated });
  });
});
