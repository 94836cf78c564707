// Newline-delimited JSON, the one reader every line protocol here uses: an MCP server's stdout
// (mcp/transport.ts), serve's stdin (serve/stdio.ts) and the session socket (session/protocol.ts).
// Bytes are split at LF and a line is decoded once whole (so a character split between chunks is
// read whole), its CR dropped, empty lines skipped. A line past the bound is dropped as it
// arrives, never held: only its first and last bytes are kept, enough for a reader to tell what it
// was (mcp/lines.ts reads whose answer), and its reader hears of it as the bound is passed and
// again as the line ends.

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
    // Line ends are found natively (indexOf), not byte by byte: a cold call reads its answers before the JIT warms up.
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
    if (this.#dropping) {
      this.#dropping.add(piece);
      return;
    }
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
      this.dropped(dropping.done(this.#decoder));
      return;
    }
    const parts = this.#parts;
    if (parts.length === 0) return;
    let bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, this.#size);
    this.#parts = [];
    this.#size = 0;
    if (bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
    if (bytes.length === 0) return;
    this.line(this.#decoder.decode(bytes));
  }
}

/** What a JSON line reader hears besides values: a line that is not JSON, or one past the bound. */
export interface JsonLineEvents {
  /** A whole line (under the bound, not blank) that JSON.parse refused, with its error. */
  readonly invalid?: (line: string, error: Error) => void;
  /** A line past the bound, once it ended: its edges. */
  readonly dropped?: (d: Dropped) => void;
  /** A line past the bound, as the bound is passed (the rest still to come): its first bytes. */
  readonly passed?: (head: string) => void;
}

/**
 * Reads JSON values, one a line, of at most `max` bytes each: `value` gets each parsed value with
 * its line. A blank line is skipped; a line that is not JSON goes to `invalid`, one past the
 * bound to `passed` and `dropped` (each skipped when not given). Returns the function to push chunks into.
 */
export function jsonLines(
  max: number,
  value: (v: unknown, line: string) => void,
  on: JsonLineEvents = {},
): (chunk: Uint8Array) => void {
  const reader = new LineReader(
    max,
    (line) => {
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch (e) {
        if (line.trim() !== "") on.invalid?.(line, e as Error);
        return;
      }
      value(v, line);
    },
    on.dropped ?? (() => {}),
    on.passed,
  );
  return (chunk) => reader.push(chunk);
}
