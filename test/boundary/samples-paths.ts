// The local-path rule's samples (docs/boundary.md, local paths), gitleaks style: every
// documented example and real servers' answers (what the old token rule withheld wrongly and let
// through wrongly, from real servers' results), both ways. samples.ts adds them to the table that
// test/boundary/boundary.test.ts runs. Data only.
import type { BoundaryOptions, BoundaryRule } from "../../src/boundary/boundary.ts";

export interface RejectSample {
  name: string;
  value: unknown;
  opts?: BoundaryOptions; // default { localPaths: true, machineRoots: SAMPLE_MACHINE }
  rule: BoundaryRule;
  where: string;
  bytes?: number; // the compact JSON.stringify size in UTF-8 bytes, asserted by the test
}

export interface AcceptSample {
  name: string;
  value: unknown;
  opts?: BoundaryOptions;
  bytes?: number;
}

/** The machine the samples assume: the well-known roots, and `work` and `data` at the top of its `/`. */
export const SAMPLE_MACHINE: readonly string[] = ["work", "data"];

/** An MCP CallToolResult carrying `text` as its only content. */
const mcp = (text: string): unknown => ({ content: [{ type: "text", text }], isError: false });
const path = (name: string, text: string, where = "$.a"): RejectSample => ({
  name,
  value: where === "$" ? text : { a: text },
  rule: "local_path",
  where,
});
const text = (name: string, t: string): AcceptSample => ({ name, value: mcp(t) });

/** The base64 of a JPEG's first bytes, `/9j/4AAQSkZJRgAB…`. */
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
  0x00, 0xff, 0xdb,
]).toString("base64");

const ADDED_FILE_DIFF =
  "diff --git a/src/new.ts b/src/new.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/new.ts\n@@ -0,0 +1 @@\n+export const x = 1;\n";

