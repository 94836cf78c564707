// Protobuf's wire primitives for the OTLP request writer (protobuf.ts), each writing the bytes the
// official ProtobufWriter (@opentelemetry/otlp-transformer) writes for the same value: varints
// (negative and past 32 bits as it does), fixed32/64, doubles, UTF-8 strings, hex ids, and
// length-delimited messages (one byte reserved for the length, the message moved when it needs more).
export const utf8 = new TextEncoder();

/** A growing byte buffer with protobuf's primitives (as the official ProtobufWriter writes them). */
export class Writer {
  // A Buffer: ids and strings are written into it natively (hex, UTF-8), not byte by byte.
  buf = Buffer.allocUnsafe(16_384);
  pos = 0;
  private view = new DataView(this.buf.buffer, this.buf.byteOffset);

  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset);
  }
  varint(value: number): void {
    this.room(10);
    if (value >= 0 && value < 0x80) {
      this.buf[this.pos++] = value;
      return;
    }
    if (value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0;
      while (v > 0x7f) {
        this.buf[this.pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      this.buf[this.pos++] = v;
      return;
    }
    // Beyond 32 bits, or negative (two's complement, ten bytes): as the official writer does.
    const abs = Math.abs(value);
    let low = abs >>> 0;
    let high = (abs / 0x100000000) >>> 0;
    if (value < 0) {
      low = ~low >>> 0;
      high = ~high >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    while (high > 0 || low > 0x7f) {
      this.buf[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    this.buf[this.pos++] = low & 0x7f;
  }
  tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }
  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.raw(b);
  }
  raw(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  string(s: string): void {
    const n = Buffer.byteLength(s, "utf8");
    this.varint(n);
    this.room(n);
    this.pos += this.buf.write(s, this.pos, n, "utf8");
  }
  fixed32(v: number): void {
    this.room(4);
    this.view.setUint32((this.pos += 4) - 4, v >>> 0, true);
  }
  double(v: number): void {
    this.room(8);
    this.view.setFloat64((this.pos += 8) - 8, v, true);
  }
  /** Nanoseconds since the epoch of an [seconds, nanos] time, as a fixed64 (the official arithmetic). */
  hrTime(t: readonly [number, number]): void {
    const [seconds, nanos] = t;
    const lower = (seconds & 0xffff) * 1e9;
    const upper = ((seconds / 0x10000) >>> 0) * 1e9;
    const low = (lower >>> 0) + (((upper & 0xffff) * 0x10000) >>> 0) + nanos;
    const high = (Math.floor(lower / 0x100000000) + ((upper / 0x10000) >>> 0) + Math.floor(low / 0x100000000)) >>> 0;
    this.room(8);
    this.view.setUint32(this.pos, low >>> 0, true);
    this.view.setUint32(this.pos + 4, high, true);
    this.pos += 8;
  }
  /** Ids are lowercase hex (src/telemetry/context.ts; checked by `plain`): the bytes they spell. */
  hexId(field: number, id: string): void {
    this.tag(field, 2);
    this.varint(id.length / 2);
    this.room(id.length / 2);
    this.pos += this.buf.write(id, this.pos, id.length / 2, "hex");
  }
  /** Reserves a length byte; `end` writes the length there, moving the message when it needs more. */
  start(): number {
    this.room(1);
    return this.pos++;
  }
  end(at: number): void {
    const length = this.pos - at - 1;
    const size = varintSize(length);
    if (size > 1) {
      this.room(size - 1);
      this.buf.copyWithin(at + size, at + 1, this.pos);
      this.pos += size - 1;
    }
    let v = length;
    let p = at;
    while (v > 0x7f) {
      this.buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[p] = v;
  }
}

const varintSize = (v: number): number => (v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5);
