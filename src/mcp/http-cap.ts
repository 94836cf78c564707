// MCP over HTTP read under the same bound as a stdio line: at most MAX_MESSAGE_BYTES per message,
// counted while the bytes arrive. An SSE stream is passed on one whole event at a time; a JSON (or
// any other) body is read up to the bound. Past it, reading stops (the rest is never received) and
// the request is answered with a JSON-RPC error carrying CUT_MARK, which session.ts tells apart
// from anything a server could send. An SSE event holding an answer whose envelope the SDK refuses
// is handed on as transport.ts's stand-in for it, as over a pipe (the SDK would drop the event).
// A log message on the stream of a POST that carried one request is marked with that request's id
// (RELATED_MARK), which session.ts reads and removes: the line belongs to that request's call.
import type { PolicyFetch } from "./connection.ts";
import { isObject } from "./envelope.ts";
import { CUT_MARK, MAX_MESSAGE_BYTES, malformedStandIn } from "./transport.ts";

/**
 * The params key that carries, on a log message, the id of the request on whose stream it came:
 * random per process, so no server can send it.
 */
export const RELATED_MARK = `toolgate-related-${crypto.randomUUID()}`;

/** Statuses whose response may carry no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

type Id = string | number;

/** The requests a POST carried (their ids and methods): the ones a cut answer fails. */
function requestsOf(body: unknown): { id: Id; method: string }[] {
  if (typeof body !== "string" || body === "") return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m: { id?: unknown; method?: unknown }) =>
      (typeof m?.id === "string" || typeof m?.id === "number") && typeof m.method === "string"
        ? [{ id: m.id, method: m.method }]
        : [],
    );
  } catch {
    return [];
  }
}

const cutError = (r: { id: Id; method: string }, max: number) => ({
  jsonrpc: "2.0",
  id: r.id,
  error: {
    code: -32603,
    message:
      `its answer to ${r.method} passed ${max / (1024 * 1024)} MiB in one message; toolgate stopped ` +
      `reading it there`,
    data: { toolgate: CUT_MARK },
  },
});