export const pathRejects: RejectSample[] = [
  // the documented examples
  path("--file=/etc/passwd (after =)", "--file=/etc/passwd"),
  path("<code>/etc/shadow</code> (after >)", "<code>/etc/shadow</code>"),
  path("PATH:/usr/local/bin (after :)", "PATH:/usr/local/bin"),
  path("a stack frame (/home/runner/app/index.js:3:9)", "    at main (/home/runner/app/index.js:3:9)"),
  // let through by the old token rule
  path("run with --file=/etc/passwd", "run with --file=/etc/passwd"),
  path("x=/home/alice/.aws/credentials", "x=/home/alice/.aws/credentials"),
  path("open('/home/a/b')", "open('/home/a/b')"),
  // after =, : and ,
  path("--file=/root/…", "--file=/root/.ssh/id_ed25519"),
  path("cwd:/root/…", "cwd:/root/project"),
  path("after a comma", "a.txt,/root/b.txt"),
  path("after ;", "x;/var/log/syslog"),
  path("after [ and {", "[/opt/app] {/srv/www}"),
  path("after a backquote", "run `/usr/bin/git status`"),
  path("after a backslash", "C:\\x\\/etc/passwd"),
  path("after a pipe", "a|/etc/hosts"),
  path("after <", "<input </tmp/in.txt"),
  path("after a double quote", 'say "/Users/me/notes.txt"'),
  // what the reading is made of
  path("/etc/passwd", "/etc/passwd"),
  path("path in parentheses", "see (/tmp/x)"),
  {
    name: "quoted file URL (a JSON string literal now: read as its parsed value)",
    value: { a: '"file:///x"' },
    rule: "local_path",
    where: "$.a<json>",
  },
  path("a file: URL after =", "url=file:///srv/a"),
  path("FILE: in capitals", "FILE:x"),
  path("path after a tab", "at\t/home/u"),
  path("path after a no-break space", "at\u00a0/home/u"),
  path("path after NEL (U+0085, Unicode whitespace)", "at\u0085/home/u"),
  path("path after a line separator (U+2028)", "at\u2028/home/u"),
  path("path after a paragraph separator (U+2029)", "at\u2029/home/u"),
  path("path behind stacked openers (the old case said /srv, which has no second segment now)", "x <[`'/srv/x'`]>"),
  { name: "path in a key", value: { "/home/u": 1 }, rule: "local_path", where: "$<key#0>" },
  path("path as top-level string (the old case was /x, which names no root now)", "/etc/x", "$"),
  path("//etc/passwd (leading slashes, then a path)", "//etc/passwd"),
  path("slashes between the segments", "/etc//passwd"),
  path("a second segment of one character", "/home/u"),
  path("a second segment of a dot", "/etc/."),
  path("a top-level folder of this machine", "/work/project/a.ts"),
  path("another top-level folder of this machine", "see /data/db.sqlite"),
  path("a macOS home", "/Users/me/x"),
  path("a macOS private folder", "/private/var/folders/x"),
  path("a Nix store path", "/nix/store/abc-hello/bin/hello"),
  path("the well-known workspace root", "/workspace/src/app.py"),
  path("/dev/nullx is another file", "/dev/nullx"),
  path("/dev/null.bak is another file", "/dev/null.bak"),
  path("below /dev/null", "/dev/null/x"),
  path("a disk", "/dev/sda1"),
  path("/dev/fd/ and a name", "/dev/fd/x"),
  path("below /dev/fd/3", "/dev/fd/3/x"),
  path("/dev/null beside a real path", "--- /dev/null\n+++ /home/u/x"),
  {
    name: "/dev/null beside a path in a long text",
    value: { log: `${"word ".repeat(100)}/dev/null /etc/x` },
    rule: "local_path",
    where: "$.log",
  },
  {
    name: "path in a long text",
    value: { log: `${"word ".repeat(100)}/var/log/x` },
    rule: "local_path",
    where: "$.log",
  },
  {
    name: "path after = in a long text",
    value: { log: `${"word ".repeat(100)}--config=/etc/app.conf` },
    rule: "local_path",
    where: "$.log",
  },
  {
    name: "path inside a JSON string",
    value: mcp('{"files":["a.txt","/root/b"]}'),
    rule: "local_path",
    where: "$.content[0].text<json>.files[1]",
  },
  {
    name: "a path after a newline escaped in JSON text (the raw text reads n/etc)",
    value: mcp(JSON.stringify({ log: "line1\n/etc/passwd" })),
    rule: "local_path",
    where: "$.content[0].text<json>.log",
  },
  {
    name: "a diff in JSON text that adds a file beside a real path",
    value: mcp(JSON.stringify({ diff: `${ADDED_FILE_DIFF}--- /home/u/a\n` })),
    rule: "local_path",
    where: "$.content[0].text<json>.diff",
  },
  // binary payloads: only base64 in image/audio data and a resource's blob skip the rule
  {
    name: "image data that is not base64",
    value: { content: [{ type: "image", data: "/etc/passwd", mimeType: "image/png" }] },
    rule: "local_path",
    where: "$.content[0].data",
  },
  {
    name: "image data with a space is not base64",
    value: { content: [{ type: "image", data: "AAAA /etc/x", mimeType: "image/png" }] },
    rule: "local_path",
    where: "$.content[0].data",
  },
  {
    name: "a blob that is not base64",
    value: { content: [{ type: "resource", resource: { uri: "x:1", blob: "/etc/passwd" } }] },
    rule: "local_path",
    where: "$.content[0].resource.blob",
  },
  {
    name: "data outside image content is text (the old case's /9j/ names no root now)",
    value: { content: [{ type: "text", text: "ok", data: "/var/lib/x" }] },
    rule: "local_path",
    where: "$.content[0].data",
  },
  {
    name: "image data in structuredContent is text (likewise)",
    value: { structuredContent: { type: "image", data: "/var/lib/x" } },
    rule: "local_path",
    where: "$.structuredContent.data",
  },
  {
    name: "a base64 image beside a path in its mimeType",
    value: { content: [{ type: "image", data: JPEG, mimeType: "/etc/x" }] },
    rule: "local_path",
    where: "$.content[0].mimeType",
  },
  {
    name: "a read resource's blob that is not base64",
    value: { contents: [{ uri: "mem://x", blob: "/etc/passwd" }] },
    rule: "local_path",
    where: "$.contents[0].blob",
  },
  {
    name: "a read resource's text is text",
    value: { contents: [{ uri: "mem://x", text: "see /etc/passwd" }] },
    rule: "local_path",
    where: "$.contents[0].text",
  },
  {
    name: "a resource's uri is still checked beside its blob",
    value: { content: [{ type: "resource", resource: { uri: "file:///etc/x", blob: JPEG } }] },
    rule: "local_path",
    where: "$.content[0].resource.uri",
  },
];

