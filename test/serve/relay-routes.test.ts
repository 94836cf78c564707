// Which server a served resource URI goes to, from what the servers' lists said (pure).
import { describe, expect, test } from "bun:test";
import { ResourceRoutes } from "../../src/serve/relay-routes.ts";

const SERVERS = ["alpha", "beta", "gamma"];

function routes(): ResourceRoutes {
  const r = new ResourceRoutes();
  r.listed(
    new Map([
      ["alpha", ["memo://a", "memo://both"]],
      ["beta", ["memo://b", "memo://both"]],
      ["gamma", []],
    ]),
  );
  r.templatesListed(
    new Map([
      ["alpha", []],
      ["beta", ["file:///{name}"]],
      ["gamma", ["memo://{name}", "file:///{name}"]],
    ]),
  );
  return r;
}

describe("resource routes", () => {
  test.each([
    [
      "a URI one server lists goes to it, whatever templates match it",
      "memo://a",
      { server: "alpha", uri: "memo://a" },
    ],
    [
      "a namespaced URI goes to the server it names",
      `toolgate://resource/beta/${encodeURIComponent("memo://both")}`,
      { server: "beta", uri: "memo://both" },
    ],
    ["a URI several servers list goes to none, whatever templates match it", "memo://both", null],
    [
      "a template's expansion goes to the first server whose template matches",
      "file:///x",
      { server: "beta", uri: "file:///x" },
    ],
    ["a server that lists nothing serves its templates", "memo://c", { server: "gamma", uri: "memo://c" }],
    ["nothing names it: no server", "demo://x", null],
  ])("%s", (_, served, want) => {
    expect(routes().owner(served, SERVERS)).toEqual(want);
  });

  test("a namespaced URI of a server that is not relayed goes nowhere; the only server takes what nothing names", () => {
    expect(routes().owner(`toolgate://resource/delta/${encodeURIComponent("memo://a")}`, SERVERS)).toBeNull();
    expect(new ResourceRoutes().owner("demo://x", ["alpha"])).toEqual({ server: "alpha", uri: "demo://x" });
    expect(new ResourceRoutes().owner("demo://x", ["alpha", "beta"])).toBeNull();
  });

  test("a URI several servers list is served namespaced, and says which forms name one", () => {
    const r = routes();
    expect(r.served("beta", "memo://both")).toBe(`toolgate://resource/beta/${encodeURIComponent("memo://both")}`);
    expect(r.served("beta", "memo://b")).toBe("memo://b");
    expect(r.sharedBy("memo://both")).toEqual(
      ["alpha", "beta"].map((s) => `toolgate://resource/${s}/${encodeURIComponent("memo://both")}`),
    );
    expect(r.sharedBy("memo://a")).toEqual([]);
  });
});
