// --resolve HOST:PORT:ADDR[,ADDR...] values, as curl reads them; only canonical address spellings.
import { describe, expect, test } from "bun:test";
import { parsePin, parsePins } from "../../src/http/resolve.ts";

describe("parsePin", () => {
  test.each([
    ["site.test:8080:127.0.0.1", { key: "site.test:8080", addresses: ["127.0.0.1"] }],
    [
      "Site.Test:443:93.184.216.34,2606:4700::1",
      { key: "site.test:443", addresses: ["93.184.216.34", "2606:4700::1"] },
    ],
    ["api.test:80:[::1]", { key: "api.test:80", addresses: ["::1"] }],
    ["[::1]:80:127.0.0.1", { key: "[::1]:80", addresses: ["127.0.0.1"] }],
    ["site.test:8080", { error: "expected HOST:PORT:ADDR[,ADDR...]" }],
    ["site.test:x:127.0.0.1", { error: "expected HOST:PORT:ADDR[,ADDR...]" }],
    ["site.test:70000:127.0.0.1", { error: '"site.test":70000 is not a host and port' }],
    ["site.test:80:127.1", { error: '"127.1" is not an IP address' }],
    ["site.test:80:0x7f.0.0.1", { error: '"0x7f.0.0.1" is not an IP address' }],
    ["site.test:80:fe80::1%eth0", { error: '"fe80::1%eth0" is not an IP address' }],
    ["site.test:80:example.com", { error: '"example.com" is not an IP address' }],
  ])("%s", (raw, expected) => expect(parsePin(raw)).toEqual(expected as never));

  test("repeated values for one host:port add up; the first bad value names itself", () => {
    expect(parsePins(["a.test:1:127.0.0.1", "a.test:1:::1"])).toEqual({
      pins: new Map([["a.test:1", ["127.0.0.1", "::1"]]]),
    });
    expect(parsePins(["a.test:1:127.0.0.1", "nope"])).toEqual({
      error: '--resolve "nope": expected HOST:PORT:ADDR[,ADDR...]',
    });
  });
});
