// A caller's requests a minute: a burst up to the limit, then one request each 60/limit seconds,
// Retry-After saying when; each caller has its own bucket; the clock is injected.
import { expect, test } from "bun:test";
import { CallerLimits } from "../../../src/serve/oauth/limits.ts";

test("a burst up to the limit, then the rate; Retry-After is the wait for the next request", () => {
  let now = 1_000_000;
  const l = new CallerLimits(() => now);
  expect([l.take("a", 3), l.take("a", 3), l.take("a", 3)]).toEqual([0, 0, 0]);
  expect(l.take("a", 3)).toBe(20);
  now += 19_000;
  expect(l.take("a", 3)).toBe(1);
  now += 1_000;
  expect([l.take("a", 3), l.take("a", 3)]).toEqual([0, 20]);
  now += 60_000;
  expect([l.take("a", 3), l.take("a", 3), l.take("a", 3), l.take("a", 3)]).toEqual([0, 0, 0, 20]);
});

test("each caller has its own allowance", () => {
  const l = new CallerLimits(() => 0);
  expect([l.take("a", 1), l.take("a", 1), l.take("b", 1), l.take("b", 1)]).toEqual([0, 60, 0, 60]);
});
