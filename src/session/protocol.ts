// The session's wire: one JSON object per line over its Unix socket. The client's first line is a
// request; the session answers with output frames and ends with an exit code or "run it cold".

import type { Question } from "../permission/prompt.ts";
import { jsonLines } from "../result/ndjson.ts";
import type { InterruptSignal } from "../result/result.ts";

export type Request =
  | {
      readonly t: "call";
      readonly v: string;
      /** The whole argv, global flags included, as the client got it. */
      readonly argv: readonly string[];
      readonly cwd: string;
      /**
       * The few variables of the client's that decide a cold call's config and prompting, the trace it continues,
       * and its terminal's width (`tools`).
       */
      readonly env: {
        readonly TOOLGATE_CONFIG?: string;
        readonly CI?: string;
        readonly TRACEPARENT?: string;
        readonly TRACESTATE?: string;
        readonly COLUMNS?: string;
      };
      readonly tty: boolean;
      /** The client can ask at its own terminal (one is there, no --no-prompt, no CI): prompts go there. */
      readonly prompt?: boolean;
    }
  | { readonly t: "status" | "stop"; readonly v: string };

/**
 * From the client during a call: its stdin (when asked for), the answer to a question, or Ctrl-C (with the signal
 * the client got).
 */
export type ClientFrame =
  | { readonly t: "stdin"; readonly d: string }
  | { readonly t: "answer"; readonly a: string | null }
  | { readonly t: "cancel"; readonly s?: InterruptSignal };

export type Answer =
  | { readonly t: "o"; readonly d: string } // stdout
  | { readonly t: "e"; readonly d: string } // stderr
  | { readonly t: "i" } // the call reads stdin: send it
  | { readonly t: "q"; readonly q: Question } // ask this at your terminal, answer with "answer"
  | { readonly t: "x"; readonly code: number } // done
  | { readonly t: "c"; readonly why: string } // not this session's: run cold
  | { readonly t: "s"; readonly status: unknown }; // status / stop

/**
 * The most one frame may take: far past anything a call sends (its stdin, its output), a bound only
 * against a peer that never ends its line. A longer frame is dropped, like a line that is not JSON.
 */
const MAX_FRAME_BYTES = 256 * 1024 * 1024;

/**
 * Splits a stream of bytes into JSON lines (result/ndjson.ts); a blank or broken line, or a frame whose handler
 * throws, is ignored.
 */
export function lineReader(onLine: (value: unknown) => void): (chunk: Uint8Array) => void {
  return jsonLines(MAX_FRAME_BYTES, (value) => {
    try {
      onLine(value);
    } catch {
      // not ours: ignored
    }
  });
}

/** A socket's writer that keeps order and waits out a full buffer (Bun writes what fits and says how much). */
export class Outbox {
  private pending: Uint8Array[] = [];
  private readonly encoder = new TextEncoder();
  constructor(private readonly sock: { write(d: Uint8Array): number }) {}

  send(frame: unknown): void {
    this.pending.push(this.encoder.encode(`${JSON.stringify(frame)}\n`));
    if (this.pending.length === 1) this.drain();
  }

  /** Call from the socket's drain handler too. */
  drain(): void {
    while (this.pending.length > 0) {
      const head = this.pending[0]!;
      const n = this.sock.write(head);
      if (n < head.length) {
        this.pending[0] = head.subarray(Math.max(0, n));
        return;
      }
      this.pending.shift();
    }
  }

  get idle(): boolean {
    return this.pending.length === 0;
  }
}

/** What a running session answers to `status` (`toolgate session status`). */
export interface Status {
  pid: number;
  version: string;
  workspace: string;
  /** Where it listens (session/where.ts). */
  socket: string;
  config: string | null;
  uptime_secs: number;
  idle_secs: number;
  calls: number;
  in_flight: number;
  rss_bytes: number;
  /**
   * Full collections run once idle (half a second after a burst of calls): what is left is the memory it holds while
   * it waits.
   */
  idle_collections: number;
  /**
   * Full collections run between calls after the 1st, 2nd, 4th, 8th, ... call (what the first calls loaded left the
   * most garbage).
   */
  early_collections: number;
  servers: { name: string; pid: number | null }[];
  env_bound: string[];
}
