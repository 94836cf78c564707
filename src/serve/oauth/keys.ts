// The issuer's signing keys (its JWKS), held in memory for serve's lifetime. Loaded once at start;
// a token signed with a key not in the set (an unknown `kid`: the issuer rotated) refreshes the set,
// at most once a minute whatever comes, so a flood of made-up kids costs the issuer one request a
// minute; a set older than MAX_AGE_MS is refreshed behind the call that notices. A refresh that
// fails keeps the keys there are: the issuer being down does not stop the calls it signed. Each set
// read has a generation: what was verified under an older one is verified again (verify.ts).
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWSHeaderParameters, type FlattenedJWSInput } from "jose";
import type { Get } from "./discovery.ts";

/** The least time between two refreshes asked for by tokens (an unknown kid, an old set). */
export const REFRESH_MS = 60_000;
/** A set this old is refreshed (in the background) by the next token checked. */
export const MAX_AGE_MS = 15 * 60_000;

export interface KeySetDeps {
  readonly url: string;
  readonly get: Get;
  readonly now: () => number;
  /** One operator line (stderr): a refresh that failed, a rotation seen. */
  readonly log: (line: string) => void;
}

type Resolver = ReturnType<typeof createLocalJWKSet>;

export class KeySet {
  #resolve: Resolver | undefined;
  #kids: readonly string[] = [];
  #loadedAt = -Infinity;
  /** When a token last asked for a refresh (unknown kid or an old set); the start's load is not one. */
  #askedAt = -Infinity;
  #loading: Promise<string | null> | undefined;
  #generation = 0;
  /** Requests for the set made so far (the start's included). */
  fetches = 0;

  constructor(private readonly d: KeySetDeps) {}

  /** The start's load: null when the set is there, else why not. */
  load(): Promise<string | null> {
    return this.#read();
  }

  /** Which read of the set is held: changes whenever a set is read (a verdict under another one no longer holds). */
  get generation(): number {
    return this.#generation;
  }

  /**
   * A set older than MAX_AGE_MS is refreshed in the background (at most once a minute): every token checked calls
   * this.
   */
  refreshIfOld(): void {
    if (this.d.now() - this.#loadedAt > MAX_AGE_MS) void this.#refresh("the key set is old");
  }

  /** The kids held now (for messages and tests). */
  get kids(): readonly string[] {
    return this.#kids;
  }

  #read(): Promise<string | null> {
    this.#loading ??= (async () => {
      this.fetches++;
      try {
        const r = await this.d.get(this.d.url);
        if ("problem" in r) return `the key set ${this.d.url} cannot be read: ${r.problem}`;
        const keys = (r.json as { keys?: unknown } | undefined)?.keys;
        if (r.status !== 200 || !Array.isArray(keys))
          return `the key set ${this.d.url} answered ${r.status === 200 ? "without a keys list" : `HTTP ${r.status}`}`;
        const set = { keys: keys.filter((k) => k !== null && typeof k === "object") } as JSONWebKeySet;
        this.#resolve = createLocalJWKSet(set);
        this.#kids = set.keys.map((k) => k.kid ?? "(no kid)");
        this.#loadedAt = this.d.now();
        this.#generation++;
        return null;
      } finally {
        this.#loading = undefined;
      }
    })();
    return this.#loading;
  }

  /** A refresh a token asked for, unless one was asked for within REFRESH_MS; true when it ran and succeeded. */
  async #refresh(why: string): Promise<boolean> {
    const now = this.d.now();
    if (now - this.#askedAt < REFRESH_MS) return false;
    this.#askedAt = now;
    const problem = await this.#read();
    if (problem !== null) this.d.log(`serve: ${why}; ${problem}; the keys held are kept`);
    return problem === null;
  }

  /** The key for a token's header (jose's key resolver): refreshes the set once for an unknown kid. */
  readonly key = async (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
    this.refreshIfOld();
    try {
      if (!this.#resolve) throw new errors.JWKSNoMatchingKey();
      return await this.#resolve(header, token);
    } catch (e) {
      if (!(e instanceof errors.JWKSNoMatchingKey)) throw e;
      if (!(await this.#refresh(`a token names the key ${JSON.stringify(header.kid ?? "")}, not in the set`))) throw e;
      return this.#resolve!(header, token);
    }
  };
}
