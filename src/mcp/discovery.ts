// Discovery of configured MCP servers: at most four at a time, each bounded by its connect
// timeout (a server that misses it is closed when it does arrive, never blocking the rest),
// names assembled deterministically afterwards, and a failed server remembered for 30 s so
// it is retried alone and not on every boot (an error marked `transient`, such as a missing
// permission, is not remembered). The clock and the connector are injected.
import type { ListedTool, ServerInfo } from "./session.ts";

export const DISCOVERY_CONCURRENCY = 4;
export const NEGATIVE_TTL_MS = 30_000;

export interface Connected {
  readonly tools: readonly ListedTool[];
  readonly server?: ServerInfo;
  close(): Promise<void>;
}

export type Discovered =
  | {
      readonly server: string;
      readonly ok: true;
      readonly tools: readonly ListedTool[];
      readonly connection: Connected;
    }
  | {
      readonly server: string;
      readonly ok: false;
      readonly error: string;
      readonly at: number;
      readonly cached: boolean;
      readonly remembered: boolean;
    };

export interface Failure {
  readonly error: string;
  readonly at: number;
}

export interface DiscoverOptions {
  readonly now: () => number;
  /** Failures remembered from earlier discoveries (by server name); updated in place. */
  readonly failures: Map<string, Failure>;
  readonly concurrency?: number;
  /** What a server that missed its connect timeout is told (naming the key that sets it). */
  readonly timedOut?: (server: { readonly name: string; readonly connectTimeoutMs: number }) => string;
}

export async function discover<S extends { readonly name: string; readonly connectTimeoutMs: number }>(
  servers: readonly S[],
  connect: (server: S) => Promise<Connected>,
  opts: DiscoverOptions,
): Promise<Discovered[]> {
  const ordered = [...servers].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const results = new Map<string, Discovered>();
  const queue: S[] = [];
  for (const s of ordered) {
    const f = opts.failures.get(s.name);
    if (f && opts.now() - f.at < NEGATIVE_TTL_MS)
      results.set(s.name, { server: s.name, ok: false, error: f.error, at: f.at, cached: true, remembered: true });
    else queue.push(s);
  }
  const worker = async () => {
    for (let s = queue.shift(); s !== undefined; s = queue.shift()) {
      const r = await bounded(s, connect, opts.timedOut);
      if (r.ok || !r.remember) opts.failures.delete(s.name);
      else opts.failures.set(s.name, { error: r.error, at: opts.now() });
      results.set(
        s.name,
        r.ok
          ? { server: s.name, ok: true, tools: r.value.tools, connection: r.value }
          : { server: s.name, ok: false, error: r.error, at: opts.now(), cached: false, remembered: r.remember },
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? DISCOVERY_CONCURRENCY, queue.length) }, worker));
  return ordered.map((s) => results.get(s.name)!);
}

async function bounded<S extends { readonly name: string; readonly connectTimeoutMs: number }>(
  s: S,
  connect: (server: S) => Promise<Connected>,
  timedOut: DiscoverOptions["timedOut"],
): Promise<{ ok: true; value: Connected } | { ok: false; error: string; remember: boolean }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const attempt = connect(s);
  const timeout = new Promise<"timeout">((res) => {
    timer = setTimeout(() => res("timeout"), s.connectTimeoutMs);
  });
  try {
    const r = await Promise.race([attempt, timeout]);
    if (r === "timeout") {
      // Whatever arrives late is closed, so a slow server never lingers.
      attempt.then((c) => c.close()).catch(() => {});
      return {
        ok: false,
        error:
          timedOut?.(s) ??
          `no answer within the connect timeout (${s.connectTimeoutMs / 1000} s, connect_timeout_secs)`,
        remember: true,
      };
    }
    return { ok: true, value: r };
  } catch (e) {
    // A refusal that the next run's flags may lift (a permission) is not remembered.
    return {
      ok: false,
      error: (e as Error).message || String(e),
      remember: (e as { transient?: boolean }).transient !== true,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** include/exclude filters on a server's raw tool names (exact names, `*` as a wildcard). */
export function filterTools(
  tools: readonly ListedTool[],
  include?: readonly string[],
  exclude?: readonly string[],
): ListedTool[] {
  const re = (p: string) =>
    new RegExp(
      `^${p
        .split("*")
        .map((x) => x.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
    );
  const inc = include?.map(re);
  const exc = exclude?.map(re) ?? [];
  return tools.filter((t) => (!inc || inc.some((r) => r.test(t.name))) && !exc.some((r) => r.test(t.name)));
}
