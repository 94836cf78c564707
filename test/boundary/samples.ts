// The output boundary's samples, gitleaks style: every rule ships the values it must reject and
// the near misses it must accept. test/boundary/boundary.test.ts runs every row; the table is
// also the readable statement of docs/boundary.md "How text is read"; the local-path rows are in
// samples-paths.ts. Data only.
import type { BoundaryOptions } from "../../src/boundary/boundary.ts";
import { pathAccepts, pathRejects, type AcceptSample, type RejectSample } from "./samples-paths.ts";

export type { AcceptSample, RejectSample } from "./samples-paths.ts";

const BUILTIN: BoundaryOptions = { localPaths: false };

/** `{"t":"…"}` of exactly `bytes` UTF-8 bytes: `unit` repeated, then ASCII filler. */
function sized(bytes: number, unit = "x"): { t: string } {
  const room = bytes - '{"t":""}'.length;
  const unitBytes = new TextEncoder().encode(JSON.stringify(unit)).length - 2;
  const count = Math.floor(room / unitBytes);
  return { t: unit.repeat(count) + "x".repeat(room - count * unitBytes) };
}

/** `leaf` wrapped in `levels` objects `{"a":…}`. */
function wrap(levels: number, leaf: unknown): unknown {
  return levels === 0 ? leaf : { a: wrap(levels - 1, leaf) };
}

/** `levels` nested objects `{"a":{"a":…{}}}`: the outer one is level 1. */
function objects(levels: number): unknown {
  return wrap(levels - 1, {});
}

/** `levels` nested arrays `[[…[]]]`. */
function arrays(levels: number): unknown {
  return levels <= 1 ? [] : [arrays(levels - 1)];
}

const A8 = ".a".repeat(8);
const I8 = "[0]".repeat(8);

/** A relayed resources/read of an MCP App (a `ui://` page): `text` as its HTML, `more` beside it. */
const APPS: BoundaryOptions = { localPaths: true, apps: true };
function app(
  text: string,
  more: Record<string, unknown> = {},
  mimeType = "text/html;profile=mcp-app",
  uri = "ui://board/app.html",
): unknown {
  return { contents: [{ uri, mimeType, text, ...more }] };
}
/** An App's HTML past 64 KiB, as a bundler writes one: zod's `file:` export reads as a path. */
const BUNDLE = `<!doctype html><script type="module">const z={file:()=>c8,url:()=>u8};</script>${"<p>row</p>".repeat(20_000)}`;

/** An MCP CallToolResult carrying `text` as its only content. */
function mcp(text: string): unknown {
  return { content: [{ type: "text", text }], isError: false };
}

const RSA_BODY = "MIIEowIBAAKCAQEAx1\n";

/** The base64 of a JPEG's first bytes (SOI, APP0 "JFIF"): `/9j/4AAQSkZJRgAB…`, a path token to a naive reading. */
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
  0x00, 0xff, 0xdb,
]).toString("base64");

