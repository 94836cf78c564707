// The four rails: one HTTP request/response read each, against an operator's endpoint named by
// the environment (never a shipped address). A rail is offered only when its endpoint and
// credential are both set; the credential is a secret (redacted from every view).
import type { HttpClient, ToolContext } from "../../catalog/declare.ts";
import { refuse, type Outcome } from "../../result/result.ts";
import { operatorJson } from "../net/operator-json.ts";

export type RailGroup = "bank" | "research";

/** The variables each group needs: the endpoint (base URL) and its bearer credential. */
export const RAIL_VARS: Readonly<Record<RailGroup, { readonly url: string; readonly token: string }>> = {
  bank: { url: "RAILS_BANK_URL", token: "RAILS_BANK_TOKEN" },
  research: { url: "RAILS_RESEARCH_URL", token: "RAILS_RESEARCH_TOKEN" },
};

/** Rail → its group and the path it POSTs to under the group's base URL. */
export const RAIL_ROUTES: Readonly<Record<string, { readonly group: RailGroup; readonly path: string }>> = {
  bank_search: { group: "bank", path: "/search" },
  bank_get: { group: "bank", path: "/get" },
  librarian: { group: "bank", path: "/librarian" },
  research: { group: "research", path: "/research" },
};

export interface RailEndpoint {
  readonly url: string;
  readonly token: string;
}

/** The groups whose endpoint and credential are both set, from the parent environment. */
export function railEndpoints(
  env: Readonly<Record<string, string | undefined>>,
): Partial<Record<RailGroup, RailEndpoint>> {
  const out: Partial<Record<RailGroup, RailEndpoint>> = {};
  for (const [group, vars] of Object.entries(RAIL_VARS) as [RailGroup, (typeof RAIL_VARS)[RailGroup]][]) {
    const url = env[vars.url];
    const token = env[vars.token];
    if (url && token) out[group] = { url, token };
  }
  return out;
}

/** Each rail that is missing, with the variables it lacks (for --require-rails). */
export function missingRails(env: Readonly<Record<string, string | undefined>>): { rail: string; missing: string[] }[] {
  return Object.entries(RAIL_ROUTES).flatMap(([rail, { group }]) => {
    const vars = RAIL_VARS[group];
    const missing = [vars.url, vars.token].filter((v) => !env[v]);
    return missing.length ? [{ rail, missing }] : [];
  });
}

const MAX_BYTES = 1024 * 1024;
const TIMEOUT_MS = 60_000;

/**
 * The wire contract: POST <base><path> with `Authorization: Bearer <token>` and the call's
 * arguments as the JSON body; a 2xx JSON body is the result, as the endpoint sent it.
 */
export async function callRail(rail: string, args: unknown, ctx: ToolContext): Promise<Outcome<unknown>> {
  const route = RAIL_ROUTES[rail]!;
  const ep = ctx.rails?.[route.group];
  const http: HttpClient | undefined = ctx.http;
  if (!ep || !http)
    return refuse(
      "rail.unavailable",
      `${rail} has no endpoint: set ${RAIL_VARS[route.group].url} and ${RAIL_VARS[route.group].token}`,
    );
  return operatorJson(
    http,
    {
      base: ep.url,
      path: route.path,
      method: "POST",
      token: ep.token,
      body: args,
      maxBytes: MAX_BYTES,
      timeoutMs: TIMEOUT_MS,
      signal: ctx.signal,
    },
    {
      who: `the ${rail} endpoint`,
      codes: { status: "rail.status", tooLarge: "rail.too_large", notJson: "rail.invalid_response" },
    },
  );
}
