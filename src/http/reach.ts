// One bounded request to an endpoint the user configured (the telemetry collector, for `toolgate
// doctor`): its answer's status, or why none came. Not for a model's URL: the user's own endpoint
// is trusted for its address, as the exporter that sends to it is; it is scheme-checked where read.
export type Reached = { readonly ok: true; readonly status: number } | { readonly ok: false; readonly error: string };

export async function reach(
  url: string,
  init: { readonly method: string; readonly headers: Readonly<Record<string, string>>; readonly body: string },
  timeoutMs: number,
): Promise<Reached> {
  try {
    const r = await fetch(url, {
      method: init.method,
      headers: init.headers,
      body: init.body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await r.arrayBuffer().catch(() => undefined);
    return { ok: true, status: r.status };
  } catch (e) {
    const err = e as Error & { code?: string };
    return {
      ok: false,
      error: err.name === "TimeoutError" ? `no answer within ${timeoutMs / 1000} s` : (err.code ?? err.message),
    };
  }
}
