// The redirect listener, attacked: a forged redirect (wrong or missing state) is refused and never
// settles the flow; only the redirect carrying this flow's state hands back its code.
import { describe, expect, test } from "bun:test";
import { listen } from "../../src/auth/loopback.ts";

describe("the loopback redirect listener", () => {
  test("wrong state, no state, another path: refused, the code still pending; the right state gives the code once", async () => {
    const lb = listen("s-123");
    try {
      expect(lb.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const get = (q: string, path = "/callback") => fetch(`${new URL(lb.redirectUrl).origin}${path}?${q}`);
      for (const [q, path, status] of [
        ["code=evil&state=other", "/callback", 400],
        ["code=evil", "/callback", 400],
        ["code=evil&state=", "/callback", 400],
        ["code=evil&state=s-123", "/elsewhere", 404],
        ["state=s-123", "/callback", 400],
      ] as const) {
        expect([q, path, (await get(q, path)).status]).toEqual([q, path, status]);
      }
      // Every refused redirect has been answered: the flow is still waiting.
      expect(await Promise.race([lb.code, Promise.resolve("still pending")])).toBe("still pending");
      expect((await get("code=good&state=s-123")).status).toBe(200);
      expect(await lb.code).toBe("good");
    } finally {
      lb.stop();
    }
  });

  test("the server's error with the right state rejects the flow, bounded in length", async () => {
    const lb = listen("s");
    try {
      await fetch(`${lb.redirectUrl}?state=s&error=access_denied&error_description=${"x".repeat(1000)}`);
      await expect(lb.code).rejects.toThrow(`the authorization server refused: access_denied (${"x".repeat(300)})`);
    } finally {
      lb.stop();
    }
  });
});
