// A request another process sends later: the DELETE that ends an HTTP MCP session once a cold
// call's result is out, sent by the detached reaper (src/launcher/reaper.ts) so the caller does
// not wait on the server. It carries what the URL policy needs to judge it again there (the boot's
// exact grants and --resolve pins); it follows no redirect. Its headers may hold credentials: it
// travels in the reaper's environment, never on a command line.
import type { Pins } from "./resolve.ts";

export interface LaterRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly exact: readonly string[];
  readonly pins: readonly (readonly [string, readonly string[]])[];
}

export const laterRequest = (
  url: string,
  method: string,
  headers: Readonly<Record<string, string>>,
  exact: ReadonlySet<string>,
  pins: Pins,
): LaterRequest => ({
  url,
  method,
  headers,
  exact: [...exact],
  pins: [...pins.entries()],
});

/** How long the reaper gives one request. */
export const LATER_TIMEOUT_MS = 10_000;

/** Sends it through the URL policy; the answer is not read. False when it was refused or failed. */
export async function sendLater(r: LaterRequest, timeoutMs = LATER_TIMEOUT_MS): Promise<boolean> {
  const [{ guardedFetch }, { systemResolver }] = await Promise.all([import("./fetch.ts"), import("./resolve.ts")]);
  const pins = new Map(r.pins.map(([k, v]) => [k, [...v]]));
  try {
    const sent = await guardedFetch(
      r.url,
      { method: r.method, headers: r.headers, timeoutMs, maxRedirects: 0 },
      { reach: { exact: new Set(r.exact), pinned: new Set(pins.keys()) }, pins, resolver: systemResolver },
    );
    if (!sent.ok) return false;
    await sent.value.response.body?.cancel().catch(() => {});
    return sent.value.response.ok || sent.value.response.status === 405;
  } catch {
    return false;
  }
}
