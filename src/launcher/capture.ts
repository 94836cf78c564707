// One output stream of a child, as it is drained: counts bytes and characters, redacts bound
// secrets (also when split across reads), appends the full stream to its artifact and keeps a
// bounded tail. A failing artifact is recorded once and dropped; the stream is still drained.
import type { ArtifactSink, Redactor, StreamReport } from "./types.ts";

/** Characters (code points) of each stream kept for the tail. */
export const TAIL_CHARS = 12_000;
/** Bytes of each stream kept in its artifact (one run left a 3 GB file): past it only a note is added. */
export const ARTIFACT_CAP_BYTES = 64 * 1024 * 1024;
/** Tail pieces are joined and cut back once they hold this many UTF-16 units. */
const COMPACT_AT = TAIL_CHARS * 4;

const LOW_SURROGATE = /[\udc00-\udfff]/g;

/** Code points in decoder output (which holds no lone surrogates): units minus low surrogates. */
export function countChars(text: string): number {
  if (text.length === 0) return 0;
  const lows = text.match(LOW_SURROGATE);
  return text.length - (lows ? lows.length : 0);
}

/** The last `max` code points of `text`, and whether anything was cut. */
export function lastChars(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  let i = text.length;
  for (let n = 0; n < max && i > 0; n++) {
    i--;
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const h = text.charCodeAt(i - 1);
      if (h >= 0xd800 && h <= 0xdbff) i--;
    }
  }
  return { text: text.slice(i), cut: i > 0 };
}

export class StreamCapture {
  readonly #decoder = new TextDecoder("utf-8");
  readonly #encoder = new TextEncoder();
  readonly #redactor: Redactor | null;
  readonly #open: (() => ArtifactSink) | null;
  /** undefined: not opened yet (no output so far); null: failed or closed. */
  #sink: ArtifactSink | null | undefined;
  #path: string | null = null;
  #error: string | null = null;
  #bytes = 0;
  #chars = 0;
  #parts: string[] = [];
  #units = 0;
  #truncated = false;
  readonly #cap: number;
  /** Bytes written to the artifact; past the cap the rest is counted only. */
  #written = 0;
  #cut = false;
  /** Told every redacted piece as it comes (LaunchWatch.output). */
  readonly #listener: ((text: string) => void) | null;

  /**
   * `open` makes the artifact, called at the first output (no output, no file); null keeps none.
   * Without a redactor the artifact gets the raw bytes; with one, the redacted text as UTF-8.
   * The artifact keeps the first `cap` bytes, then a note saying where it was cut and how long the
   * stream was; the tail and the counts always cover the whole stream.
   */
  constructor(
    open: (() => ArtifactSink) | null,
    redactor: Redactor | null,
    cap: number = ARTIFACT_CAP_BYTES,
    listener?: (text: string) => void,
  ) {
    this.#listener = listener ?? null;
    this.#open = open;
    this.#sink = open ? undefined : null;
    this.#redactor = redactor;
    this.#cap = cap;
  }

  /** Whether the artifact stopped at the cap. */
  get artifactCut(): boolean {
    return this.#cut;
  }

  /** The first artifact failure (open, write or close), if any: the stream is drained regardless. */
  get error(): string | null {
    return this.#error;
  }

  /** The artifact's path once it was made, else null. */
  get path(): string | null {
    return this.#path;
  }

  push(chunk: Uint8Array): void {
    this.#bytes += chunk.byteLength;
    const text = this.#decoder.decode(chunk, { stream: true });
    this.#chars += countChars(text);
    if (this.#redactor) {
      const clean = this.#redactor.push(text);
      this.#write(clean);
      this.#append(clean);
    } else {
      this.#writeBytes(chunk);
      this.#append(text);
    }
  }

  /** Ends the stream: flushes the decoder and the redactor, closes the artifact, reports. */
  end(): StreamReport {
    const rest = this.#decoder.decode();
    this.#chars += countChars(rest);
    if (this.#redactor) {
      const clean = this.#redactor.push(rest) + this.#redactor.flush();
      this.#write(clean);
      this.#append(clean);
    } else {
      // The raw bytes are in the artifact already; only the tail shows the decoder's U+FFFD.
      this.#append(rest);
    }
    if (this.#sink && this.#cut) {
      const note =
        `\n[toolgate: this artifact holds the first ${this.#written} bytes of the stream (the cap per ` +
        `stream); the stream had ${this.#bytes} bytes in all, and the result's tail shows its end]\n`;
      this.#writeRaw(this.#encoder.encode(note));
    }
    if (this.#sink) {
      try {
        this.#sink.close();
      } catch (e) {
        this.#fail(e);
      }
    }
    this.#sink = null;
    const { text, cut } = lastChars(this.#parts.join(""), TAIL_CHARS);
    this.#parts = [text];
    this.#units = text.length;
    this.#truncated ||= cut;
    return {
      tail: text,
      bytes: this.#bytes,
      chars: this.#chars,
      truncated: this.#truncated,
      ...(this.#cut ? { artifactCut: true as const } : {}),
    };
  }

  #append(text: string): void {
    if (text.length === 0) return;
    this.#listener?.(text);
    this.#parts.push(text);
    this.#units += text.length;
    if (this.#units < COMPACT_AT) return;
    const { text: kept, cut } = lastChars(this.#parts.join(""), TAIL_CHARS);
    this.#parts = [kept];
    this.#units = kept.length;
    this.#truncated ||= cut;
  }

  #write(text: string): void {
    if (text.length > 0 && this.#sink !== null) this.#writeBytes(this.#encoder.encode(text));
  }

  #writeBytes(bytes: Uint8Array): void {
    if (this.#sink === null || bytes.byteLength === 0 || this.#cut) return;
    const room = this.#cap - this.#written;
    if (bytes.byteLength > room) {
      this.#cut = true;
      bytes = bytes.subarray(0, room);
      if (bytes.byteLength === 0) return;
    }
    this.#written += bytes.byteLength;
    this.#writeRaw(bytes);
  }

  #writeRaw(bytes: Uint8Array): void {
    if (this.#sink === null) return;
    if (this.#sink === undefined) {
      try {
        this.#sink = this.#open!();
        this.#path = this.#sink.path;
      } catch (e) {
        this.#fail(e);
        this.#sink = null;
        return;
      }
    }
    try {
      this.#sink.write(bytes);
    } catch (e) {
      this.#fail(e);
      try {
        this.#sink.close();
      } catch {
        // Already failing: the first error is the one reported.
      }
      this.#sink = null;
    }
  }

  #fail(e: unknown): void {
    this.#error ??= e instanceof Error ? e.message : String(e);
  }
}