export const mustReject: RejectSample[] = [
  // size
  { name: "one byte past 64 KiB", value: sized(65537), rule: "size", where: "$", bytes: 65537 },
  { name: "one byte past 64 KiB in two-byte chars", value: sized(65537, "é"), rule: "size", where: "$", bytes: 65537 },
  { name: "one byte past 64 KiB in escapes", value: sized(65537, "\n"), rule: "size", where: "$", bytes: 65537 },
  {
    name: "numbers that grow when a JSON string is re-serialized",
    value: mcp(`[${"1e20,".repeat(4000)}1]`),
    rule: "size",
    where: "$.content[0].text<json>",
  },
  // a relayed read's MCP App (apps): its HTML is bound by the transport, every other rule holds
  {
    name: "an App's HTML carrying a private key",
    value: app(`${BUNDLE}<!-- -----BEGIN PRIVATE KEY----- -->`),
    opts: APPS,
    rule: "pem",
    where: "$.contents[0].text",
  },
  {
    name: "an App's HTML carrying a NUL",
    value: app(`${BUNDLE}\u0000`),
    opts: APPS,
    rule: "nul",
    where: "$.contents[0].text",
  },
  {
    name: "a secret-named key beside an App's HTML",
    value: app(BUNDLE, { _meta: { api_key: "x" } }),
    opts: APPS,
    rule: "secret_key",
    where: "$.contents[0]._meta.api_key",
  },
  {
    name: "a local path beside an App's HTML",
    value: app(BUNDLE, { _meta: { from: "/etc/board" } }),
    opts: APPS,
    rule: "local_path",
    where: "$.contents[0]._meta.from",
  },
  {
    name: "another item past 64 KiB beside an App",
    value: {
      contents: [
        { uri: "ui://a", mimeType: "text/html", text: BUNDLE },
        { uri: "memo://n", mimeType: "text/plain", text: "x".repeat(65_600) },
      ],
    },
    opts: APPS,
    rule: "size",
    where: "$",
  },
  {
    name: "a ui:// text that is not HTML, past 64 KiB",
    value: app(BUNDLE, {}, "text/plain"),
    opts: APPS,
    rule: "size",
    where: "$",
  },
  {
    name: "an HTML text whose URI is not ui://, past 64 KiB",
    value: app(BUNDLE, {}, "text/html", "https://h/app.html"),
    opts: APPS,
    rule: "size",
    where: "$",
  },
  {
    name: "an App's HTML past 64 KiB where apps are not relayed (a tool result)",
    value: app(BUNDLE),
    rule: "size",
    where: "$",
  },

  // depth
  { name: "nine nested objects", value: objects(9), rule: "depth", where: `$${A8}` },
  { name: "nine nested arrays", value: arrays(9), rule: "depth", where: `$${I8}` },
  {
    name: "nine levels of objects and arrays",
    value: { a: [{ a: [{ a: [{ a: [{}] }] }] }] },
    rule: "depth",
    where: "$.a[0].a[0].a[0].a[0]",
  },
  {
    name: "nine levels inside a JSON string",
    value: { t: JSON.stringify(objects(9)) },
    rule: "depth",
    where: `$.t<json>${A8}`,
  },

  // secret keys
  { name: "token", value: { token: "x" }, rule: "secret_key", where: "$.token" },
  { name: "my_token (suffix, no word boundary)", value: { my_token: "x" }, rule: "secret_key", where: "$.my_token" },
  { name: "mytoken", value: { mytoken: "x" }, rule: "secret_key", where: "$.mytoken" },
  { name: "X-Api-Key", value: { headers: { "X-Api-Key": "x" } }, rule: "secret_key", where: "$.headers<key#0>" },
  { name: "apikey, the deliberate addition", value: { apikey: "x" }, rule: "secret_key", where: "$.apikey" },
  { name: "session token (space)", value: { "session token": "x" }, rule: "secret_key", where: "$<key#0>" },
  { name: "Authorization", value: { Authorization: "Bearer x" }, rule: "secret_key", where: "$.Authorization" },
  { name: "SET-COOKIE", value: { "SET-COOKIE": "a=b" }, rule: "secret_key", where: "$<key#0>" },
  { name: "client_secret", value: { client_secret: "x" }, rule: "secret_key", where: "$.client_secret" },
  { name: "passwd", value: { passwd: "x" }, rule: "secret_key", where: "$.passwd" },
  { name: "user.password", value: { "user.password": "x" }, rule: "secret_key", where: "$<key#0>" },
  { name: "refresh-token", value: { "refresh-token": "x" }, rule: "secret_key", where: "$<key#0>" },
  { name: "PrivateKey", value: { PrivateKey: "x" }, rule: "secret_key", where: "$.PrivateKey" },
  { name: "ssh key_path", value: { ssh_key_path: "x" }, rule: "secret_key", where: "$.ssh_key_path" },
  { name: "credential path with a tab", value: { "credential\tpath": "x" }, rule: "secret_key", where: "$<key#0>" },
  { name: "trailing space is trimmed", value: { "token ": "x" }, rule: "secret_key", where: "$<key#0>" },
  { name: "fullwidth ｔｏｋｅｎ (NFKC)", value: { ｔｏｋｅｎ: "x" }, rule: "secret_key", where: "$<key#0>" },
  {
    name: "fullwidth ＡＰＩ－ＫＥＹ (NFKC hyphen)",
    value: { "ＡＰＩ－ＫＥＹ": "x" },
    rule: "secret_key",
    where: "$<key#0>",
  },
  {
    name: "ideographic space before token",
    value: { "session\u3000token": "x" },
    rule: "secret_key",
    where: "$<key#0>",
  },
  {
    name: "secret key deep in an MCP result",
    value: { structuredContent: { items: [{ ok: 1 }, { auth: { access_token: "x" } }] } },
    rule: "secret_key",
    where: "$.structuredContent.items[1].auth.access_token",
  },
  {
    name: "secret key with localPaths off (under /etc/x: /etc alone is no path now)",
    value: { "/etc/x": { token: "x" } },
    opts: BUILTIN,
    rule: "secret_key",
    where: "$<key#0>.token",
  },

  // NUL
  { name: "NUL in a value", value: { a: "x\u0000y" }, rule: "nul", where: "$.a" },
  { name: "NUL in a key", value: { ok: 1, "a\u0000": 1 }, rule: "nul", where: "$<key#1>" },
  { name: "NUL as top-level string", value: "\u0000", rule: "nul", where: "$" },
  {
    name: "NUL escaped inside a JSON string",
    value: mcp('{"a":"x\\u0000"}'),
    rule: "nul",
    where: "$.content[0].text<json>.a",
  },
  { name: "NUL with localPaths off", value: ["\u0000"], opts: BUILTIN, rule: "nul", where: "$[0]" },

  // PEM
  {
    name: "RSA private key",
    value: { k: `-----BEGIN RSA PRIVATE KEY-----\n${RSA_BODY}-----END RSA PRIVATE KEY-----` },
    rule: "pem",
    where: "$.k",
  },
  { name: "EC private key", value: { k: "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE" }, rule: "pem", where: "$.k" },
  { name: "DSA private key", value: { k: "-----BEGIN DSA PRIVATE KEY-----" }, rule: "pem", where: "$.k" },
  {
    name: "OpenSSH private key",
    value: { k: "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA" },
    rule: "pem",
    where: "$.k",
  },
  { name: "encrypted PKCS#8 key", value: { k: "-----BEGIN ENCRYPTED PRIVATE KEY-----" }, rule: "pem", where: "$.k" },
  { name: "plain PKCS#8 key", value: { k: "-----BEGIN PRIVATE KEY-----" }, rule: "pem", where: "$.k" },
  {
    name: "PGP private key block",
    value: { k: "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF" },
    rule: "pem",
    where: "$.k",
  },
  {
    name: "SSH2 four-dash marker",
    value: { k: "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: x" },
    rule: "pem",
    where: "$.k",
  },
  { name: "lowercase marker", value: { k: "-----begin rsa private key-----" }, rule: "pem", where: "$.k" },
  {
    name: "marker inside prose, no body",
    value: ["paste -----BEGIN PRIVATE KEY----- here"],
    rule: "pem",
    where: "$[0]",
  },
  {
    name: "marker in a long log",
    value: { log: `${"ok ".repeat(200)}-----BEGIN RSA PRIVATE KEY-----` },
    rule: "pem",
    where: "$.log",
  },
  { name: "marker in a key", value: { "-----BEGIN PRIVATE KEY-----": 1 }, rule: "pem", where: "$<key#0>" },
  {
    name: "marker spelled with \\u002d escapes in a JSON string",
    value: { t: JSON.stringify({ k: "-----BEGIN PRIVATE KEY-----" }).replace(/-/g, "\\u002d") },
    rule: "pem",
    where: "$.t<json>.k",
  },
  {
    name: "PEM with localPaths off",
    value: { k: "-----BEGIN EC PRIVATE KEY-----" },
    opts: BUILTIN,
    rule: "pem",
    where: "$.k",
  },

  // local paths (samples-paths.ts), and the binary payloads beside them
  ...pathRejects,
  {
    name: "audio data with a NUL",
    value: { content: [{ type: "audio", data: "AAA\u0000", mimeType: "audio/wav" }] },
    rule: "nul",
    where: "$.content[0].data",
  },
  {
    name: "image data holding a PEM marker",
    value: { content: [{ type: "image", data: "-----BEGIN PRIVATE KEY-----", mimeType: "image/png" }] },
    rule: "pem",
    where: "$.content[0].data",
  },

  // JSON in strings
  {
    name: "JSON in a string in JSON in a string leaks",
    value: mcp(JSON.stringify({ inner: JSON.stringify({ token: "abc" }) })),
    rule: "secret_key",
    where: "$.content[0].text<json>.inner<json>.token",
  },
  {
    name: "JSON string literal holding JSON",
    value: { t: JSON.stringify(JSON.stringify({ password: "p" })) },
    rule: "secret_key",
    where: "$.t<json><json>.password",
  },
  {
    name: "BOM-prefixed JSON string",
    value: { t: '\ufeff{"token":"x"}' },
    rule: "secret_key",
    where: "$.t<json>.token",
  },
  {
    name: "whitespace-padded JSON string",
    value: { t: ' \n [{"api_key":1}] ' },
    rule: "secret_key",
    where: "$.t<json>[0].api_key",
  },
  { name: "JSON-looking key", value: { '{"cookie":1}': 1 }, rule: "secret_key", where: "$<key#0><json>.cookie" },
  {
    name: "duplicate keys in a JSON string",
    value: mcp('{"a":1,"a":2}'),
    rule: "duplicate_key",
    where: "$.content[0].text<json>.a",
  },
  {
    name: "duplicate keys hiding a deeper value",
    value: { t: '{"x":[1,"s",{"b":{"token":1},"b":2}]}' },
    rule: "duplicate_key",
    where: "$.t<json>.x[2].b",
  },
  {
    name: "duplicate keys spelled with an escape",
    value: { t: '{"a":1,"\\u0061":2}' },
    rule: "duplicate_key",
    where: "$.t<json>.a",
  },
  {
    name: "duplicate keys holding escaped quotes",
    value: { t: '{"q\\"x":1,"q\\"x":2}' },
    rule: "duplicate_key",
    where: "$.t<json><key#1>",
  },
  {
    name: "an escaped slash is a path once parsed",
    value: { t: '{"p":"\\/etc\\/shadow"}' },
    rule: "local_path",
    where: "$.t<json>.p",
  },

  // invisible characters (default-ignorables, Cf, Mn, Me) removed, Unicode whitespace folded, then keys,
  // PEM markers and paths matched; keys and PEM markers also by their confusable skeleton
  {
    name: "token\\u034f (combining grapheme joiner)",
    value: { "token\u034f": "x" },
    rule: "secret_key",
    where: "$<key#0>",
  },
  { name: "token\\ufe0f (variation selector)", value: { "token\ufe0f": "x" }, rule: "secret_key", where: "$<key#0>" },
  { name: "token\\u3164 (Hangul filler)", value: { "token\u3164": "x" }, rule: "secret_key", where: "$<key#0>" },
  {
    name: "secre\\u0332t (combining low line, Mn)",
    value: { "secre\u0332t": "x" },
    rule: "secret_key",
    where: "$<key#0>",
  },
  { name: "token\\u20dd (enclosing circle, Me)", value: { "token\u20dd": "x" }, rule: "secret_key", where: "$<key#0>" },
  { name: "Cyrillic tоken", value: { "t\u043eken": "x" }, rule: "secret_key", where: "$<key#0>" },
  { name: "Cyrillic ТOKEN", value: { ok: 1, "\u0422OKEN": "x" }, rule: "secret_key", where: "$<key#1>" },
  { name: "Greek Α in API_KEY", value: { "\u0391PI_KEY": "x" }, rule: "secret_key", where: "$<key#0>" },
  { name: "passw0rd (0 and O share a skeleton)", value: { passw0rd: "x" }, rule: "secret_key", where: "$.passw0rd" },
  {
    name: "credentia1_path (1 and l share a skeleton)",
    value: { credentia1_path: "x" },
    rule: "secret_key",
    where: "$.credentia1_path",
  },
  { name: "private, NEL, key", value: { "private\u0085key": "x" }, rule: "secret_key", where: "$<key#0>" },
  { name: "session, U+2028, token", value: { "session\u2028token": "x" }, rule: "secret_key", where: "$<key#0>" },
  {
    name: "Cyrillic РRIVATE in a PEM marker",
    value: { k: "-----BEGIN RSA \u0420RIVATE KEY-----" },
    rule: "pem",
    where: "$.k",
  },
  { name: "Cyrillic І in BEGIN", value: { k: "-----BEG\u0406N PRIVATE KEY-----" }, rule: "pem", where: "$.k" },
  {
    name: "U+2010 dashes in a PEM marker",
    value: { k: "\u2010\u2010\u2010\u2010\u2010BEGIN PRIVATE KEY\u2010\u2010\u2010\u2010\u2010" },
    rule: "pem",
    where: "$.k",
  },
  {
    name: "minus signs and a fullwidth hyphen-minus as dashes",
    value: { k: "\u2212\u2212\uff0d\u2212BEGIN EC PRIVATE KEY" },
    rule: "pem",
    where: "$.k",
  },
  {
    name: "PR1VATE (1 and I share a skeleton)",
    value: { k: "-----BEGIN RSA PR1VATE KEY-----" },
    rule: "pem",
    where: "$.k",
  },
  {
    name: "NEL between the marker's words",
    value: { k: "-----BEGIN\u0085PRIVATE KEY-----" },
    rule: "pem",
    where: "$.k",
  },
  {
    name: "U+2028 between the marker's words",
    value: { k: "-----BEGIN PRIVATE\u2028KEY-----" },
    rule: "pem",
    where: "$.k",
  },
  {
    name: "a combining mark inside a PEM marker",
    value: { k: "-----BEGIN PRI\u0301VATE KEY-----" },
    rule: "pem",
    where: "$.k",
  },
  { name: "a combining mark inside a path", value: { a: "/e\u0301tc/passwd" }, rule: "local_path", where: "$.a" },
  { name: "a variation selector before a path", value: { a: "x \ufe0f/etc/passwd" }, rule: "local_path", where: "$.a" },
  {
    name: "a path after leading slashes and a format character",
    value: { a: "/\u200b/etc/passwd" },
    rule: "local_path",
    where: "$.a",
  },
  {
    name: "JSON behind a zero-width space",
    value: { t: '\u200b{"token":1}' },
    rule: "secret_key",
    where: "$.t<json>.token",
  },
  { name: "JSON behind NEL", value: { t: '\u0085{"token":1}' }, rule: "secret_key", where: "$.t<json>.token" },
  {
    name: "JSON with U+2028 between its tokens",
    value: { t: '{"a":1,\u2028"token":2}' },
    rule: "secret_key",
    where: "$.t<json>.token",
  },
  {
    name: "duplicate keys told apart only by an invisible character",
    value: { t: '{"a":1,"a\u200b":2}' },
    rule: "duplicate_key",
    where: "$.t<json>.a",
  },
  // format characters (Cf) and whitespace runs: removed / folded before keys, PEM markers and path tokens
  {
    name: "to\\u200bken (zero-width space in a key)",
    value: { "to\u200bken": "x" },
    rule: "secret_key",
    where: "$<key#0>",
  },
  {
    name: "pass\\u00adword (soft hyphen in a key)",
    value: { "pass\u00adword": "x" },
    rule: "secret_key",
    where: "$<key#0>",
  },
  { name: "api\\u2060_key (word joiner)", value: { "api\u2060_key": "x" }, rule: "secret_key", where: "$<key#0>" },
  { name: "private, a newline run, key", value: { "private \n key": "x" }, rule: "secret_key", where: "$<key#0>" },
  {
    name: "a tag character (astral Cf) in a key",
    value: { "tok\u{E0020}en": "x" },
    rule: "secret_key",
    where: "$<key#0>",
  },
  {
    name: "format character in a key inside a JSON string",
    value: mcp('{"pass\\u00adword":1}'),
    rule: "secret_key",
    where: "$.content[0].text<json><key#0>",
  },
  { name: "BEGIN PRI\\u200bVATE KEY", value: { k: "-----BEGIN PRI\u200bVATE KEY-----" }, rule: "pem", where: "$.k" },
  {
    name: "a newline between the marker's words",
    value: { k: "-----BEGIN RSA PRIVATE\nKEY-----\nMIIE" },
    rule: "pem",
    where: "$.k",
  },
  { name: "a newline after BEGIN", value: { k: "-----BEGIN\nPRIVATE KEY-----" }, rule: "pem", where: "$.k" },
  {
    name: "a no-break space between the marker's words",
    value: { k: "-----BEGIN\u00a0OPENSSH PRIVATE\u00a0KEY-----" },
    rule: "pem",
    where: "$.k",
  },
  {
    name: "dashes split by a zero-width space",
    value: { k: "--\u200b---BEGIN EC PRIVATE KEY-----" },
    rule: "pem",
    where: "$.k",
  },
  {
    name: "dashes split by soft hyphens, each",
    value: ["-\u00ad-\u00ad-\u00ad- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"],
    rule: "pem",
    where: "$[0]",
  },
  {
    name: "split dashes escaped inside a JSON string",
    value: mcp('{"k":"--\\u200b---BEGIN PRIVATE KEY-----"}'),
    rule: "pem",
    where: "$.content[0].text<json>.k",
  },
  {
    name: "split marker in a long log",
    value: { log: `${"ok ".repeat(200)}-----BEGIN PRIVATE\u200b KEY-----` },
    rule: "pem",
    where: "$.log",
  },
  { name: "\\u200b/etc/shadow", value: { a: "\u200b/etc/shadow" }, rule: "local_path", where: "$.a" },
  {
    name: "a format character between an opener and the path",
    value: { a: "see (\u2060/root/x)" },
    rule: "local_path",
    where: "$.a",
  },
  { name: "a bidi override before the path", value: { a: "at \u202e/home/u" }, rule: "local_path", where: "$.a" },
  {
    name: "an astral tag character before the path",
    value: { a: "\u{E0001}/etc/passwd" },
    rule: "local_path",
    where: "$.a",
  },
  { name: "fi\\u200ble: split scheme", value: { a: "fi\u200ble:///x" }, rule: "local_path", where: "$.a" },
  {
    name: "format character before a path in a long text",
    value: { log: `${"word ".repeat(100)}\u200b/var/log/x` },
    rule: "local_path",
    where: "$.log",
  },
  {
    name: "split scheme in a long text",
    value: { log: `${"word ".repeat(100)}FI\u00adLE:x` },
    rule: "local_path",
    where: "$.log",
  },
  {
    name: "a format character in a key before a path",
    value: { "\u200b/home/u": 1 },
    rule: "local_path",
    where: "$<key#0>",
  },

  // the place names plain identifier keys only: any other key could be the secret itself
  {
    name: "under a key shaped like an API key",
    value: { "sk-live-4f9a2c7e1b": { password: "x" } },
    rule: "secret_key",
    where: "$<key#0>.password",
  },
  {
    name: "under a key holding a marker's dashes",
    value: { a: 1, "-----BEGIN x": "file:///srv/a" },
    rule: "local_path",
    where: "$<key#1>",
  },
  {
    name: "under a key with a dollar sign",
    value: { $ref: { token: 1 } },
    rule: "secret_key",
    where: "$<key#0>.token",
  },
  {
    name: "under a key outside ASCII",
    value: { ok: 1, "cl\u00e9": { token: 1 } },
    rule: "secret_key",
    where: "$<key#1>.token",
  },
  {
    name: "under a 64-char identifier (named)",
    value: { [`k${"x".repeat(63)}`]: { token: 1 } },
    rule: "secret_key",
    where: `$.k${"x".repeat(63)}.token`,
  },
  {
    name: "under a 65-char identifier (counted)",
    value: { [`k${"x".repeat(64)}`]: { token: 1 } },
    rule: "secret_key",
    where: "$<key#0>.token",
  },
  {
    name: "a duplicate under a key shaped like a token",
    value: { t: '{"ghp_x-1":{"a":1,"a":2}}' },
    rule: "duplicate_key",
    where: "$.t<json><key#0>.a",
  },

  // JSON.stringify semantics
  {
    name: "toJSON is honoured",
    value: { x: { toJSON: () => ({ token: 1 }) } },
    rule: "secret_key",
    where: "$.x.token",
  },
];

