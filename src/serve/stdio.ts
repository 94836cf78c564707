// serve's stdio transport: newline-delimited JSON-RPC, stdin in and the claimed stdout out, as the
// SDK's StdioServerTransport, without first parsing every message against the SDK's JSON-RPC
// schema: the protocol layer tells requests, notifications and responses apart itself (a message
// that is none of them is reported there, like a line that is not JSON), so that parse was a
// second check of every message, the costliest step of reading one.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { jsonLines } from "../result/ndjson.ts";
import type { StdoutSink } from "./stdout.ts";

/** The most one message may take (the SDK's own bound): past it the line is dropped and the transport closes. */
const MAX_BUFFER_BYTES = 10 * 1024 * 1024;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * The reader of stdin's lines (result/ndjson.ts) while started: cleared by close, so nothing read after is handed
   * on.
   */
  #push: ((chunk: Uint8Array) => void) | undefined;
  #started = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream,
    private readonly stdout: StdoutSink,
  ) {}

  readonly #onData = (chunk: Buffer) => this.#push?.(chunk);

  #message(message: unknown): void {
    if (!this.#push) return;
    try {
      this.onmessage?.(message as JSONRPCMessage);
    } catch (e) {
      this.onerror?.(e as Error);
    }
  }

  readonly #onError = (error: Error) => this.onerror?.(error);

  async start(): Promise<void> {
    if (this.#started) throw new Error("the stdio transport is already started");
    this.#started = true;
    this.#push = jsonLines(MAX_BUFFER_BYTES, (v) => this.#message(v), {
      invalid: (_line, e) => this.onerror?.(e),
      passed: () => {
        this.onerror?.(new Error(`a message over ${MAX_BUFFER_BYTES} bytes`));
        void this.close();
      },
    });
    this.stdin.on("data", this.#onData);
    this.stdin.on("error", this.#onError);
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.#onData);
    this.stdin.off("error", this.#onError);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.#push = undefined;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once("drain", resolve);
    });
  }
}
