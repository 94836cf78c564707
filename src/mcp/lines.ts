// A server's stdout as newline-delimited JSON, read under the message bound (transport.ts's
// PipeTransport): bytes are split at LF and a line is decoded once whole. A line past the bound is
// dropped as it arrives, never held: only its first and last bytes are kept, enough to tell whose
// answer it was (answerOf), so that request fails at once instead of waiting out its deadline:
// as the bound is passed when the line's start names it, else when the line ends.

const LF = 10;
const CR = 13;
/** How much of a dropped line's start and end is kept: room for `"jsonrpc":"2.0"` and an id beside it. */
const EDGE_BYTES = 1024;

/** What is left of a line dropped past the bound: its first and last EDGE_BYTES, decoded. */
export interface Dropped {
  readonly head: string;
  readonly tail: string;
}

/** The edges of a line being dropped: its first bytes as they came, its last ones rolling. */
class Edges {
  readonly #head = new Uint8Array(EDGE_BYTES);
  #headBytes = 0;
  #tail = new Uint8Array(0);

  add(piece: Uint8Array): void {
    if (this.#headBytes < EDGE_BYTES) {
      const n = Math.min(EDGE_BYTES - this.#headBytes, piece.length);
      this.#head.set(piece.subarray(0, n), this.#headBytes);
      this.#headBytes += n;
    }
    // A copy (slice): nothing of the chunk it came in is kept alive by it.
    if (piece.length >= EDGE_BYTES) this.#tail = piece.slice(piece.length - EDGE_BYTES);
    else {
      const both = new Uint8Array(Math.min(EDGE_BYTES, this.#tail.length + piece.length));
      const kept = this.#tail.subarray(this.#tail.length - (both.length - piece.length));
      both.set(kept);
      both.set(piece, kept.length);
      this.#tail = both;
    }
  }

  head(decoder: TextDecoder): string {
    return decoder.decode(this.#head.subarray(0, this.#headBytes));
  }

  done(decoder: TextDecoder): Dropped {
    return { head: this.head(decoder), tail: decoder.decode(this.#tail) };
  }
}

/**
 * Splits a byte stream into lines (their CR LF removed) of at most `max` bytes. A longer one is
 * dropped unread: `passed` hears its start as the bound is passed (the rest still to come), and
 * `dropped` its edges once it ends.
 */
export class LineReader {
  readonly #decoder = new TextDecoder();
  /** The line so far (under the bound), as pieces of the chunks it came in. */
  #parts: Uint8Array[] = [];
  #size = 0;
  /** Set while a line past the bound is being dropped. */
  #dropping: Edges | undefined;

  constructor(
    private readonly max: number,
    private readonly line: (text: string) => void,
    private readonly dropped: (d: Dropped) => void,
    private readonly passed: (head: string) => void = () => {},
  ) {}

  push(chunk: Uint8Array): void {
    // Line ends are found natively (indexOf), not byte by byte: a cold call reads its server's answers before the JIT warms up.
    for (let start = 0; ; ) {
      const nl = chunk.indexOf(LF, start);
      const end = nl < 0 ? chunk.length : nl;
      if (end > start) this.#take(chunk.subarray(start, end));
      if (nl < 0) return;
      this.#end();
      start = nl + 1;
    }
  }

  #take(piece: Uint8Array): void {
    if (this.#dropping) return this.#dropping.add(piece);
    if (this.#size + piece.length <= this.max) {
      this.#parts.push(piece);
      this.#size += piece.length;
      return;
    }
    const edges = (this.#dropping = new Edges());
    for (const p of this.#parts) edges.add(p);
    edges.add(piece);
    this.#parts = [];
    this.#size = 0;
    this.passed(edges.head(this.#decoder));
  }

  #end(): void {
    const dropping = this.#dropping;
    if (dropping) {
      this.#dropping = undefined;
      return this.dropped(dropping.done(this.#decoder));
    }
    const parts = this.#parts;
    if (parts.length === 0) return;
    let bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, this.#size);
    this.#parts = [];
    this.#size = 0;
    if (bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
    this.line(this.#decoder.decode(bytes));
  }
}

/** An id as JSON writes one: an integer or a string. */
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
const VERSION = String.raw`"jsonrpc"\s*:\s*"2\.0"\s*`;
/** The object's first members: `jsonrpc` and `id` in either order (either may be missing), then the first other key. */
const HEAD = new RegExp(
  String.raw`^\s*\{\s*(?:${VERSION},\s*)?(?:"id"\s*:\s*${ID}\s*,\s*)?(?:${VERSION},\s*)?"([^"\\]*)"\s*:`,
);
/** The object's last members: `id`, with `jsonrpc` before or after it, then the object's end. */
const TAIL = new RegExp(String.raw`,\s*(?:${VERSION},\s*)?"id"\s*:\s*${ID}\s*(?:,\s*${VERSION})?\}\s*$`);

/**
 * Whether a dropped line was an answer to a request, and to which (its id, when its edges show it).
 * Servers write an answer's members in their serializer's order: `jsonrpc`, `id`, `result` (the
 * Python SDK, rmcp), or `result`, `jsonrpc`, `id` (the TypeScript SDK): the id is among the first
 * members or the last, and only there is it read (never from inside the result). A line whose
 * first key is `method` or `params` is a request or a notification of the server's; one that is not
 * a JSON object, or starts with any other key, is not a JSON-RPC answer either.
 */
export function answerOf(
  d: Dropped,
): { readonly answer: false } | { readonly answer: true; readonly id?: string | number } {
  const head = HEAD.exec(d.head);
  if (!head || (head[2] !== "result" && head[2] !== "error")) return { answer: false };
  const id = head[1] ?? TAIL.exec(d.tail)?.[1];
  if (id === undefined) return { answer: true };
  try {
    return { answer: true, id: JSON.parse(id) as string | number };
  } catch {
    return { answer: true };
  }
}
