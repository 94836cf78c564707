// web_extract: one public http(s) URL through the HTTP adapter (the URL policy, --allow-net for
// its host), its readable text back: HTML as title + text, text and JSON as they are, binary refused.
import { defineTool } from "../../catalog/declare.ts";
import { refuse, type Outcome } from "../../result/result.ts";
import { VERSION } from "../../version.ts";
import description from "./web-extract.txt" with { type: "text" };

/** Bytes read off the wire at most: the rest of a longer page is never received. */
export const MAX_BYTES = 5 * 1024 * 1024;
const DEFAULT_CHARS = 20_000;
const TIMEOUT_MS = 30_000;
/** The text's serialized size at most: the whole result must stay under the boundary's 64 KiB. */
const TEXT_BYTES = 56 * 1024;

export default defineTool({
  name: "web_extract",
  description: description.trimEnd(),
  input: (type) => type({ "+": "reject", url: "1 <= string <= 8192", "max_chars?": "1 <= number.integer <= 50000" }),
  effect: "read",
  approval: "required",
  foreignOutput: true,
  audit: (args) =>
    typeof args === "object" && args !== null && typeof (args as { url?: unknown }).url === "string"
      ? { ...args, url: urlAudit((args as { url: string }).url) }
      : args,
  needs: (args) => {
    const hostPort = netNeed(args.url);
    return hostPort.ok ? { ok: true, value: [{ kind: "net", value: hostPort.value }] } : hostPort;
  },
  handler: async (args, ctx) => {
    if (!ctx.http) return refuse("web.unavailable", "this context has no network adapter");
    const got = await ctx.http.get(args.url, {
      maxBytes: MAX_BYTES,
      timeoutMs: TIMEOUT_MS,
      signal: ctx.signal,
      headers: {
        accept: "text/html,application/xhtml+xml,text/*;q=0.9,application/json;q=0.9,*/*;q=0.1",
        "user-agent": `toolgate/${VERSION}`,
      },
    });
    if (!got.ok) return got;
    const page = got.value;
    const type = page.contentType.split(";")[0]!.trim().toLowerCase();
    if (page.status < 200 || page.status > 299)
      return refuse("web.status", `the server answered HTTP ${page.status}`, {
        status: page.status,
        content_type: type,
      });
    const kind = kindOf(type, page.bytes);
    if (kind === "binary")
      return refuse(
        "web.binary",
        `the content type ${JSON.stringify(type || "(none)")} is not text; web_extract returns text only`,
        { content_type: type || null },
      );
    const decoded = decode(page.bytes, page.contentType);
    const max = args.max_chars ?? DEFAULT_CHARS;
    // Loaded here: the entity tables stay off every other call's start-up.
    const { title, text, cut } =
      kind === "html"
        ? await (await import("./html-text.ts")).htmlToText(decoded, max)
        : { title: "", text: decoded, cut: false };
    const kept = fitBytes(text.slice(0, max), TEXT_BYTES);
    return ok({
      url: page.url,
      status: page.status,
      content_type: type,
      title,
      text: kept,
      chars: kept.length,
      truncated: page.truncated || cut || kept.length < text.length,
    });
  },
});

const ok = (value: unknown): Outcome<unknown> => ({ ok: true, value });

/** The longest prefix whose JSON string is at most `max` UTF-8 bytes (a surrogate pair never split). */
function fitBytes(text: string, max: number): string {
  const size = (s: string) => Buffer.byteLength(JSON.stringify(s));
  if (size(text) <= max) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (size(text.slice(0, mid)) <= max) lo = mid;
    else hi = mid - 1;
  }
  const c = text.charCodeAt(lo - 1);
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? lo - 1 : lo);
}

/** scheme://host[:port] only: the journal keeps no userinfo, path, query or fragment. */
function urlAudit(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}`;
  } catch {
    return "(not a URL)";
  }
}

/**
 * `host:port` the call needs --allow-net for. A URL that does not parse, has no host, or whose scheme
 * is not http or https (a bare `file:` as much as `file:///etc/x` or `file://host/x`) is refused here,
 * before a grant or an approval is asked for, in the URL policy's words (src/http/policy.ts).
 */
export function netNeed(raw: string): Outcome<string> {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return refuse("url.rejected", UNPARSED, { rule: "invalid_url" });
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    const scheme = u.protocol.slice(0, -1).slice(0, 20);
    const file = scheme === "file" ? " (that scheme names a file on this machine: file_read reads one)" : "";
    return refuse(
      "url.rejected",
      `the scheme ${JSON.stringify(scheme)} is not allowed; only http and https are${file}`,
      { rule: "scheme", scheme },
    );
  }
  const host = u.hostname.replace(/(?<=[^.])\.$/, "");
  if (host === "" || host.endsWith("."))
    return refuse("url.rejected", "the URL has no host name", { rule: "invalid_url" });
  return { ok: true, value: `${host}:${u.port || (u.protocol === "https:" ? "443" : "80")}` };
}

const UNPARSED = "the URL cannot be parsed (give an absolute http:// or https:// URL)";

function kindOf(type: string, bytes: Uint8Array): "html" | "text" | "binary" {
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (
    type.startsWith("text/") ||
    type === "application/json" ||
    type.endsWith("+json") ||
    type === "application/xml" ||
    type.endsWith("+xml") ||
    type === "application/javascript"
  )
    return "text";
  // No type given: text unless it holds a NUL in its first 8 KiB.
  if (type === "") return bytes.subarray(0, 8192).includes(0) ? "binary" : "text";
  return "binary";
}

function decode(bytes: Uint8Array, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder((charset ?? "utf-8") as "utf-8").decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}
