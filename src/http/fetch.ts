// The one place a tool's network connection is opened (an architecture test keeps it so). Each
// hop: the URL policy, the grant, DNS (or a --resolve pin) with every answer judged, then a
// connection to the validated address itself, keeping the Host header and the TLS server name.
// Redirects are followed here, by hand, each hop judged again.
import { refuse, type Outcome, type Refusal } from "../result/result.ts";
import { urlInWords } from "./audit.ts";
import {
  auditView,
  checkUrl,
  isLoopbackName,
  judgeAnswers,
  LOOPBACK,
  rejected,
  type Checked,
  type Reach,
} from "./policy.ts";
import type { Pins, Resolver } from "./resolve.ts";

export interface HttpDeps {
  readonly reach: Reach;
  readonly pins: Pins;
  readonly resolver: Resolver;
  /** Whether --allow-net grants a redirect's new host (checked without a prompt); absent: every hop is. */
  readonly permits?: (host: string, port: number) => boolean;
  /** Injected in tests that must see what would be sent; the real fetch otherwise. */
  readonly fetchImpl?: (url: string, init: RequestInit & { tls?: unknown }) => Promise<Response>;
}

export interface GuardedInit {
  readonly method?: string;
  readonly headers?: ConstructorParameters<typeof Headers>[0];
  readonly body?: RequestInit["body"];
  readonly signal?: AbortSignal;
  /** For the whole exchange, redirects included. */
  readonly timeoutMs?: number;
  readonly maxRedirects?: number;
}

export interface Fetched {
  readonly response: Response;
  /** The URL that answered, after redirects. */
  readonly url: string;
  readonly redirects: number;
}

export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that carry a credential: never sent on to another origin by a redirect. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

export async function guardedFetch(raw: string, init: GuardedInit, deps: HttpDeps): Promise<Outcome<Fetched>> {
  const max = init.maxRedirects ?? MAX_REDIRECTS;
  const signal =
    init.timeoutMs === undefined
      ? init.signal
      : init.signal
        ? AbortSignal.any([init.signal, AbortSignal.timeout(init.timeoutMs)])
        : AbortSignal.timeout(init.timeoutMs);
  let method = (init.method ?? "GET").toUpperCase();
  let body = init.body ?? null;
  const headers = new Headers(init.headers);
  let current = raw;
  let previous: Checked | null = null;
  // An operator endpoint is trusted for its address class, not wherever it redirects: a hop to
  // another origin is judged as any URL is (a private address needs its exact grant).
  const operatorOrigin = deps.reach.trustAddressClass ? originOf(raw) : undefined;
  const normal: Reach = { exact: deps.reach.exact, pinned: deps.reach.pinned };
  for (let hop = 0; ; hop++) {
    const reach =
      previous !== null && operatorOrigin !== undefined && originOf(current) !== operatorOrigin ? normal : deps.reach;
    const checked = checkUrl(current, reach);
    if (!checked.ok) return atHop(checked, previous, current);
    const c = checked.value;
    if (previous !== null) {
      if (previous.url.protocol === "https:" && c.url.protocol === "http:")
        return rejected(
          "redirect_downgrade",
          `${auditView(previous.url)} redirected to ${auditView(c.url)}: a redirect from https to http is refused`,
          { from: auditView(previous.url), to: auditView(c.url) },
        );
      if (deps.permits && !deps.permits(c.host, c.port))
        return rejected(
          "redirect_not_granted",
          `${auditView(previous.url)} redirected to ${auditView(c.url)}, which --allow-net does not grant ` +
            `(add --allow-net=${c.host}:${c.port})`,
          { to: auditView(c.url), flag: `--allow-net=${c.host}:${c.port}` },
        );
      if (previous.url.origin !== c.url.origin) for (const h of CREDENTIAL_HEADERS) headers.delete(h);
    }
    const addresses = await addressesOf(c, reach, deps);
    if (!addresses.ok) return atHop(addresses, previous, current);
    const sent = await connect(c, addresses.value, { method, headers, body, signal }, deps);
    if (!sent.ok) return sent;
    const response = sent.value;
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null)
      return { ok: true, value: { response, url: c.url.href, redirects: hop } };
    await response.body?.cancel().catch(() => {});
    if (hop >= max)
      return rejected("redirect_limit", `more than ${max} redirects (the last from ${auditView(c.url)})`, {
        limit: max,
      });
    let next: URL;
    try {
      next = new URL(location, c.url);
    } catch {
      return rejected("redirect_invalid", `${auditView(c.url)} redirected to a Location that is not a URL`);
    }
    // As browsers do: 303, and 301/302 after a POST, continue as a GET without a body.
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
      method = "GET";
      body = null;
      headers.delete("content-type");
    }
    previous = c;
    current = next.href;
  }
}

