// The network as handlers and MCP connections get it: the grants and --resolve pins of this boot,
// bound once. Light to import (the policy, ipaddr.js and node:dns load on the first request).
import type { HttpBody, HttpClient, HttpGetOptions } from "../catalog/declare.ts";
import { hostsOf, parseNet } from "../permission/net.ts";
import { decide } from "../permission/match.ts";
import type { GrantValue, PermissionGrants } from "../permission/types.ts";
import type { Code } from "../result/codes.ts";
import type { Outcome } from "../result/result.ts";
import type { HttpDeps } from "./fetch.ts";
import { laterRequest, type LaterRequest } from "./later.ts";
import type { Pins, Resolver } from "./resolve.ts";

export interface NetSetup {
  /** Exact `host:port` allow-net grants, canonical: the only way to a non-public address. */
  readonly exact: ReadonlySet<string>;
  readonly pins: Pins;
  readonly grants: PermissionGrants;
  readonly cwd: string;
  /** Injected in tests; the system's getaddrinfo otherwise. */
  readonly resolver?: Resolver;
}

/**
 * Exact grants: the listed allow-net values with a port, from every source given (the config's,
 * each flag's). Grants are a union: a bare --allow-net beside `--allow-net=127.0.0.1:8080` drops
 * nothing. A host-wide value is never exact; `localhost:PORT` also reaches 127.0.0.1 and ::1 there.
 */
export function exactNetGrants(...sources: readonly (GrantValue | undefined)[]): Set<string> {
  const out = new Set<string>();
  for (const listed of sources) {
    if (listed === undefined || listed === true) continue;
    for (const v of listed) {
      const n = parseNet(v);
      if (n !== null && n.port !== undefined) for (const host of hostsOf(n.host)) out.add(`${host}:${n.port}`);
    }
  }
  return out;
}

async function deps(setup: NetSetup, operatorEndpoint: boolean): Promise<HttpDeps> {
  const { systemResolver } = await import("./resolve.ts");
  const pinned = new Set(setup.pins.keys());
  return {
    reach: { exact: setup.exact, pinned, ...(operatorEndpoint ? { trustAddressClass: true } : {}) },
    pins: setup.pins,
    resolver: setup.resolver ?? systemResolver,
    // A redirect's new host needs the grant the first one did (no prompt: it was not asked for).
    ...(operatorEndpoint
      ? {}
      : {
          permits: (host: string, port: number) =>
            decide(
              setup.grants,
              { kind: "net", value: `${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}` },
              setup.cwd,
            ) === "granted",
        }),
  };
}

export function httpClient(setup: NetSetup): HttpClient {
  return {
    async get(url: string, opts: HttpGetOptions): Promise<Outcome<HttpBody>> {
      const { guardedFetch, readCapped, networkRefusal } = await import("./fetch.ts");
      const fetched = await guardedFetch(
        url,
        {
          method: opts.method ?? "GET",
          headers: opts.headers ?? {},
          body: opts.body ?? null,
          timeoutMs: opts.timeoutMs,
          ...(opts.signal ? { signal: opts.signal } : {}),
        },
        await deps(setup, opts.operatorEndpoint === true),
      );
      if (!fetched.ok) return fetched;
      const { response } = fetched.value;
      try {
        const { bytes, truncated } = await readCapped(response, opts.maxBytes);
        return {
          ok: true,
          value: {
            status: response.status,
            url: fetched.value.url,
            contentType: response.headers.get("content-type") ?? "",
            bytes,
            truncated,
            redirects: fetched.value.redirects,
          },
        };
      } catch (e) {
        return networkRefusal(e, new URL(fetched.value.url));
      }
    },
  };
}

/** Thrown by the fetch handed to the MCP SDK: its message and code are the refusal's. */
export class NetRefused extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/**
 * A fetch under the policy; `later` packs a request for another process to send under the same policy
 * (http/later.ts).
 */
export type PolicyFetchFn = ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) & {
  later?: (url: string, method: string, headers: Readonly<Record<string, string>>) => LaterRequest;
};

/** A WHATWG-shaped fetch for the MCP SDK's Streamable HTTP transport, under the same policy. */
export function policyFetch(setup: NetSetup): PolicyFetchFn {
  const f: PolicyFetchFn = async (input, init) => {
    const { guardedFetch } = await import("./fetch.ts");
    const url = input instanceof Request ? input.url : String(input);
    const d = await deps(setup, false);
    const fetched = await guardedFetch(
      url,
      {
        method: init?.method ?? "GET",
        headers: init?.headers ?? {},
        body: init?.body ?? null,
        ...(init?.signal ? { signal: init.signal } : {}),
      },
      d,
    );
    if (!fetched.ok) throw new NetRefused(fetched.refusal.code, fetched.refusal.message, fetched.refusal.details);
    return fetched.value.response;
  };
  f.later = (url, method, headers) => laterRequest(url, method, headers, setup.exact, setup.pins);
  return f;
}