/** `base` with every response body read under `max` bytes per message. */
export function cappedFetch(base: PolicyFetch, max = MAX_MESSAGE_BYTES): PolicyFetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.body === null || NULL_BODY.has(response.status)) return response;
    const requests = requestsOf(init?.body);
    const sse =
      (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase() === "text/event-stream";
    const body = sse
      ? sseCapped(response.body, max, requests, requests.length === 1 ? requests[0]!.id : undefined)
      : await bodyCapped(response, max, requests);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** The whole body up to `max`; past it, the requests' cut errors as JSON (or, with none, the first `max` bytes). */
async function bodyCapped(
  response: Response,
  max: number,
  requests: readonly { id: Id; method: string }[],
): Promise<Uint8Array | string> {
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > max) {
      chunks.push(value.subarray(0, max - size));
      await reader.cancel().catch(() => {});
      if (response.ok && requests.length > 0) {
        const errors = requests.map((r) => cutError(r, max));
        return JSON.stringify(errors.length === 1 ? errors[0] : errors);
      }
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return Buffer.concat(chunks);
}

const CR = 13;
const LF = 10;

/**
 * Passes an SSE stream on whole events (an event ends at an empty line: LF, CR or CRLF). An
 * event past `max` is dropped unread, the upstream body cancelled, and the POST's requests
 * answered by cut errors, so a call fails at once instead of waiting out its deadline. `related`:
 * the one request the POST carried, whose id its log messages are marked with.
 */
function sseCapped(
  body: ReadableStream<Uint8Array>,
  max: number,
  requests: readonly { id: Id; method: string }[],
  related: Id | undefined,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let held: Uint8Array[] = [];
  let eventBytes = 0;
  let lineBytes = 0;
  let lastCR = false;
  const decoder = new TextDecoder();
  const cut = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    held = [];
    await reader.cancel().catch(() => {});
    const encoder = new TextEncoder();
    for (const r of requests)
      controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(cutError(r, max))}\n\n`));
    controller.close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          for (const h of held) controller.enqueue(h);
          held = [];
          controller.close();
          return;
        }
        // End of the last whole event in this chunk (-1: none). Line ends are found natively
        // (indexOf), not byte by byte: a cold call reads its server's answers before the JIT warms up.
        let end = -1;
        let nextLF = value.indexOf(LF);
        let nextCR = value.indexOf(CR);
        for (let i = 0; ; ) {
          if (nextLF !== -1 && nextLF < i) nextLF = value.indexOf(LF, i);
          if (nextCR !== -1 && nextCR < i) nextCR = value.indexOf(CR, i);
          const t = nextLF === -1 ? nextCR : nextCR === -1 ? nextLF : Math.min(nextLF, nextCR);
          if (t === -1) {
            if (i < value.length) {
              lineBytes += value.length - i;
              eventBytes += value.length - i;
              lastCR = false;
            }
            break;
          }
          if (t > i) {
            lineBytes += t - i;
            lastCR = false;
          }
          eventBytes += t - i + 1;
          i = t + 1;
          if (value[t] === LF && lastCR) {
            // The LF of a CRLF: the line ended at the CR; an event ending there takes the LF too.
            lastCR = false;
            if (end === t) end = t + 1;
            continue;
          }
          lastCR = value[t] === CR;
          if (lineBytes === 0) {
            if (eventBytes > max) return cut(controller);
            end = t + 1;
            eventBytes = 0;
          }
          lineBytes = 0;
        }
        if (eventBytes > max) return cut(controller);
        if (end < 0) {
          held.push(value);
          continue;
        }
        // One chunk per whole event (or run of events), as the parser will take it.
        controller.enqueue(
          standingIn(
            held.length === 0 ? value.subarray(0, end) : Buffer.concat([...held, value.subarray(0, end)]),
            decoder,
            related,
          ),
        );
        held = end < value.length ? [value.subarray(end)] : [];
        return;
      }
    },
    cancel: (reason) => reader.cancel(reason).catch(() => {}),
  });
}

/**
 * `events` (whole SSE events: the parser's state ends with each) with every answer whose envelope
 * the SDK refuses replaced by its stand-in, and each log message marked with `related` (when
 * given), the event's other fields kept; the same bytes when there is neither. Events are read as
 * the SDK's parser reads them: a `data` field per line, joined by LF; only an event of type
 * `message` (or none) with data is a message. `decoder` is the stream's (a BOM is dropped at its
 * start only, as the SDK's decoder does).
 */
function standingIn(events: Uint8Array, decoder: TextDecoder, related: Id | undefined): Uint8Array {
  const lines = decoder.decode(events, { stream: true }).split(/\r\n|\r|\n/);
  let changed = false;
  let start = 0;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== "") continue;
    const fields = lines.slice(start, i).map((line) => {
      const colon = line.indexOf(":");
      return colon < 0
        ? [line, ""]
        : [line.slice(0, colon), line.slice(colon + (line.charCodeAt(colon + 1) === 32 ? 2 : 1))];
    });
    const type = fields.findLast(([f]) => f === "event")?.[1] ?? "";
    const data = fields
      .filter(([f]) => f === "data")
      .map(([, v]) => v)
      .join("\n");
    const instead = data !== "" && (type === "" || type === "message") ? replaced(data, related) : null;
    if (instead !== null) {
      changed = true;
      const kept = lines.slice(start, i).filter((_, j) => fields[j]![0] !== "data");
      lines.splice(start, i - start, ...kept, `data: ${JSON.stringify(instead)}`);
      i = start + kept.length + 1;
    }
    start = i + 1;
  }
  return changed ? new TextEncoder().encode(lines.join("\n")) : events;
}

/**
 * What an event's message is handed on as: its stand-in, or itself marked as `related`'s log message; null: as it is.
 */
function replaced(data: string, related: Id | undefined): object | null {
  let m: unknown;
  try {
    m = JSON.parse(data);
  } catch {
    return null;
  }
  if (!isObject(m)) return null;
  if (related !== undefined && m.method === "notifications/message" && !("id" in m) && isObject(m.params))
    return { ...m, params: { ...m.params, [RELATED_MARK]: related } };
  return malformedStandIn(m);
}
