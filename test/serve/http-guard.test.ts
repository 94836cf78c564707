// Host/Origin checks (DNS-rebinding protection) and the bearer comparison, as pure functions.
import { describe, expect, test } from "bun:test";
import { bearerMatches, guardFor, rebindingProblem } from "../../src/serve/http-guard.ts";

const none = () => [];

describe("guardFor", () => {
  test("a loopback bind answers to its address and the loopback names, with its port", () => {
    const g = guardFor("127.0.0.1", 4000, true, none);
    expect([...g.hosts].sort()).toEqual(["127.0.0.1:4000", "[::1]:4000", "localhost:4000"]);
    expect([...g.originHosts].sort()).toEqual(["127.0.0.1", "[::1]", "localhost"]);
  });

  test("another loopback address (127.0.0.2) and ::1 are added to the loopback names", () => {
    expect([...guardFor("127.0.0.2", 1, true, none).hosts].sort()).toEqual([
      "127.0.0.1:1",
      "127.0.0.2:1",
      "[::1]:1",
      "localhost:1",
    ]);
    expect([...guardFor("::1", 1, true, none).hosts].sort()).toEqual(["127.0.0.1:1", "[::1]:1", "localhost:1"]);
  });

  test("a specific public address answers to itself only; port 80 also without a port", () => {
    expect([...guardFor("10.0.0.5", 80, false, none).hosts].sort()).toEqual(["10.0.0.5", "10.0.0.5:80"]);
  });

  test("a wildcard bind answers to this machine's addresses and the loopback names", () => {
    const g = guardFor("0.0.0.0", 9, false, () => ["10.0.0.5", "FE80::1"]);
    expect([...g.hosts].sort()).toEqual(["10.0.0.5:9", "127.0.0.1:9", "[::1]:9", "[fe80::1]:9", "localhost:9"]);
  });
});

describe("rebindingProblem", () => {
  const g = guardFor("127.0.0.1", 4000, true, none);
  test.each([
    ["127.0.0.1:4000", null],
    ["LOCALHOST:4000", null],
    ["localhost", 'Host "localhost" is not this server\'s address'],
    ["evil.example:4000", 'Host "evil.example:4000" is not this server\'s address'],
    [null, 'Host "" is not this server\'s address'],
  ])("Host %p", (host, problem) => {
    expect(rebindingProblem(g, host, null)).toBe(problem);
  });

  test.each([
    ["http://localhost:3000", null],
    ["https://[::1]", null],
    ["http://127.0.0.1:4000", null],
    ["http://evil.example", 'Origin "http://evil.example" is not an http(s) origin of this server'],
    ["http://127.0.0.1.evil.example", 'Origin "http://127.0.0.1.evil.example" is not an http(s) origin of this server'],
    ["null", 'Origin "null" is not an http(s) origin of this server'],
    ["file://localhost", 'Origin "file://localhost" is not an http(s) origin of this server'],
    ["chrome-extension://localhost", 'Origin "chrome-extension://localhost" is not an http(s) origin of this server'],
  ])("Origin %p", (origin, problem) => {
    expect(rebindingProblem(g, "127.0.0.1:4000", origin)).toBe(problem);
  });
});

test.each([
  ["Bearer tok", true],
  ["bearer tok", true],
  ["Bearer  tok ", true],
  ["Bearer tok2", false],
  ["Bearer to", false],
  ["Bearer ", false],
  ["Basic tok", false],
  ["tok", false],
  [null, false],
])("bearerMatches(%p, tok) is %p", (header, matches) => {
  expect(bearerMatches(header, "tok")).toBe(matches);
});