export const mustAccept: AcceptSample[] = [
  // size
  { name: "exactly 64 KiB", value: sized(65536), bytes: 65536 },
  { name: "exactly 64 KiB in two-byte chars", value: sized(65536, "é"), bytes: 65536 },
  { name: "exactly 64 KiB in three-byte chars", value: sized(65536, "€"), bytes: 65536 },
  {
    name: "an App's HTML past 64 KiB in a relayed read, its bundle reading as paths",
    value: app(BUNDLE, { _meta: { ui: { prefersBorder: true } } }),
    opts: APPS,
  },
  {
    name: "an App's HTML with the mimeType's case and spacing as servers write it",
    value: app(BUNDLE, {}, " TEXT/HTML ; profile=mcp-app", "UI://board"),
    opts: APPS,
  },
  { name: "exactly 64 KiB in escapes", value: sized(65536, "\n"), bytes: 65536 },

  // depth
  { name: "eight nested objects", value: objects(8) },
  { name: "eight nested arrays", value: arrays(8) },
  { name: "eight levels of objects and arrays", value: { a: [{ a: [{ a: [{ a: [] }] }] }] } },
  { name: "eight levels, then eight more in a JSON string", value: wrap(8, JSON.stringify(arrays(8))) },
  { name: "scalars at the top", value: [null, 0, true, "", "plain"] },

  // keys
  { name: "token_count", value: { token_count: 3 } },
  { name: "tokens", value: { tokens: ["a", "b"] } },
  { name: "tokenizer", value: { tokenizer: "bpe" } },
  { name: "password_hint", value: { password_hint: "pet" } },
  { name: "cookies (plural)", value: { cookies: 2 } },
  { name: "monkey, key and keys", value: { monkey: 1, key: 2, keys: [] } },
  { name: "fullwidth ｔｏｋｅｎ_count", value: { ｔｏｋｅｎ_count: 1 } },
  { name: "a secret-looking value under a plain key", value: { note: "my token is safe" } },

  // PEM near misses
  { name: "public key", value: { k: "-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----" } },
  { name: "RSA public key", value: { k: "-----BEGIN RSA PUBLIC KEY-----" } },
  { name: "certificate", value: { k: "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----" } },
  {
    name: "certificate followed by prose about private keys",
    value: { k: "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE----- never share a PRIVATE KEY" },
  },
  { name: "PGP public key block", value: { k: "-----BEGIN PGP PUBLIC KEY BLOCK-----" } },
  { name: "SSH2 public key", value: { k: "---- BEGIN SSH2 PUBLIC KEY ----" } },
  { name: "END marker alone", value: { k: "-----END RSA PRIVATE KEY-----" } },
  { name: "markdown rule and the words private key", value: { k: "----\nprivate key rotation" } },

  // paths (samples-paths.ts), then the earlier cases that still hold
  ...pathAccepts,
  { name: "a/b", value: { a: "a/b" } },
  { name: "localPaths off accepts /etc", value: { a: "/etc/x", "/etc/hosts": "file:///x" }, opts: BUILTIN },
  { name: "a / b", value: mcp("a / b") },
  { name: "a lone slash at the top", value: "/" },
  { name: "a /* block */ comment", value: mcp("/* block */ int x; /** doc */ /*/ */") },
  { name: "slashes and stars alone", value: { a: "// /// /* */ /** **/ */ *" } },
  { name: "a unified diff adding a file", value: mcp("--- /dev/null\n+++ b/src/new.ts\n@@ -0,0 +1 @@\n+x") },
  { name: "/dev/null in a long text", value: { log: `${"word ".repeat(100)}--- /dev/null` } },
  { name: "/dev/null with a format character", value: { a: "/dev/\u200bnull" } },
  { name: "/dev/null as a key", value: { "/dev/null": 1 } },
  {
    name: "a JPEG's base64 as image content",
    value: { content: [{ type: "image", data: JPEG, mimeType: "image/jpeg" }], isError: false },
  },
  {
    name: "base64 audio starting with a slash",
    value: { content: [{ type: "audio", data: "//uQxAAAAAAA", mimeType: "audio/mpeg" }] },
  },
  {
    name: "an embedded resource's base64 blob",
    value: { content: [{ type: "resource", resource: { uri: "mem://x", mimeType: "image/jpeg", blob: JPEG } }] },
  },
  {
    name: "an image in an isError result",
    value: {
      content: [
        { type: "text", text: "failed" },
        { type: "image", data: JPEG, mimeType: "image/jpeg" },
      ],
      isError: true,
    },
  },
  { name: "empty base64 image data", value: { content: [{ type: "image", data: "", mimeType: "image/png" }] } },

  // JSON in strings
  {
    name: "JSON in a string in JSON in a string, clean",
    value: mcp(JSON.stringify({ inner: JSON.stringify({ token_count: 2 }) })),
  },
  { name: "same key in sibling objects", value: { t: '{"a":{"a":1},"b":[{"a":1},{"a":2}]}' } },
  { name: "BOM-prefixed JSON string, clean", value: { t: '\ufeff{"ok":true}' } },
  {
    name: "braces, commas and quotes inside JSON strings are not structure",
    value: { t: '{"a":"},{\\"a\\":1","b":[",\\\\",{"a":1}]}' },
  },
  { name: "starts with { but is not JSON", value: { t: "{token: x}" } },
  { name: "starts with [ but is not JSON", value: { t: "[WARN] disk at 91%" } },
  { name: "a quoted phrase that is not one JSON string", value: { t: '"hello" she said' } },
  { name: "escaped slashes in a URL stay a URL once parsed", value: { t: '{"u":"https:\\/\\/h\\/x"}' } },

  // invisible characters and look-alikes: removed or read by skeleton, never turned into separators
  { name: "token\\u034f_count", value: { "token\u034f_count": 1 } },
  { name: "Cyrillic tоkens", value: { "t\u043ekens": 1 } },
  { name: "keys in other scripts", value: { привет: 1, ключ: 2, パスワードのヒント: 3, clé: 4 } },
  {
    name: "a public key marker with U+2010 dashes",
    value: { k: "\u2010\u2010\u2010\u2010\u2010BEGIN PUBLIC KEY\u2010\u2010\u2010\u2010\u2010" },
  },
  { name: "prose with dashes and accents", value: { a: "Größe — ‐‐‐‐ naïve café /straße/x" } },
  { name: "a Cyrillic root name is not a root", value: { a: "/\u0435tc/passwd" } },
  // format characters: removed, not turned into separators
  { name: "token\\u200b_count", value: { "token\u200b_count": 1 } },
  { name: "a zero-width space inside a relative path", value: { a: "a\u200b/b" } },
  { name: "a soft hyphen in prose", value: { a: "hyphen\u00adation and pass\u00adword_hint" } },
  { name: "a public key marker with a zero-width space", value: { k: "-----BEGIN PUBLIC\u200b KEY-----" } },
  { name: "a certificate marker split by a newline", value: { k: "-----BEGIN\nCERTIFICATE-----" } },
  { name: "an URL with a format character in its path", value: { a: "https://h/\u200betc/passwd" } },
  { name: "profi\\u200ble: is not file:", value: { a: "profi\u200ble:x" } },
  { name: "dashes and format characters without a marker", value: { a: "--\u200b-- divider" } },

  // JSON.stringify semantics
  { name: "undefined-valued secret key is not serialized", value: { token: undefined, ok: 1 } },
  { name: "functions are not serialized", value: { password: () => "x", list: [() => 1] } },
  { name: "a Date serializes to a string", value: { at: new Date(0) } },
  { name: "top-level undefined", value: undefined },
];
