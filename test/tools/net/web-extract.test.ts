// web_extract's net need, settled before any grant or approval is asked for: a URL whose scheme is
// not http or https is refused there in the URL policy's own words. A bare `file:` (no path, any
// letter case, blanks around it) is the file scheme like `file:///etc/x`; before, it read as a URL
// that cannot be parsed, and `file://host/x` asked for --allow-net=host:80 before the policy refused it.
import { describe, expect, test } from "bun:test";
import webExtract, { netNeed } from "../../../src/tools/net/web-extract.ts";
import { checkUrl } from "../../../src/http/policy.ts";

const FILE_URLS = [
  "file:",
  "FILE:",
  "File:",
  " file:",
  "file: ",
  "\tfile:\n",
  "fi\tle:",
  "file:/",
  "file://",
  "file:///",
  "file:///etc/passwd",
  "file://example.com/etc/passwd",
  "FILE://EXAMPLE.COM/x",
  "file:x",
  "file:?a#b",
];

describe("netNeed", () => {
  test.each(FILE_URLS)(
    "%j is the file scheme: refused as url.rejected (scheme), as the URL policy refuses it",
    (url) => {
      const r = netNeed(url);
      const policy = checkUrl(url, { exact: new Set(), pinned: new Set() });
      expect(r).toEqual({
        ok: false,
        refusal: {
          code: "url.rejected",
          message:
            'the scheme "file" is not allowed; only http and https are (that scheme names a file on this machine: file_read reads one)',
          details: { rule: "scheme", scheme: "file" },
        },
      });
      expect(policy).toEqual(r as typeof policy);
    },
  );

  test.each([
    ["ftp://example.com/x", { rule: "scheme", scheme: "ftp" }],
    ["javascript:alert(1)", { rule: "scheme", scheme: "javascript" }],
    ["data:text/plain,hi", { rule: "scheme", scheme: "data" }],
    ["not a url", { rule: "invalid_url" }],
    ["", { rule: "invalid_url" }],
  ])("%j is refused (%o)", (url, details) => {
    const r = netNeed(url);
    expect(r.ok ? null : [r.refusal.code, r.refusal.details]).toEqual(["url.rejected", details]);
  });

  test.each([
    ["https://example.com/a", "example.com:443"],
    ["http://example.com./", "example.com:80"],
    ["HTTP://Example.COM:8080/", "example.com:8080"],
    ["  https://example.com/  ", "example.com:443"],
  ])("%j needs net %s", (url, need) => {
    expect(netNeed(url)).toEqual({ ok: true, value: need });
  });

  test("the tool's needs answer with it: a file URL asks for no net grant", () => {
    const needs = webExtract.needs({ url: "file://example.com/etc/passwd" } as never, {} as never);
    expect(needs.ok ? "granted as a need" : needs.refusal.details).toEqual({ rule: "scheme", scheme: "file" });
  });
});