/** A hop's refusal says which URL redirected there (a `file:` one by its scheme alone: urlInWords). */
function atHop<R extends { ok: false; refusal: Refusal }>(r: R, previous: Checked | null, current: string): R {
  if (previous === null) return r;
  return {
    ...r,
    refusal: {
      ...r.refusal,
      message: `${urlInWords(previous.url)} redirected to ${urlInWords(current)}: ${r.refusal.message}`,
    },
  };
}

function originOf(raw: string): string | undefined {
  try {
    return new URL(raw).origin;
  } catch {
    return undefined;
  }
}

async function addressesOf(c: Checked, reach: Reach, deps: HttpDeps): Promise<Outcome<string[]>> {
  if (c.literal !== null) return { ok: true, value: [c.literal.address] };
  const pinned = deps.pins.get(`${c.host}:${c.port}`);
  if (pinned !== undefined) return judgeAnswers(c.host, c.port, pinned, reach, true);
  // checkUrl let a loopback name through only on its exact grant: it leads to loopback, no DNS asked.
  if (isLoopbackName(c.host)) return { ok: true, value: [...LOOPBACK] };
  let answers: string[];
  try {
    answers = await deps.resolver(c.host);
  } catch (e) {
    const why = (e as { code?: string }).code ?? "no answer";
    return rejected(
      "dns_failed",
      `${c.host} cannot be resolved (${why}); a name that does not resolve is refused, not retried elsewhere`,
      { host: c.host },
    );
  }
  return judgeAnswers(c.host, c.port, answers, reach, false);
}

interface Sending {
  readonly method: string;
  readonly headers: Headers;
  readonly body: RequestInit["body"];
  readonly signal: AbortSignal | undefined;
}

/** Connects to the validated addresses in order (the next only when one cannot be reached). */
async function connect(
  c: Checked,
  addresses: readonly string[],
  s: Sending,
  deps: HttpDeps,
): Promise<Outcome<Response>> {
  const doFetch = deps.fetchImpl ?? ((u, i) => fetch(u, i as RequestInit));
  const isName = c.literal === null;
  const headers = new Headers(s.headers);
  headers.set("host", c.url.host);
  let tls: unknown;
  if (c.url.protocol === "https:" && isName) {
    // The certificate is checked against the name the URL gave, not the address connected to.
    const { checkServerIdentity } = await import("node:tls");
    tls = { serverName: c.host, checkServerIdentity: (_: string, cert: never) => checkServerIdentity(c.host, cert) };
  }
  let last: Outcome<Response> = refuse("net.unreachable", `${auditView(c.url)} cannot be reached`);
  for (const address of addresses) {
    const target = `${c.url.protocol}//${address.includes(":") ? `[${address}]` : address}:${c.port}${c.url.pathname}${c.url.search}`;
    try {
      const response = await doFetch(target, {
        method: s.method,
        headers,
        body: s.body,
        redirect: "manual",
        ...(s.signal ? { signal: s.signal } : {}),
        ...(tls ? { tls } : {}),
      });
      return { ok: true, value: response };
    } catch (e) {
      last = networkRefusal(e, c.url);
      if (last.ok || last.refusal.code !== "net.unreachable") return last;
    }
  }
  return last;
}

const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "ECONNRESET",
  "ConnectionRefused",
  "FailedToOpenSocket",
  "ConnectionClosed",
  "EADDRNOTAVAIL",
]);

/** A network failure, told apart from a policy refusal by its code; the message names no path. */
export function networkRefusal(e: unknown, url: URL): { ok: false; refusal: Refusal } {
  const err = e as { name?: string; code?: string };
  const where = auditView(url);
  if (err.name === "TimeoutError") return refuse("net.timeout", `${where} did not answer in time`);
  if (err.name === "AbortError") return refuse("net.cancelled", `the request to ${where} was cancelled`);
  const code = String(err.code ?? "");
  if (UNREACHABLE.has(code)) return refuse("net.unreachable", `${where} cannot be reached (${code})`);
  if (code === "EPROTO" || /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME|ERR_TLS/i.test(code))
    return refuse("net.tls", `the TLS connection to ${where} failed (${code})`);
  return refuse("net.failed", `the request to ${where} failed (${code || err.name || "error"})`);
}

/** Reads at most `maxBytes` of a body, then stops reading (the rest is never received). */
export async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(0), truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel().catch(() => {});
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { bytes, truncated };
}
