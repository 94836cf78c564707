// MCP transports toolgate owns: newline-delimited JSON-RPC over a child's pipes (the child is
// started by the launcher, never by the SDK), the errors that stand in for answers it will not hand
// the SDK as they came, and the mark that tells an error the SDK's client received from one it made.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isObject, isRequestId, RELATED_TASK } from "./envelope.ts";
import { jsonLines, type Dropped } from "../result/ndjson.ts";
import { answerOf } from "./lines.ts";

export const PINNED_PROTOCOL = "2024-11-05";

/** The largest message read from an MCP server: a line over a pipe, a body or SSE event over HTTP (http-cap.ts). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** The two pipes of a running child, as the launcher hands them out. */
export interface ChildPipes {
  write(data: string): void | Promise<void>;
  readonly stdout: ReadableStream<Uint8Array>;
  /** Close the child's stdin (the first step of a shutdown). */
  endInput(): void;
}

/**
 * In the `data` of the error that stands for an answer the protocol refuses: random per process, never sent anywhere.
 */
export const MALFORMED_MARK = crypto.randomUUID();

/**
 * In the `data` of the error that stands for an answer cut at the message bound (here over a pipe, http-cap.ts over
 * HTTP): random per process.
 */
export const CUT_MARK = crypto.randomUUID();

/** Around the `data` of each error answer the SDK's client received: random per process, never sent anywhere. */
const RECEIVED_MARK = crypto.randomUUID();

/**
 * Set as a transport's `onmessage` before the SDK's client connects to it: the client calls it with
 * each message it receives, before handling the message itself (Protocol.connect chains a handler
 * that was set). An error answer's `data` is wrapped with RECEIVED_MARK, so that an error the
 * server sent (or one toolgate's transports stand in for an answer with) is told apart from the
 * errors the client makes itself with the same codes: -32000 when the connection closes, -32001
 * when its timer fires. A server may send either code as its own.
 */
export function markReceived(message: JSONRPCMessage): void {
  const error = (message as { id?: unknown; error?: unknown }).error;
  if (!("id" in message) || !isObject(error) || (isObject(error.data) && error.data.toolgate === RECEIVED_MARK)) return;
  error.data = { toolgate: RECEIVED_MARK, data: error.data };
}

/**
 * For an error answer the client received (markReceived), the `data` it came with; undefined for an error the client
 * made itself.
 */
export function receivedData(e: unknown): { readonly data: unknown } | undefined {
  const data = (e as { data?: unknown } | null)?.data;
  return isObject(data) && data.toolgate === RECEIVED_MARK ? { data: data.data } : undefined;
}

/**
 * NDJSON over pipes. A line that is not a JSON-RPC message (noise on stdout) is reported
 * through `onNoise` and skipped, never fatal; the stream ending is `onclose`. An answer to a
 * request that the SDK's envelope schema would refuse (and drop, leaving the request to wait out
 * its deadline) is handed on as an error carrying MALFORMED_MARK, which session.ts tells apart
 * from anything a server could send.
 *
 * A line past `maxLineBytes` is dropped unread as it arrives (result/ndjson.ts) and its request fails at
 * once with an error carrying CUT_MARK, as over HTTP (http-cap.ts). Its id is read from the line's
 * first or last bytes, where servers write it (answerOf): from the first as soon as the bound is
 * passed, from the last when the line ends. When it is an answer whose id cannot be
 * read there, every request in flight is failed so: the answer was one of theirs, which one is
 * unknown, and a request left waiting would wait out its whole deadline for an answer that came.
 * A dropped request or notification of the server's fails nothing (it answered none of ours).
 */
