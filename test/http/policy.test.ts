// The URL policy's pure half, table-driven: every spelling of a literal address, every range,
// schemes, userinfo, names, and the exact grant as the only way to a non-public address.
import { describe, expect, test } from "bun:test";
import { checkBoundary } from "../../src/boundary/boundary.ts";
import { urlInWords } from "../../src/http/audit.ts";
import { auditView, checkUrl, judgeAnswers, type Reach } from "../../src/http/policy.ts";

const reach: Reach = {
  exact: new Set(["127.0.0.1:8080", "[::1]:8080", "localhost:3000", "10.1.2.3:443", "site.test:9000"]),
  pinned: new Set(["site.test:9000"]),
};

/** What checkUrl says: "ok", or the rule with the range when there is one. */
function verdict(url: string, r: Reach = reach): string {
  const c = checkUrl(url, r);
  if (c.ok) return "ok";
  const d = c.refusal.details as { rule: string; range?: string };
  expect(c.refusal.code).toBe("url.rejected");
  return d.range ? `${d.rule}:${d.range}` : d.rule;
}

const CASES: [string, string][] = [
  // public hosts and addresses
  ["https://example.com/", "ok"],
  ["http://example.com:8080/a?b#c", "ok"],
  ["HTTPS://EXAMPLE.COM/", "ok"],
  ["https://example.com./", "ok"],
  ["http://8.8.8.8/", "ok"],
  ["http://[2606:4700::1111]/", "ok"],
  ["http://[::ffff:8.8.8.8]/", "ok"],
  ["http://[64:ff9b::808:808]/", "ok"],
  ["https://xn--nxasmq6b.com/", "ok"],
  ["https://bücher.example/", "ok"],
  // schemes
  ["ftp://example.com/", "scheme"],
  ["file:///etc/passwd", "scheme"],
  // the file scheme bare, in any case, with blanks about it: the same scheme, refused alike
  ["file:", "scheme"],
  ["FILE:", "scheme"],
  [" file: ", "scheme"],
  ["file:/", "scheme"],
  ["file://example.com/etc/passwd", "scheme"],
  ["gopher://example.com/", "scheme"],
  ["javascript:alert(1)", "scheme"],
  ["data:text/plain,hi", "scheme"],
  ["ws://example.com/", "scheme"],
  ["wss://example.com/", "scheme"],
  ["dict://127.0.0.1:11211/", "scheme"],
  ["ldap://example.com/", "scheme"],
  ["jar:http://example.com!/", "scheme"],
  // userinfo
  ["http://user@example.com/", "userinfo"],
  ["http://user:pass@example.com/", "userinfo"],
  ["http://:pass@example.com/", "userinfo"],
  ["http://example.com@127.0.0.1/", "userinfo"],
  ["https://a%40b@example.com/", "userinfo"],
  // not URLs
  ["not a url", "invalid_url"],
  ["http://", "invalid_url"],
  ["http://exa mple.com/", "invalid_url"],
  ["http://[::1/", "invalid_url"],
  ["//example.com/", "invalid_url"],
  ["http://256.256.256.256/", "invalid_url"],
  // zone ids
  ["http://[fe80::1%25eth0]/", "zone_id"],
  ["http://[fe80::1%eth0]/", "zone_id"],
  ["http://[::1%25lo]:8080/", "zone_id"],
  // loopback in every encoding
  ["http://127.0.0.1/", "private_address:loopback"],
  ["http://127.1/", "private_address:loopback"],
  ["http://127.0.1/", "private_address:loopback"],
  ["http://2130706433/", "private_address:loopback"],
  ["http://0x7f000001/", "private_address:loopback"],
  ["http://0x7f.0.0.1/", "private_address:loopback"],
  ["http://0x7F.1/", "private_address:loopback"],
  ["http://0177.0.0.1/", "private_address:loopback"],
  ["http://017700000001/", "private_address:loopback"],
  ["http://0177.0x0.0.01/", "private_address:loopback"],
  ["http://127.0.0.1./", "private_address:loopback"],
  ["http://127.000.000.001/", "private_address:loopback"],
  ["http://%31%32%37.0.0.1/", "private_address:loopback"],
  ["http://127%2E0%2E0%2E1/", "private_address:loopback"],
  ["http://①②⑦.0.0.1/", "private_address:loopback"],
  ["http://１２７.０.０.１/", "private_address:loopback"],
  ["http://127.255.255.254/", "private_address:loopback"],
  ["http://[::1]/", "private_address:loopback"],
  ["http://[0:0:0:0:0:0:0:1]/", "private_address:loopback"],
  ["http://[::ffff:127.0.0.1]/", "private_address:ipv4Mapped:loopback"],
  ["http://[::ffff:7f00:1]/", "private_address:ipv4Mapped:loopback"],
  ["http://[0:0:0:0:0:ffff:127.0.0.1]/", "private_address:ipv4Mapped:loopback"],
  ["http://[::127.0.0.1]/", "private_address:ipv4Compatible"],
  ["http://[64:ff9b::127.0.0.1]/", "private_address:nat64:loopback"],
  ["http://[64:ff9b::7f00:1]/", "private_address:nat64:loopback"],
  ["http://[::ffff:0:7f00:1]/", "private_address:rfc6145:loopback"],
  // loopback names
  ["http://localhost/", "private_address:loopback"],
  ["http://localhost./", "private_address:loopback"],
  ["http://LOCALHOST:8080/", "private_address:loopback"],
  ["http://api.localhost/", "private_address:loopback"],
  ["http://ｌｏｃａｌｈｏｓｔ/", "private_address:loopback"],
  ["http://local%68ost/", "private_address:loopback"],
  // unspecified
  ["http://0.0.0.0/", "private_address:unspecified"],
  ["http://0/", "private_address:unspecified"],
  ["http://0.1.2.3/", "private_address:unspecified"],
  ["http://[::]/", "private_address:unspecified"],
  // private
  ["http://10.0.0.1/", "private_address:private"],
  ["http://012.0.0.1/", "private_address:private"],
  ["http://167772161/", "private_address:private"],
  ["http://172.16.0.1/", "private_address:private"],
  ["http://172.31.255.255/", "private_address:private"],
  ["http://192.168.0.1/", "private_address:private"],
  ["http://0xc0a80001/", "private_address:private"],
  ["http://192.168.1/", "private_address:private"],
  ["http://[::ffff:10.0.0.1]/", "private_address:ipv4Mapped:private"],
  ["http://[::ffff:192.168.0.1]/", "private_address:ipv4Mapped:private"],
  ["http://[64:ff9b::10.0.0.1]/", "private_address:nat64:private"],
  // link-local (the cloud metadata address) and unique-local
  ["http://169.254.169.254/latest/meta-data/", "private_address:linkLocal"],
  ["http://2852039166/", "private_address:linkLocal"],
  ["http://0xa9fea9fe/", "private_address:linkLocal"],
  ["http://0251.0376.0251.0376/", "private_address:linkLocal"],
  ["http://[::ffff:169.254.169.254]/", "private_address:ipv4Mapped:linkLocal"],
  ["http://[fe80::1]/", "private_address:linkLocal"],
  ["http://[fd00::1]/", "private_address:uniqueLocal"],
  ["http://[fc00::1]/", "private_address:uniqueLocal"],
  ["http://[fd00:ec2::254]/", "private_address:uniqueLocal"],
  // CGNAT, multicast, broadcast, benchmarking, documentation, reserved, tunnels
  ["http://100.64.0.1/", "private_address:carrierGradeNat"],
  ["http://100.127.255.254/", "private_address:carrierGradeNat"],
  ["http://224.0.0.1/", "private_address:multicast"],
  ["http://239.255.255.250/", "private_address:multicast"],
  ["http://[ff02::1]/", "private_address:multicast"],
  ["http://255.255.255.255/", "private_address:broadcast"],
  ["http://198.18.0.1/", "private_address:reserved"],
  ["http://[2001:2::1]/", "private_address:benchmarking"],
  ["http://192.0.2.1/", "private_address:reserved"],
  ["http://198.51.100.7/", "private_address:reserved"],
  ["http://203.0.113.9/", "private_address:reserved"],
  ["http://[2001:db8::1]/", "private_address:reserved"],
  ["http://240.0.0.1/", "private_address:reserved"],
  ["http://[2002:7f00:1::]/", "private_address:6to4"],
  ["http://[2001:0:4136:e378::1]/", "private_address:teredo"],
  ["http://[64:ff9b:1::1]/", "private_address:rfc6052"],
  // exact grants: the only way in, port and all
  ["http://127.0.0.1:8080/", "ok"],
  ["http://2130706433:8080/", "ok"],
  ["http://127.1:8080/x", "ok"],
  ["http://127.0.0.1:8081/", "private_address:loopback"],
  ["http://[::1]:8080/", "ok"],
  ["http://[::1]:8081/", "private_address:loopback"],
  ["http://localhost:3000/", "ok"],
  ["https://10.1.2.3/", "ok"],
  ["http://10.1.2.3/", "private_address:private"],
  ["http://[::ffff:127.0.0.1]:8080/", "private_address:ipv4Mapped:loopback"],
];

