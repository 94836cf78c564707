// The tokens serve --http --oauth-issuer has verified, remembered by their SHA-256 (never the token)
// with the claims they gave, so that a client's next request with the same token skips the
// signature check (an asynchronous WebCrypto verify: the bulk of what OAuth adds to a call). A
// remembered token still has its `exp` and `nbf` checked against the clock on every request, and
// is verified again once the key set has been read again (a key the issuer dropped stops counting).
import { createHash } from "node:crypto";

/** Tokens remembered at once; past it the memory starts over (each token is verified again once). */
export const REMEMBERED_TOKENS = 1_000;

interface Held<C> {
  readonly claims: C;
  /** Seconds since the epoch, when the token has one. */
  readonly nbf: number | undefined;
  /** The key set's generation it was verified under. */
  readonly generation: number;
}

/** C: what a token's verification gave (verify.ts's Claims), its `exp` in seconds since the epoch. */
export class VerifiedTokens<C extends { readonly exp: number }> {
  readonly #held = new Map<string, Held<C>>();

  constructor(private readonly leewaySecs: number) {}

  static digest(token: string): string {
    return createHash("sha256").update(token).digest("base64");
  }

  /**
   * The claims of a token verified under `generation` that still holds at `nowMs`, else undefined (and it is
   * forgotten).
   */
  get(digest: string, generation: number, nowMs: number): C | undefined {
    const h = this.#held.get(digest);
    if (h === undefined) return undefined;
    const now = Math.floor(nowMs / 1000);
    // As jose's own checks: expired when exp <= now - leeway, early when nbf > now + leeway.
    if (
      h.generation === generation &&
      h.claims.exp > now - this.leewaySecs &&
      (h.nbf === undefined || h.nbf <= now + this.leewaySecs)
    )
      return h.claims;
    this.#held.delete(digest);
    return undefined;
  }

  remember(digest: string, held: Held<C>): void {
    if (this.#held.size >= REMEMBERED_TOKENS) this.#held.clear();
    this.#held.set(digest, held);
  }

  get size(): number {
    return this.#held.size;
  }
}
