// The OAuth token store: one 0600 file per server URL in a 0700 folder of the user's state,
// replaced atomically, bound to its URL, removed by logout; every token it sees joins the
// live list the views redact with.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AuthStore, recordName } from "../../src/auth/store.ts";
import { redactText } from "../../src/boundary/redact.ts";
import { tempDir } from "../helpers.ts";

const URL_A = "https://mcp.example.com/mcp";
const tokens = { access_token: "at-1234567890abcdef", refresh_token: "rt-abcdef1234567890", token_type: "Bearer" };

describe("AuthStore", () => {
  test("writes one 0600 file in a 0700 auth folder, and reads it back", async () => {
    await using d = tempDir();
    const state = join(d.path, "state");
    const store = new AuthStore(state);
    store.update(URL_A, (r) => ({ ...r, tokens, obtained_ms: 5 }));
    const dir = join(state, "auth");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual([recordName(URL_A)]);
    expect(statSync(join(dir, recordName(URL_A))).mode & 0o777).toBe(0o600);
    expect(new AuthStore(state).read(URL_A)).toEqual({ server_url: URL_A, tokens, obtained_ms: 5 });
  });

  test("narrows an auth folder another umask left open", async () => {
    await using d = tempDir();
    mkdirSync(join(d.path, "auth"), { mode: 0o755 });
    chmodSync(join(d.path, "auth"), 0o755);
    new AuthStore(d.path).update(URL_A, (r) => ({ ...r, tokens }));
    expect(statSync(join(d.path, "auth")).mode & 0o777).toBe(0o700);
  });

  test("replaces the record atomically: no temporary file is left, the old content is gone", async () => {
    await using d = tempDir();
    const store = new AuthStore(d.path);
    store.update(URL_A, (r) => ({ ...r, tokens }));
    store.update(URL_A, (r) => ({ ...r, tokens: { ...tokens, access_token: "at-second-000000000" } }));
    expect(readdirSync(join(d.path, "auth"))).toEqual([recordName(URL_A)]);
    expect(readFileSync(join(d.path, "auth", recordName(URL_A)), "utf8")).not.toContain("at-1234567890abcdef");
    expect(store.read(URL_A)?.tokens?.access_token).toBe("at-second-000000000");
  });

  test("keeps each server URL apart, and a record copied to another URL's file is not read", async () => {
    await using d = tempDir();
    const store = new AuthStore(d.path);
    const other = "https://evil.example.net/mcp";
    store.update(URL_A, (r) => ({ ...r, tokens }));
    expect(store.read(other)).toBeUndefined();
    writeFileSync(join(d.path, "auth", recordName(other)), readFileSync(join(d.path, "auth", recordName(URL_A))));
    expect(store.read(other)).toBeUndefined();
    // A fragment names the same resource.
    expect(store.read(`${URL_A}#x`)?.tokens).toEqual(tokens);
  });

  test("logout removes the record; a second removal finds nothing", async () => {
    await using d = tempDir();
    const store = new AuthStore(d.path);
    store.update(URL_A, (r) => ({ ...r, tokens, client: { client_id: "c1", client_secret: "cs-0123456789abcdef" } }));
    expect(store.remove(URL_A)).toBe(true);
    expect(store.read(URL_A)).toBeUndefined();
    expect(readdirSync(join(d.path, "auth"))).toEqual([]);
    expect(store.remove(URL_A)).toBe(false);
  });

  test("every token and client secret it reads or writes joins the live redaction list", async () => {
    await using d = tempDir();
    const secrets: string[] = [];
    new AuthStore(d.path).update(URL_A, (r) => ({
      ...r,
      tokens,
      client: { client_id: "c1", client_secret: "cs-0123456789abcdef" },
    }));
    const store = new AuthStore(d.path, secrets);
    expect(secrets).toEqual([]);
    store.read(URL_A);
    expect(secrets.sort()).toEqual(["at-1234567890abcdef", "cs-0123456789abcdef", "rt-abcdef1234567890"]);
    expect(redactText("Authorization: Bearer at-1234567890abcdef", secrets)).toBe("Authorization: Bearer [REDACTED]");
  });

  test("without a user state folder nothing is written: records live in memory", async () => {
    const store = new AuthStore(null);
    store.update(URL_A, (r) => ({ ...r, tokens }));
    expect(store.read(URL_A)?.tokens).toEqual(tokens);
    expect(store.pathOf(URL_A)).toBeNull();
    expect(store.remove(URL_A)).toBe(true);
  });
});
