// A loopback OTLP/HTTP receiver for the tests: Bun.serve on port 0 keeps every request's raw bytes
// and decodes its spans, from http/json or from http/protobuf (read by field number, after the
// OTLP protobuf definitions: opentelemetry/proto/collector/trace/v1 and trace/v1, common/v1).

export type Value = string | number | boolean | null;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly traceState: string;
  readonly name: string;
  readonly kind: number;
  readonly start: number;
  readonly end: number;
  readonly attributes: Record<string, Value>;
  readonly status: { readonly code: number; readonly message: string };
  readonly resource: Record<string, Value>;
}

export interface Received {
  readonly at: number;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly contentType: string;
  readonly bytes: Uint8Array;
  readonly spans: ReceivedSpan[];
}

export interface Receiver extends AsyncDisposable {
  readonly port: number;
  readonly url: string;
  readonly requests: Received[];
  spans(): ReceivedSpan[];
  /** Resolves once `n` spans arrived, or rejects after `ms`. */
  waitFor(n: number, ms?: number): Promise<ReceivedSpan[]>;
}

/** `answer`: the status to reply with (default 200); `hang`: never answer. */
export function receiver(opts: { answer?: number; hang?: boolean } = {}): Receiver {
  const requests: Received[] = [];
  const waiters: (() => void)[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const bytes = new Uint8Array(await req.arrayBuffer());
      const contentType = req.headers.get("content-type") ?? "";
      const plain = req.headers.get("content-encoding") === "gzip" ? Bun.gunzipSync(bytes) : bytes;
      const spans = contentType.includes("json")
        ? fromJson(JSON.parse(new TextDecoder().decode(plain)))
        : fromProtobuf(plain);
      requests.push({
        at: Date.now(),
        path: new URL(req.url).pathname,
        headers: Object.fromEntries(req.headers),
        contentType,
        bytes: plain,
        spans,
      });
      for (const w of waiters.splice(0)) w();
      if (opts.hang) return new Promise<Response>(() => {});
      return new Response(contentType.includes("json") ? "{}" : new Uint8Array(0), {
        status: opts.answer ?? 200,
        headers: { "content-type": contentType },
      });
    },
  });
  const all = () => requests.flatMap((r) => r.spans);
  return {
    port: server.port!,
    url: `http://127.0.0.1:${server.port}`,
    requests,
    spans: all,
    async waitFor(n, ms = 10_000) {
      const until = Date.now() + ms;
      while (all().length < n) {
        const left = until - Date.now();
        if (left <= 0) throw new Error(`expected ${n} spans, received ${all().length}`);
        await new Promise<void>((res) => {
          const t = setTimeout(res, left);
          waiters.push(() => (clearTimeout(t), res()));
        });
      }
      return all();
    },
    [Symbol.asyncDispose]: async () => void server.stop(true),
  };
}

// ---- http/json (OTLP's JSON mapping: ids as hex, 64-bit integers as strings)

function fromJson(body: any): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs: any) => {
    const resource = attrsJson(rs.resource?.attributes);
    return (rs.scopeSpans ?? []).flatMap((ss: any) =>
      (ss.spans ?? []).map((s: any) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? "",
        traceState: s.traceState ?? "",
        name: s.name,
        kind: s.kind,
        start: Number(BigInt(s.startTimeUnixNano) / 1_000_000n),
        end: Number(BigInt(s.endTimeUnixNano) / 1_000_000n),
        attributes: attrsJson(s.attributes),
        status: { code: s.status?.code ?? 0, message: s.status?.message ?? "" },
        resource,
      })),
    );
  });
}

function attrsJson(list: any[] | undefined): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const kv of list ?? []) {
    const v = kv.value ?? {};
    out[kv.key] =
      v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue ?? null));
  }
  return out;
}

// ---- http/protobuf: the wire format, read by field number

type Field = { n: number; wire: number; int?: bigint; bytes?: Uint8Array };

function fields(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let i = 0;
  const varint = (): bigint => {
    let r = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = buf[i++]!;
      r |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return r;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const n = key >> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ n, wire, int: varint() });
    else if (wire === 1 || wire === 5) {
      const len = wire === 1 ? 8 : 4;
      const view = new DataView(buf.buffer, buf.byteOffset + i, len);
      out.push({
        n,
        wire,
        int: wire === 1 ? view.getBigUint64(0, true) : BigInt(view.getUint32(0, true)),
        bytes: buf.subarray(i, i + len),
      });
      i += len;
    } else if (wire === 2) {
      const len = Number(varint());
      out.push({ n, wire, bytes: buf.subarray(i, i + len) });
      i += len;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

const text = (b?: Uint8Array) => new TextDecoder().decode(b ?? new Uint8Array(0));
const hexOf = (b?: Uint8Array) => Buffer.from(b ?? []).toString("hex");
const all = (fs: Field[], n: number) => fs.filter((f) => f.n === n);
const one = (fs: Field[], n: number) => fs.find((f) => f.n === n);

function anyValue(buf: Uint8Array): Value {
  const f = fields(buf)[0];
  if (!f) return null;
  if (f.n === 1) return text(f.bytes);
  if (f.n === 2) return f.int === 1n;
  if (f.n === 3) return Number(BigInt.asIntN(64, f.int!));
  if (f.n === 4) return new DataView(f.bytes!.buffer, f.bytes!.byteOffset, 8).getFloat64(0, true);
  return null;
}

function attrsProto(list: Field[]): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const kv of list) {
    const f = fields(kv.bytes!);
    out[text(one(f, 1)?.bytes)] = anyValue(one(f, 2)?.bytes ?? new Uint8Array(0));
  }
  return out;
}

function fromProtobuf(buf: Uint8Array): ReceivedSpan[] {
  return all(fields(buf), 1).flatMap((rsF) => {
    const rs = fields(rsF.bytes!);
    const resource = attrsProto(all(fields(one(rs, 1)?.bytes ?? new Uint8Array(0)), 1));
    return all(rs, 2).flatMap((ssF) =>
      all(fields(ssF.bytes!), 2).map((sF) => {
        const s = fields(sF.bytes!);
        const status = fields(one(s, 15)?.bytes ?? new Uint8Array(0));
        return {
          traceId: hexOf(one(s, 1)?.bytes),
          spanId: hexOf(one(s, 2)?.bytes),
          traceState: text(one(s, 3)?.bytes),
          parentSpanId: hexOf(one(s, 4)?.bytes),
          name: text(one(s, 5)?.bytes),
          kind: Number(one(s, 6)?.int ?? 0n),
          start: Number((one(s, 7)?.int ?? 0n) / 1_000_000n),
          end: Number((one(s, 8)?.int ?? 0n) / 1_000_000n),
          attributes: attrsProto(all(s, 9)),
          status: { code: Number(one(status, 3)?.int ?? 0n), message: text(one(status, 2)?.bytes) },
          resource,
        };
      }),
    );
  });
}
