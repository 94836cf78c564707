// The redirect listener of an authorization code flow (RFC 8252 §7.3): 127.0.0.1, a port the
// system picks, one path. It answers the browser, checks `state`, and hands back the code once.
export interface Loopback {
  readonly redirectUrl: string;
  /** Resolves with the code of the first redirect whose state matches, or rejects with the server's error. */
  readonly code: Promise<string>;
  /** A fresh wait for the next redirect (after a step-up, say). */
  next(): Promise<string>;
  stop(): void;
}

const PAGE = (text: string) =>
  new Response(`<!doctype html><meta charset="utf-8"><title>toolgate</title><p>${text}</p>`, {
    headers: { "content-type": "text/html; charset=utf-8" },
  });

export function listen(state: string): Loopback {
  let settle: { resolve(code: string): void; reject(e: Error): void } | undefined;
  const wait = () => {
    const p = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
    // Refused while nobody waits yet: the waiter sees it when it comes.
    p.catch(() => {});
    return p;
  };
  let code = wait();
  const answer = (req: Request): Response => {
    const url = new URL(req.url);
    if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
    // A redirect for another attempt (or a forged one) is not this flow's.
    if (url.searchParams.get("state") !== state)
      return new Response("state does not match this authorization", { status: 400 });
    const error = url.searchParams.get("error");
    if (error !== null) {
      const why = url.searchParams.get("error_description");
      settle?.reject(
        new Error(`the authorization server refused: ${error.slice(0, 100)}${why ? ` (${why.slice(0, 300)})` : ""}`),
      );
      return PAGE("Authorization was refused. You can close this window.");
    }
    const c = url.searchParams.get("code");
    if (c === null) return new Response("no code", { status: 400 });
    settle?.resolve(c);
    return PAGE("toolgate is authorized. You can close this window.");
  };
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: answer });
  return {
    redirectUrl: `http://127.0.0.1:${server.port}/callback`,
    get code() {
      return code;
    },
    next() {
      code = wait();
      return code;
    },
    stop: () => void server.stop(true),
  };
}