export const pathAccepts: AcceptSample[] = [
  // the documented examples
  text("</table>", "</table>"),
  text('"/api/v1/orders"', '"/api/v1/orders" is the route'),
  text("GET /users/42", "GET /users/42"),
  text("a JPEG's base64 as text (/9j/4AAQ…)", JPEG),
  text("/api\\/v1/ (a regex)", "/api\\/v1/"),
  text("/help", "/help"),
  text('href="/home"', '<a href="/home">Home</a>'),
  text("#!/usr/bin/env node", "#!/usr/bin/env node\nconsole.log(1)"),
  text("https://host/etc/x", "https://host/etc/x"),
  text("~/x", "~/x"),
  text("../x", "../x"),
  text("ratio 3 / 4", "ratio 3 / 4"),
  text(
    "the standard devices",
    "/dev/null /dev/tty /dev/stdin /dev/stdout /dev/stderr /dev/zero /dev/random /dev/urandom /dev/fd/0 /dev/fd/12 /dev/fd",
  ),
  // withheld by the old token rule
  text(
    "a spreadsheet server's HTML",
    "<table>\n<tr><th>Item</th><th>Qty</th></tr>\n<tr><td>Pens</td><td>3</td></tr>\n</table>\n<ul>\n<li>Sheet1</li>\n</ul>",
  ),
  text("JSX closing tags", "export const A = () => (\n  <div>\n    <p>hi</p>\n  </div>\n);"),
  text(
    "a pom.xml",
    '<?xml version="1.0"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n  <groupId>org.example</groupId>\n</project>',
  ),
  text(
    "a Vue template",
    "<template>\n  <div>{{ msg }}</div>\n</template>\n<script setup>\nconst msg = 'hi'\n</script>",
  ),
  {
    name: "a route stored as data",
    value: {
      content: [{ type: "text", text: JSON.stringify({ route: "/api/v1/orders" }) }],
      structuredContent: { route: "/api/v1/orders" },
    },
  },
  text("an access-log line", '127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /users/42 HTTP/1.1" 200 2326'),
  text('"/callback" in code', 'app.get("/callback", (req, res) => res.send("ok"));'),
  text("The endpoint /health returns 200.", "The endpoint /health returns 200."),
  text("a JS regex literal", "const re = /^\\/api\\/v1\\/users\\/(\\d+)$/;"),
  text("slash commands", "Type /help or /model:list to begin"),
  text("/dev/tty in a commit subject", "3f2a1c0 Read the passphrase from /dev/tty, not stdin"),
  text(
    "a diff in JSON text that adds a file (its raw text holds a literal \\n)",
    JSON.stringify({ diff: ADDED_FILE_DIFF }),
  ),
  // what the reading is made of
  text("a root alone has no second segment", "/etc /home/ (/tmp) /usr/"),
  text("the first segment names no root", "/x /9/x /~u /$HOME /Über/x /api/v1"),
  text("roots are case-sensitive", "/ETC/passwd /Home/x /users/42 /library/x"),
  text("after a letter, digit, dot or closing bracket", "x/etc/passwd 1/etc/x ./etc/x )/etc/passwd ]/var/x"),
  text("after ! # ? & * + -", "!/etc/x #/etc/x ?/etc/x &/etc/x */etc/x +/etc/x -/etc/x"),
  text("a root in a URL's path or fragment", "http://h/home/x#/var/x"),
  text("a // comment", "x = 1 // comment"),
  text("a //comment without a space", "//comment //etc"),
  text(
    "/dev/null after a redirection, in brackets and quotes, at a sentence's end",
    "cmd 2>/dev/null; cmd </dev/null (/dev/null) '/dev/null', \"/dev/null\", then /dev/null.",
  ),
  text("//dev/null (leading slashes are skipped: the old case withheld it)", "//dev/null"),
  text("/dev/zero (a standard device now: the old case withheld it)", "/dev/zero"),
  text("/dev/null with a trailing slash", "/dev/null/"),
  text("profile: is not file:", "profile:x fil:y xfile:///etc"),
  text("a drive-letter path is not /-rooted", "C:\\Users\\me"),
  text("Light rain / drizzle", "Light rain / drizzle"),
  text("a slash before punctuation", "/! /? /= /, /: /; /) /\\x /# /&"),
  {
    name: "a read resource's base64 blob (resources/read)",
    value: { contents: [{ uri: "mem://x", mimeType: "image/jpeg", blob: "/usr/x+/AAAA" }] },
  },
  text("a top-level name this machine does not have", "/app/src/x /api/v1/orders"),
];
