// Access tokens checked as the standards say, in process with jose's own signing: the issuer's key
// set held and refreshed at most once a minute on an unknown kid (the clock injected), kept when
// the issuer is down, and every way a token is refused (expired, early, another issuer or
// resource, `none`, HMAC with the public key, an unknown key, no expiry, not an access token); a
// token verified once is remembered until it expires or the set is read again.
import { beforeAll, describe, expect, test } from "bun:test";
import {
  exportJWK,
  exportSPKI,
  generateKeyPair,
  SignJWT,
  UnsecuredJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from "jose";
import type { Fetched } from "../../../src/serve/oauth/discovery.ts";
import { KeySet, MAX_AGE_MS, REFRESH_MS } from "../../../src/serve/oauth/keys.ts";
import { verifier } from "../../../src/serve/oauth/verify.ts";

const ISSUER = "https://id.example.test";
const RESOURCE = "http://127.0.0.1:8808/mcp";
const JWKS = "https://id.example.test/jwks";

interface Key {
  readonly kid: string;
  readonly priv: CryptoKey;
  readonly pub: JWK;
  readonly spki: string;
}
async function key(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return {
    kid,
    priv: privateKey,
    pub: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" },
    spki: await exportSPKI(publicKey),
  };
}

let k1: Key;
let k2: Key;
beforeAll(async () => {
  [k1, k2] = await Promise.all([key("k1"), key("k2")]);
});

/** An issuer in memory: the keys it lists, whether it answers, how often it was asked. */
function world(start = 1_800_000_000_000) {
  const w = { now: start, listed: [] as JWK[], down: false, fetches: 0, log: [] as string[] };
  const get = async (url: string): Promise<Fetched> => {
    w.fetches++;
    if (w.down) return { problem: "connection refused" };
    return url === JWKS ? { status: 200, json: { keys: w.listed } } : { status: 404, json: undefined };
  };
  const keys = new KeySet({ url: JWKS, get, now: () => w.now, log: (l) => void w.log.push(l) });
  const verify = verifier({ issuer: ISSUER, audience: RESOURCE, keys, groupsClaim: "groups", now: () => w.now });
  return Object.assign(w, { keys, verify });
}

const sign = (k: Key, now: number, claims: JWTPayload = {}, header: Record<string, unknown> = {}) =>
  new SignJWT({
    iss: ISSUER,
    aud: RESOURCE,
    sub: "alice",
    client_id: "team-app",
    scope: "mcp:tools",
    groups: ["readers"],
    iat: Math.floor(now / 1000),
    exp: Math.floor(now / 1000) + 300,
    ...claims,
  })
    .setProtectedHeader({ alg: "ES256", kid: k.kid, typ: "at+jwt", ...header })
    .sign(k.priv);

describe("a token signed by the issuer's key", () => {
  test("gives who called: subject, client, scopes and groups", async () => {
    const w = world();
    w.listed = [k1.pub];
    expect(await w.keys.load()).toBeNull();
    expect(await w.verify(await sign(k1, w.now))).toEqual({
      ok: true,
      claims: {
        sub: "alice",
        clientId: "team-app",
        scopes: ["mcp:tools"],
        groups: ["readers"],
        exp: Math.floor(w.now / 1000) + 300,
      },
    });
  });

  test.each([
    ["scp as a list", { scope: undefined, scp: ["mcp:tools", "mcp:admin"] }, ["mcp:tools", "mcp:admin"]],
    ["scope with two", { scope: "mcp:tools mcp:admin" }, ["mcp:tools", "mcp:admin"]],
    ["no scope", { scope: undefined }, []],
  ])("reads %s", async (_, claims, scopes) => {
    const w = world();
    w.listed = [k1.pub];
    await w.keys.load();
    const v = await w.verify(await sign(k1, w.now, claims));
    expect(v.ok && v.claims.scopes).toEqual(scopes);
  });

  test.each([
    ["client_id", { client_id: "team-app" }, "team-app"],
    ["azp when there is no client_id (Keycloak, Auth0)", { client_id: undefined, azp: "kc-app" }, "kc-app"],
    ["cid when there is neither (Okta)", { client_id: undefined, cid: "0oa-okta-app" }, "0oa-okta-app"],
    ["client_id before azp and cid", { client_id: "team-app", azp: "other", cid: "another" }, "team-app"],
    ["none of them", { client_id: undefined }, undefined],
  ])("the client is %s", async (_, claims, clientId) => {
    const w = world();
    w.listed = [k1.pub];
    await w.keys.load();
    const v = await w.verify(await sign(k1, w.now, claims));
    expect(v.ok && v.claims.clientId).toBe(clientId);
  });

  test("an audience list naming this resource, a typ of JWT, 60 s of clock skew either way are accepted", async () => {
    const w = world();
    w.listed = [k1.pub];
    await w.keys.load();
    const s = Math.floor(w.now / 1000);
    for (const t of [
      await sign(k1, w.now, { aud: ["https://other.example.test", RESOURCE] }),
      await sign(k1, w.now, {}, { typ: "JWT" }),
      await sign(k1, w.now, { exp: s - 59 }),
      await sign(k1, w.now, { nbf: s + 59 }),
    ])
      expect((await w.verify(t)).ok).toBe(true);
  });
});

describe("refused", () => {
  const cases: [string, (w: ReturnType<typeof world>) => Promise<string>, string][] = [
    [
      "expired past the leeway",
      (w) => sign(k1, w.now, { exp: Math.floor(w.now / 1000) - 61 }),
      "the token has expired",
    ],
    ["not valid yet", (w) => sign(k1, w.now, { nbf: Math.floor(w.now / 1000) + 120 }), "the token is not valid yet"],
    [
      "another issuer",
      (w) => sign(k1, w.now, { iss: "https://evil.example.test" }),
      "the token was issued by another issuer",
    ],
    [
      "another resource",
      (w) => sign(k1, w.now, { aud: "http://127.0.0.1:9999/mcp" }),
      "the token is for another resource (aud)",
    ],
    ["no audience", (w) => sign(k1, w.now, { aud: undefined }), "the token has no aud claim"],
    ["no expiry", (w) => sign(k1, w.now, { exp: undefined }), "the token has no exp claim"],
    [
      "alg none",
      (w) =>
        Promise.resolve(
          new UnsecuredJWT({ iss: ISSUER, aud: RESOURCE, sub: "alice", exp: Math.floor(w.now / 1000) + 300 }).encode(),
        ),
      "the token's signing algorithm is not accepted",
    ],
    [
      "HS256 keyed with the public key",
      (w) =>
        new SignJWT({ iss: ISSUER, aud: RESOURCE, sub: "alice", exp: Math.floor(w.now / 1000) + 300 })
          .setProtectedHeader({ alg: "HS256", kid: "k1" })
          .sign(new TextEncoder().encode(k1.spki)),
      "the token's signing algorithm is not accepted",
    ],
    [
      "signed by a key the issuer does not list",
      (w) => sign(k2, w.now, {}, { kid: "k1" }),
      "the token's signature does not verify",
    ],
    ["an unknown kid", (w) => sign(k2, w.now), "the token is signed with a key the issuer does not list"],
    ["not a JWT", () => Promise.resolve("not-a-jwt"), "the token is not a signed JWT"],
    [
      "a DPoP proof, not an access token",
      (w) => sign(k1, w.now, {}, { typ: "dpop+jwt" }),
      "a token of type dpop+jwt is not an access token",
    ],
    [
      "neither sub nor client_id",
      (w) => sign(k1, w.now, { sub: undefined, client_id: undefined }),
      "the token names neither a subject (sub) nor a client (client_id)",
    ],
  ];
  test.each(cases)("%s", async (_, make, description) => {
    const w = world();
    w.listed = [k1.pub];
    await w.keys.load();
    expect(await w.verify(await make(w))).toEqual({ ok: false, description });
  });
});

describe("the key set", () => {
  test("a rotated key verifies after one refresh", async () => {
    const w = world();
    w.listed = [k1.pub];
    await w.keys.load();
    w.listed = [k2.pub, k1.pub];
    w.now += 1_000;
    expect((await w.verify(await sign(k2, w.now))).ok).toBe(true);
    expect(w.fetches).toBe(2);
    expect(w.keys.kids).toEqual(["k2", "k1"]);
  });

  test("a flood of unknown kids fetches the set once a minute at most", async () => {
    const w = world();
    w.listed = [k1.pub];
    await w.keys.load();
    const forged = await Promise.all(
      Array.from({ length: 50 }, (_, i) => sign(k2, w.now, {}, { kid: `made-up-${i}` })),
    );
    const verdicts = await Promise.all(forged.map((t) => w.verify(t)));
    expect(verdicts.every((v) => !v.ok)).toBe(true);
    expect(w.fetches).toBe(2);
    w.now += REFRESH_MS - 1;
    await w.verify(forged[0]!);
    expect(w.fetches).toBe(2);
    w.now += 1;
    await w.verify(forged[1]!);
    expect(w.fetches).toBe(3);
  });

  test("the issuer down: cached keys go on verifying, an unknown kid is refused, the keys are kept", async () => {
    const w = world();
    w.listed = [k1.pub];
    await w.keys.load();
    w.down = true;
    w.now += MAX_AGE_MS + 1; // old enough to be refreshed as well
    expect((await w.verify(await sign(k1, w.now))).ok).toBe(true);
    expect((await w.verify(await sign(k2, w.now))).ok).toBe(false);
    expect((await w.verify(await sign(k1, w.now))).ok).toBe(true);
    expect(w.keys.kids).toEqual(["k1"]);
    expect(w.log.some((l) => l.includes("connection refused") && l.includes("the keys held are kept"))).toBe(true);
  });

  test("an old set is refreshed behind the call that notices, once", async () => {
    const w = world();
    w.listed = [k1.pub];
    await w.keys.load();
    w.now += MAX_AGE_MS + 1;
    await Promise.all([w.verify(await sign(k1, w.now)), w.verify(await sign(k1, w.now))]);
    expect(w.fetches).toBe(2);
  });

  test("the start's load says why it failed", async () => {
    const w = world();
    w.down = true;
    expect(await w.keys.load()).toBe(`the key set ${JWKS} cannot be read: connection refused`);
  });
});

describe("a token verified once", () => {
  /** The world with its key set's lookups counted: one per signature checked. */
  function counted() {
    const w = world();
    w.listed = [k1.pub];
    const lookups = { n: 0 };
    const own = w.keys.key;
    Object.defineProperty(w.keys, "key", { value: (...a: Parameters<typeof own>) => (lookups.n++, own(...a)) });
    return Object.assign(w, {
      lookups,
      verify: verifier({ issuer: ISSUER, audience: RESOURCE, keys: w.keys, groupsClaim: "groups", now: () => w.now }),
    });
  }

  test("is not checked again: the same claims come back without the key set", async () => {
    const w = counted();
    await w.keys.load();
    const token = await sign(k1, w.now);
    const first = await w.verify(token);
    expect(await w.verify(token)).toEqual(first);
    expect([first.ok, w.lookups.n]).toEqual([true, 1]);
  });

  test("is refused once it expires (with the same 60 s of skew), as if checked again", async () => {
    const w = counted();
    await w.keys.load();
    const token = await sign(k1, w.now, { exp: Math.floor(w.now / 1000) + 10 });
    expect((await w.verify(token)).ok).toBe(true);
    w.now += 69_000;
    expect((await w.verify(token)).ok).toBe(true);
    w.now += 1_000;
    expect(await w.verify(token)).toEqual({ ok: false, description: "the token has expired" });
  });

  test("is checked again after the key set is read again, and refused when its key is gone", async () => {
    const w = counted();
    await w.keys.load();
    const token = await sign(k1, w.now);
    expect((await w.verify(token)).ok).toBe(true);
    w.listed = [k2.pub];
    w.now += 1_000;
    expect((await w.verify(await sign(k2, w.now))).ok).toBe(true); // an unknown kid: the set is read again
    expect(await w.verify(token)).toEqual({
      ok: false,
      description: "the token is signed with a key the issuer does not list",
    });
  });

  test("still has an old set refreshed behind it", async () => {
    const w = counted();
    await w.keys.load();
    const token = await sign(k1, w.now, { exp: Math.floor(w.now / 1000) + 3600 });
    expect((await w.verify(token)).ok).toBe(true);
    w.now += MAX_AGE_MS + 1;
    expect((await w.verify(token)).ok).toBe(true);
    await Bun.sleep(0);
    expect([w.fetches, w.lookups.n]).toEqual([2, 1]);
  });

  test("a refused token is never remembered", async () => {
    const w = counted();
    await w.keys.load();
    const early = await sign(k1, w.now, { nbf: Math.floor(w.now / 1000) + 120 });
    expect((await w.verify(early)).ok).toBe(false);
    expect((await w.verify(early)).ok).toBe(false);
    expect(w.lookups.n).toBe(2);
  });
});
