// Per-caller request limits of serve --http --oauth-issuer (a caller rule's requests_per_minute):
// a token bucket per caller, full at the start, refilled evenly over the minute, so a caller may
// burst up to its limit and then goes on at its rate. An empty bucket answers with how long until
// the next request would be taken (Retry-After). The clock is injected. Pure but for its table.

/** Callers tracked at once; past it, the buckets that are full again (idle callers) are dropped. */
const MAX_TRACKED = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

export class CallerLimits {
  readonly #buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number) {}

  /** Takes one request of `key`'s allowance of `perMinute`: 0 when taken, else the seconds to wait (at least 1). */
  take(key: string, perMinute: number): number {
    const now = this.now();
    const rate = perMinute / 60_000;
    let b = this.#buckets.get(key);
    if (b) b.tokens = Math.min(perMinute, b.tokens + (now - b.at) * rate);
    else {
      if (this.#buckets.size >= MAX_TRACKED) this.#sweep(now);
      this.#buckets.set(key, (b = { tokens: perMinute, at: now }));
    }
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate / 1000));
  }

  #sweep(now: number): void {
    // A bucket idle for a whole minute is full again, whatever its rate: forgetting it changes nothing.
    for (const [k, b] of this.#buckets) if (now - b.at >= 60_000) this.#buckets.delete(k);
  }
}
