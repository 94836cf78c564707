// serve's stdio transport: newline-delimited JSON-RPC, stdin in and the claimed stdout out, as the
// SDK's StdioServerTransport, without first parsing every message against the SDK's JSON-RPC
// schema: the protocol layer tells requests, notifications and responses apart itself (a message
// that is none of them is reported there, like a line that is not JSON), so that parse was a
// second check of every message, the costliest step of reading one.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { StdoutSink } from "./stdout.ts";

/** The most one message may take (the SDK's own bound): past it the buffer is dropped and the transport closes. */
const MAX_BUFFER_BYTES = 10 * 1024 * 1024;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #buffer: Buffer | undefined;
  #started = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream,
    private readonly stdout: StdoutSink,
  ) {}

  readonly #onData = (chunk: Buffer) => {
    const size = (this.#buffer?.length ?? 0) + chunk.length;
    if (size > MAX_BUFFER_BYTES) {
      this.#buffer = undefined;
      this.onerror?.(new Error(`a message over ${MAX_BUFFER_BYTES} bytes`));
      void this.close();
      return;
    }
    this.#buffer = this.#buffer ? Buffer.concat([this.#buffer, chunk]) : chunk;
    for (let nl = this.#buffer.indexOf(10); nl >= 0; nl = this.#buffer.indexOf(10)) {
      const line = this.#buffer.toString("utf8", 0, nl > 0 && this.#buffer[nl - 1] === 13 ? nl - 1 : nl);
      this.#buffer = this.#buffer.subarray(nl + 1);
      try {
        this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
      } catch (e) {
        this.onerror?.(e as Error);
      }
    }
    if (this.#buffer.length === 0) this.#buffer = undefined;
  };

  readonly #onError = (error: Error) => this.onerror?.(error);

  async start(): Promise<void> {
    if (this.#started) throw new Error("the stdio transport is already started");
    this.#started = true;
    this.stdin.on("data", this.#onData);
    this.stdin.on("error", this.#onError);
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.#onData);
    this.stdin.off("error", this.#onError);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.#buffer = undefined;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once("drain", resolve);
    });
  }
}
