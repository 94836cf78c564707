// Checks an access token as the standards say (RFC 9068, RFC 8707, RFC 8725): a JWS signed by the
// issuer's key (asymmetric algorithms only: never `none`, never HMAC, whose "key" would be the
// public one), `iss` exactly the issuer, `aud` naming this resource, `exp` required and `nbf`
// honoured with at most LEEWAY_SECS of clock skew. What a caller is known by comes out of it. A
// token verified once is remembered (verified.ts) until it expires or the key set is read again.
import { errors, jwtVerify, type JWTPayload } from "jose";
import type { KeySet } from "./keys.ts";
import { VerifiedTokens } from "./verified.ts";

export const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];
export const LEEWAY_SECS = 60;
/** The `typ` an access token may carry: RFC 9068's, or the generic ones identity providers use. */
const TYPES = new Set(["at+jwt", "application/at+jwt", "jwt"]);

/** Who called, from the token's claims: never the token itself. */
export interface Claims {
  readonly sub: string | undefined;
  readonly clientId: string | undefined;
  readonly scopes: readonly string[];
  readonly groups: readonly string[];
  /** Seconds since the epoch. */
  readonly exp: number;
}

export type Verdict =
  | { readonly ok: true; readonly claims: Claims }
  | { readonly ok: false; readonly description: string };

export interface VerifyOptions {
  readonly issuer: string;
  readonly audience: string;
  readonly keys: KeySet;
  readonly groupsClaim: string;
  readonly now: () => number;
}

const strings = (v: unknown): string[] =>
  typeof v === "string"
    ? v.split(" ").filter(Boolean)
    : Array.isArray(v)
      ? v.filter((x): x is string => typeof x === "string")
      : [];

/** `scope` (RFC 9068, space-separated) or `scp` (a list or a string, as some providers write it). */
const scopesOf = (p: JWTPayload): string[] => strings(p.scope ?? p.scp);

function describe(e: unknown): string {
  if (e instanceof errors.JWTExpired) return "the token has expired";
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.reason === "missing") return `the token has no ${e.claim} claim`;
    if (e.claim === "nbf") return "the token is not valid yet";
    if (e.claim === "iss") return "the token was issued by another issuer";
    if (e.claim === "aud") return "the token is for another resource (aud)";
    return `the token's ${e.claim} claim is invalid`;
  }
  if (e instanceof errors.JOSEAlgNotAllowed) return "the token's signing algorithm is not accepted";
  if (e instanceof errors.JWKSNoMatchingKey) return "the token is signed with a key the issuer does not list";
  if (e instanceof errors.JWKSMultipleMatchingKeys) return "the token names no key and several match";
  if (e instanceof errors.JWSSignatureVerificationFailed) return "the token's signature does not verify";
  if (e instanceof errors.JWSInvalid || e instanceof errors.JWTInvalid) return "the token is not a signed JWT";
  if (e instanceof errors.JOSENotSupported) return "the token uses an algorithm or key this server does not support";
  return "the token cannot be verified";
}

export function verifier(o: VerifyOptions): (token: string) => Promise<Verdict> {
  const verified = new VerifiedTokens<Claims>(LEEWAY_SECS);
  return async (token) => {
    const digest = VerifiedTokens.digest(token);
    const held = verified.get(digest, o.keys.generation, o.now());
    if (held !== undefined) {
      o.keys.refreshIfOld();
      return { ok: true, claims: held };
    }
    const generation = o.keys.generation;
    try {
      const { payload, protectedHeader } = await jwtVerify(token, o.keys.key, {
        issuer: o.issuer,
        audience: o.audience,
        algorithms: ALGORITHMS,
        clockTolerance: LEEWAY_SECS,
        currentDate: new Date(o.now()),
        requiredClaims: ["exp", "iss", "aud"],
      });
      if (protectedHeader.typ !== undefined && !TYPES.has(protectedHeader.typ.toLowerCase()))
        return { ok: false, description: `a token of type ${protectedHeader.typ} is not an access token` };
      // RFC 9068's client_id, else OpenID's azp (Keycloak, Auth0), else Okta's cid.
      const clientId = [payload.client_id, payload.azp, payload.cid].find((v) => typeof v === "string") as
        | string
        | undefined;
      if (payload.sub === undefined && clientId === undefined)
        return { ok: false, description: "the token names neither a subject (sub) nor a client (client_id)" };
      const claims: Claims = {
        sub: payload.sub,
        clientId,
        scopes: scopesOf(payload),
        groups: strings(payload[o.groupsClaim]),
        exp: payload.exp!,
      };
      // Under the generation it was verified with: a refresh during the check (an unknown kid) verifies it again
      // next time.
      if (o.keys.generation === generation) verified.remember(digest, { claims, nbf: payload.nbf, generation });
      return { ok: true, claims };
    } catch (e) {
      return { ok: false, description: describe(e) };
    }
  };
}
