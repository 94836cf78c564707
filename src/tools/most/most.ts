// Most, the messaging service: its endpoint (most.url / MOST_SERVICE_URL) and a service token
// read from MOST_SERVICE_TOKEN_FILE at call time. A missing, unreadable, empty or group/world-
// readable token file is a refusal that says how to fix it; the token never reaches a view, and
// neither does the file's path (results of this tool take the local-path rule).
import { openSync, closeSync, fstatSync, readFileSync } from "node:fs";
import type { ToolContext } from "../../catalog/declare.ts";
import { refuse, type Outcome } from "../../result/result.ts";
import { operatorJson } from "../net/operator-json.ts";

export const PREFERRED_SERVICES = ["iMessage", "SMS", "RCS"] as const;
const MAX_BYTES = 256 * 1024;
const TIMEOUT_MS = 30_000;

/** The token, read now (a rotated file is picked up by the next call). */
export function readToken(path: string): Outcome<string> {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOENT")
      return refuse(
        "most.token_missing",
        `the Most token file (MOST_SERVICE_TOKEN_FILE) does not exist; create it (chmod 600) or fix ` +
          `MOST_SERVICE_TOKEN_FILE`,
      );
    return refuse(
      "most.token_unreadable",
      `the Most token file (MOST_SERVICE_TOKEN_FILE) cannot be read (${code ?? "error"}); make it readable by ` +
        `this user only (chmod 600)`,
    );
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile())
      return refuse("most.token_unreadable", `the Most token file (MOST_SERVICE_TOKEN_FILE) is not a regular file`);
    // A token others can read is no longer a secret of this user: refused until it is private.
    if ((st.mode & 0o077) !== 0)
      return refuse(
        "most.token_too_open",
        `the Most token file (MOST_SERVICE_TOKEN_FILE) is readable or writable by group or others (mode ` +
          `${(st.mode & 0o777).toString(8)}); run chmod 600 on it`,
        { mode: (st.mode & 0o777).toString(8) },
      );
    const token = readFileSync(fd, "utf8").trim();
    if (token === "") return refuse("most.token_missing", `the Most token file (MOST_SERVICE_TOKEN_FILE) is empty`);
    return { ok: true, value: token };
  } catch (e) {
    return refuse(
      "most.token_unreadable",
      `the Most token file (MOST_SERVICE_TOKEN_FILE) cannot be read (${(e as { code?: string }).code ?? "error"})`,
    );
  } finally {
    closeSync(fd);
  }
}

/** One request to Most; a 2xx JSON answer is the result. */
export async function callMost(
  tool: string,
  method: "GET" | "POST",
  path: string,
  body: unknown,
  ctx: ToolContext,
): Promise<Outcome<unknown>> {
  if (!ctx.most || !ctx.http)
    return refuse("most.unavailable", "Most is not configured: set MOST_SERVICE_TOKEN_FILE and MOST_SERVICE_URL");
  const token = readToken(ctx.most.tokenFile);
  if (!token.ok) return token;
  return operatorJson(
    ctx.http,
    {
      base: ctx.most.url,
      path,
      method,
      token: token.value,
      body,
      maxBytes: MAX_BYTES,
      timeoutMs: TIMEOUT_MS,
      signal: ctx.signal,
    },
    {
      who: `${tool}: Most`,
      codes: { status: "most.status", tooLarge: "most.invalid_response", notJson: "most.invalid_response" },
    },
  );
}

/** Records the ids a Most answer carries (chat_id, message_id) as created resources. */
export function recordIds(tool: string, answer: unknown, ctx: ToolContext): void {
  if (typeof answer !== "object" || answer === null) return;
  const a = answer as Record<string, unknown>;
  for (const [key, kind] of [
    ["chat_id", "chat"],
    ["message_id", "message"],
  ] as const) {
    const v = a[key];
    if (typeof v === "string" || typeof v === "number") ctx.created?.(tool, kind, String(v));
  }
}
