// One JSON exchange with an operator endpoint (the rails, Most): a bearer token, the URL policy's
// operator class (trusted for its address, still scheme-checked), a size cap and a deadline; a
// 2xx JSON answer is the value. The caller names the refusal codes and how the endpoint is called.
import type { HttpClient } from "../../catalog/declare.ts";
import type { Code } from "../../result/codes.ts";
import { refuse, type Outcome } from "../../result/result.ts";

export interface OperatorRequest {
  readonly base: string;
  readonly path: string;
  readonly method: "GET" | "POST";
  readonly token: string;
  readonly body?: unknown;
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

export interface OperatorWords {
  /** How a refusal names the endpoint ("the bank_search endpoint", "most_health: Most"). */
  readonly who: string;
  readonly codes: { readonly status: Code; readonly tooLarge: Code; readonly notJson: Code };
}

export async function operatorJson(
  http: HttpClient,
  req: OperatorRequest,
  words: OperatorWords,
): Promise<Outcome<unknown>> {
  const got = await http.get(`${req.base.replace(/\/+$/, "")}${req.path}`, {
    method: req.method,
    headers: {
      authorization: `Bearer ${req.token}`,
      accept: "application/json",
      ...(req.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
    operatorEndpoint: true,
    maxBytes: req.maxBytes,
    timeoutMs: req.timeoutMs,
    signal: req.signal,
  });
  if (!got.ok) return got;
  const { status, bytes, truncated } = got.value;
  if (status < 200 || status > 299)
    return refuse(words.codes.status, `${words.who} answered HTTP ${status}`, { status });
  if (truncated) return refuse(words.codes.tooLarge, `${words.who} answered more than ${req.maxBytes} bytes`);
  try {
    // A token read per call is not among the boot's secrets: an echo of it is redacted here, before anything sees it.
    return { ok: true, value: JSON.parse(new TextDecoder().decode(bytes).replaceAll(req.token, "[REDACTED]")) };
  } catch {
    return refuse(words.codes.notJson, `${words.who} did not answer JSON`);
  }
}