describe("checkUrl", () => {
  test("the table holds at least 80 cases", () => expect(CASES.length).toBeGreaterThanOrEqual(80));
  test.each(CASES)("%s → %s", (url, expected) => expect(verdict(url)).toBe(expected));

  test("a blanket or host-wide grant is not an exact one: the same loopback URL is refused", () => {
    expect(verdict("http://127.0.0.1:8080/", { exact: new Set(), pinned: new Set() })).toBe("private_address:loopback");
  });

  test("operator endpoints are trusted for their address class but still scheme-checked", () => {
    const op: Reach = { exact: new Set(), pinned: new Set(), trustAddressClass: true };
    expect([
      verdict("http://127.0.0.1:9/", op),
      verdict("file:///etc/passwd", op),
      verdict("http://u:p@127.0.0.1/", op),
    ]).toEqual(["ok", "scheme", "userinfo"]);
  });

  test("a refusal names the exact flag that would reach the address", () => {
    const c = checkUrl("http://0x7f.1:5000/secret?token=abc", reach);
    expect(c).toEqual({
      ok: false,
      refusal: {
        code: "url.rejected",
        message:
          "the address 127.0.0.1 is in a non-public range (loopback); only an exact grant reaches it (--allow-net=127.0.0.1:5000)",
        details: {
          rule: "private_address",
          host: "127.0.0.1",
          address: "127.0.0.1",
          range: "loopback",
          flag: "--allow-net=127.0.0.1:5000",
        },
      },
    });
  });
});

