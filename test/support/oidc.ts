// A person at a browser, for the authorization code flows against test/fixtures/oidc/issuer.ts:
// opens the authorization URL a client printed or handed over, follows the provider's redirects
// (keeping its cookies), fills the sign-in form with a user name and accepts the consent form, and
// stops at the client's redirect URI. Plain HTTP requests; every loop is bounded.

export interface SignedIn {
  /** The client's redirect URI with the code and state, as the provider sent the browser there. */
  readonly redirect: URL;
  /** The titles of the forms answered, in order ("login", "consent"). */
  readonly forms: readonly string[];
  /** What the consent page said the client asked for. */
  readonly consentText: string;
  /** The client's answer at its redirect URI (status and text), when `deliver` was asked. */
  readonly delivered?: { readonly status: number; readonly text: string };
}

export interface SignInOptions {
  /** The prefix of the client's redirect URI: where the browser stops. */
  readonly redirectPrefix: string;
  /** Also open the redirect URI (a loopback listener waits there), as a browser would. */
  readonly deliver?: boolean;
}

export async function signIn(authorizeUrl: string, user: string, o: SignInOptions): Promise<SignedIn> {
  const cookies = new Map<string, string>();
  const forms: string[] = [];
  let consentText = "";
  const send = async (url: string, body?: URLSearchParams): Promise<Response> => {
    const r = await fetch(url, {
      method: body ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(body ? { body } : {}),
    });
    for (const c of r.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair!.indexOf("=");
      cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return r;
  };
  let url = authorizeUrl;
  let r = await send(url);
  for (let hop = 0; hop < 20; hop++) {
    const to = r.headers.get("location");
    if (to !== null) {
      const next = new URL(to, url);
      if (next.href.startsWith(o.redirectPrefix)) {
        if (!o.deliver) return { redirect: next, forms, consentText };
        const answer = await fetch(next);
        return { redirect: next, forms, consentText, delivered: { status: answer.status, text: await answer.text() } };
      }
      url = next.href;
      r = await send(url);
      continue;
    }
    const page = await r.text();
    const form = /<title>([^<]*)<\/title><p>([^<]*)<\/p><form method="post" action="([^"]+)">/.exec(page);
    if (r.status !== 200 || form === null)
      throw new Error(
        `the sign-in stopped at ${url}: ${r.status} ${page
          .replace(/<style>[\s\S]*?<\/style>/, "")
          .replace(/\s+/g, " ")
          .slice(0, 800)}`,
      );
    const [, title, text, action] = form;
    forms.push(title!);
    if (title === "consent") consentText = text!;
    url = new URL(action!, url).href;
    r = await send(url, new URLSearchParams(page.includes(`name="user"`) ? { user } : {}));
  }
  throw new Error(`the sign-in did not reach ${o.redirectPrefix} in 20 steps`);
}