export class PipeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  #closed = false;
  #resolveClosed!: () => void;
  /** Resolves once the pipe is closed (the child's stdout ended, or close() was called): a supervisor watches it. */
  readonly closed = new Promise<void>((res) => {
    this.#resolveClosed = res;
  });
  /**
   * Requests sent and neither answered nor cancelled yet, by id, with their method: the ones a dropped answer may
   * fail.
   */
  readonly #pending = new Map<string | number, string>();
  /** Set while an answer is dropped whose request already failed (its id came first), until its line ends. */
  #failedEarly = false;

  constructor(
    private readonly pipes: ChildPipes,
    private readonly onNoise: (line: string) => void = () => {},
    private readonly maxLineBytes = MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    void this.#pump();
  }

  async #pump(): Promise<void> {
    const push = jsonLines(this.maxLineBytes, (v, line) => this.#message(v, line), {
      invalid: (line) => this.onNoise(line),
      dropped: (d) => this.#dropped(d),
      passed: (head) => this.#passed(head),
    });
    try {
      for await (const chunk of this.pipes.stdout) push(chunk);
    } catch (e) {
      this.onerror?.(e as Error);
    }
    this.#finish();
  }

  /**
   * A line just passed the bound: an answer whose id comes first fails its request now, while the rest is still
   * dropped.
   */
  #passed(head: string): void {
    const said = answerOf({ head, tail: "" });
    if (said.answer && said.id !== undefined) {
      this.#failedEarly = true;
      this.#cut(said.id);
    }
  }

  /** A line past the bound, dropped: the request it answered fails now (or, its id unread, every request in flight). */
  #dropped(d: Dropped): void {
    if (this.#failedEarly) {
      this.#failedEarly = false;
      return;
    }
    const said = answerOf(d);
    const bound = sizeOf(this.maxLineBytes);
    if (!said.answer) {
      this.onerror?.(
        new Error(`a line of more than ${bound} from the server was dropped unread (not an answer to a request)`),
      );
      return;
    }
    if (said.id !== undefined) {
      this.#cut(said.id);
      return;
    }
    const inFlight = [...this.#pending];
    this.#pending.clear();
    for (const [id, method] of inFlight) {
      const why =
        inFlight.length === 1
          ? `its answer to ${method} passed ${bound} in one line (the only request in flight; the line's id ` +
            `could not be read); toolgate dropped the line unread`
          : `an answer passed ${bound} in one line while ${inFlight.length} requests were in flight, and its id ` +
            `could not be read: each of them is failed, as it may be the one answered; toolgate dropped ` +
            `the line unread`;
      this.onmessage?.(cutAnswer(id, why));
    }
  }

  #cut(id: string | number): void {
    const method = this.#pending.get(id) ?? "a request";
    this.#pending.delete(id);
    this.onmessage?.(
      cutAnswer(
        id,
        `its answer to ${method} passed ${sizeOf(this.maxLineBytes)} in one line; toolgate dropped the line unread`,
      ),
    );
  }

  #message(msg: unknown, line: string): void {
    if (msg === null || typeof msg !== "object" || (msg as { jsonrpc?: unknown }).jsonrpc !== "2.0") {
      this.onNoise(line);
      return;
    }
    const m = msg as Record<string, unknown>;
    if (!("method" in m) && isRequestId(m.id)) this.#pending.delete(m.id);
    this.onmessage?.(malformedStandIn(m) ?? (m as JSONRPCMessage));
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#resolveClosed();
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error("the server's pipe is closed");
    const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
    if (typeof m.method === "string") {
      if (isRequestId(m.id)) this.#pending.set(m.id, m.method);
      else if (m.method === "notifications/cancelled" && isRequestId(m.params?.requestId))
        this.#pending.delete(m.params.requestId);
    }
    await this.pipes.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    this.pipes.endInput();
    this.#finish();
  }
}

/**
 * The error that stands for an answer dropped past the bound: CUT_MARK and toolgate's words, never a byte of the
 * answer.
 */
const cutAnswer = (id: string | number, message: string): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  error: { code: -32603, message, data: { toolgate: CUT_MARK } },
});

const MiB = 1024 * 1024;
const sizeOf = (bytes: number) => (bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`);

/**
 * For an answer to a request (an id, and a result or an error) that the SDK's envelope schema
 * certainly refuses, where and how in toolgate's words (never a key or value of the answer);
 * otherwise null (the SDK decides). Only refusals it is sure of: a stricter check here would turn
 * an answer the SDK takes into an error.
 */
export function refusedAnswer(m: Record<string, unknown>): string | null {
  if (!isRequestId(m.id) || !("result" in m || "error" in m)) return null;
  if (Object.keys(m).some((k) => k !== "jsonrpc" && k !== "id" && k !== "result" && k !== "error"))
    return "the answer: a key the protocol does not allow";
  if ("result" in m && "error" in m) return "the answer: both a result and an error";
  if ("error" in m)
    return isObject(m.error) && Number.isSafeInteger(m.error.code) && typeof m.error.message === "string"
      ? null
      : "error: not a JSON-RPC error";
  if (!isObject(m.result)) return "result: expected object";
  const meta = m.result._meta;
  if (meta !== undefined && !isObject(meta)) return "result._meta: expected object";
  if (meta !== undefined && "progressToken" in meta && !isRequestId(meta.progressToken))
    return "result._meta.progressToken: expected string or integer";
  const task = meta?.[RELATED_TASK];
  if (task !== undefined && !(isObject(task) && typeof task.taskId === "string"))
    return `result._meta["${RELATED_TASK}"]: expected an object with a string taskId`;
  return null;
}

/**
 * The error that stands for an answer the SDK's envelope schema would refuse (refusedAnswer): it
 * carries MALFORMED_MARK and toolgate's words for where and how. Null for anything else. Used on
 * each line of a pipe and each SSE event over HTTP (http-cap.ts), before the SDK sees them.
 */
export function malformedStandIn(m: Record<string, unknown>): JSONRPCMessage | null {
  const refused = refusedAnswer(m);
  return refused === null
    ? null
    : {
        jsonrpc: "2.0",
        id: m.id as string | number,
        error: { code: -32603, message: refused, data: { toolgate: MALFORMED_MARK } },
      };
}