describe("judgeAnswers", () => {
  const open: Reach = { exact: new Set(), pinned: new Set() };
  test("every answer must be public: one private among public ones refuses the name", () => {
    const r = judgeAnswers("mixed.test", 443, ["93.184.216.34", "10.0.0.5"], open, false);
    expect(r.ok ? "ok" : r.refusal.details).toEqual({
      rule: "private_address",
      host: "mixed.test",
      address: "10.0.0.5",
      range: "private",
      flag: "--allow-net=10.0.0.5:443",
    });
  });
  test("public answers pass, in order", () =>
    expect(judgeAnswers("a.test", 443, ["93.184.216.34", "2606:4700::1"], open, false)).toEqual({
      ok: true,
      value: ["93.184.216.34", "2606:4700::1"],
    }));
  test("no answer is dns_failed", () =>
    expect(judgeAnswers("a.test", 443, [], open, false)).toEqual({
      ok: false,
      refusal: {
        code: "url.rejected",
        message: "a.test has no address",
        details: { rule: "dns_failed", host: "a.test" },
      },
    }));
  test("an IPv4-mapped loopback answer is refused like loopback", () =>
    expect(judgeAnswers("a.test", 80, ["::ffff:127.0.0.1"], open, false).ok).toBe(false));
  test("a name pinned by --resolve reaches a private pin with the exact grant by name", () => {
    expect(judgeAnswers("site.test", 9000, ["127.0.0.1"], reach, true)).toEqual({ ok: true, value: ["127.0.0.1"] });
  });
  test("the name grant does not cover an address DNS (not a pin) returned", () => {
    expect(judgeAnswers("site.test", 9000, ["127.0.0.1"], reach, false).ok).toBe(false);
  });
});

describe("auditView", () => {
  test.each([
    ["https://user:pw@example.com:8443/p/a?q=secret#frag", "https://example.com:8443"],
    ["http://example.com/path?token=x", "http://example.com"],
    ["http://[::1]:8080/x", "http://[::1]:8080"],
    ["nonsense", "(not a URL)"],
  ])("%s → %s", (url, view) => expect(auditView(url)).toBe(view));
});

describe("urlInWords: a URL as a message names it, never what the boundary withholds", () => {
  test.each([
    ["https://user:pw@example.com:8443/p/a?q=secret#frag", "https://example.com:8443"],
    ["http://127.0.0.1:8080/x", "http://127.0.0.1:8080"],
    ["file:///etc/passwd", 'a URL with the scheme "file"'],
    ["FILE://host/x", 'a URL with the scheme "file"'],
    ["file:", 'a URL with the scheme "file"'],
    ["gopher://example.com/", 'a URL with the scheme "gopher"'],
    ["nonsense", "a URL that cannot be parsed"],
  ])("%s → %s", (url, words) => {
    expect(urlInWords(url)).toBe(words);
    // What the rails' and web_extract's results are read with: local paths withheld.
    expect(checkBoundary({ message: `x redirected to ${words}` }, { localPaths: true })).toBeNull();
  });
  test("the audit view of a file: URL is itself a local path to the boundary (why messages do not use it)", () => {
    expect(
      checkBoundary({ message: `x redirected to ${auditView("file:///etc/passwd")}` }, { localPaths: true })?.rule,
    ).toBe("local_path");
  });
});
