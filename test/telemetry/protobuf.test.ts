// toolgate's OTLP/protobuf request writer (src/telemetry/protobuf.ts) against the official serializer
// it stands in for: for any spans, the same bytes. Spans here are the SDK tracer's own (any attribute
// kind the API allows), from several resources and scopes, in batches big enough that lengths take
// several bytes and the buffer grows, and past the attribute cache's bound.
import { describe, expect, test } from "bun:test";
import { createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes } from "@opentelemetry/api";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { withRequestWriter, writeRequest } from "../../src/telemetry/protobuf.ts";
import { spanMaker } from "../../src/telemetry/export.ts";
import { callTrace, type SpanRecord } from "../../src/telemetry/spans.ts";
import type { JournalRow } from "../../src/state/journal.ts";

const hex = (b: Uint8Array | undefined) => Buffer.from(b!).toString("hex");
const official = (spans: ReadableSpan[]) => hex(ProtobufTraceSerializer.serializeRequest(spans));
const ours = (spans: ReadableSpan[]) => hex(writeRequest(spans));
const TraceSerializer = withRequestWriter(ProtobufTraceSerializer);

/** A deterministic generator (the same spans every run). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
}

const VALUES: readonly unknown[] = [
  "",
  "success",
  "execute_tool",
  "é café",
  "日本語のツール",
  "emoji 🧰",
  "lone \ud800 surrogate",
  "x".repeat(127),
  "y".repeat(128),
  "z".repeat(300),
  "w".repeat(20_000),
  0,
  1,
  -1,
  127,
  128,
  300,
  2 ** 31,
  2 ** 32 + 5,
  -(2 ** 40),
  2 ** 53,
  -(2 ** 63),
  1.5,
  -0.25,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -0,
  true,
  false,
  "true",
  "false",
  "1",
];

interface Made {
  spans: ReadableSpan[];
}

/** `n` spans from the SDK's tracer: varied names, parents (remote, local, none), trace state, status, times, attributes. */
function sdkSpans(n: number, seed: number, extra?: (i: number) => Attributes): Made {
  const next = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const memory = new InMemorySpanExporter();
  const providers = [0, 1].map(
    (k) =>
      new BasicTracerProvider({
        resource: resourceFromAttributes(
          { "service.name": `svc-${k}`, "host.id": k, "deployment.environment": "ci" },
          k === 1 ? { schemaUrl: "https://opentelemetry.io/schemas/1.30.0" } : {},
        ),
        spanProcessors: [new SimpleSpanProcessor(memory)],
      }),
  );
  const tracers = providers.flatMap((p) => [
    p.getTracer("toolgate", "1.2.3"),
    p.getTracer("other", undefined, { schemaUrl: "https://opentelemetry.io/schemas/1.29.0" }),
  ]);
  for (let i = 0; i < n; i++) {
    const attributes: Record<string, unknown> = {};
    const count = Math.floor(next() * 18);
    for (let a = 0; a < count; a++)
      attributes[
        pick([
          "toolgate.status",
          "toolgate.lane",
          "gen_ai.tool.name",
          "toolgate.exit_code",
          "toolgate.duration_ms",
          `k${a}`,
          "ключ",
          "1",
          "0",
        ])
      ] = pick(VALUES);
    const id = (bytes: number) =>
      Array.from({ length: bytes }, () =>
        Math.floor(next() * 256)
          .toString(16)
          .padStart(2, "0"),
      ).join("");
    const traceId = id(16);
    const parentKind = Math.floor(next() * 3);
    const parent =
      parentKind === 0
        ? ROOT_CONTEXT
        : trace.setSpanContext(ROOT_CONTEXT, {
            traceId,
            spanId: id(8),
            traceFlags: 1,
            isRemote: parentKind === 1,
            ...(next() < 0.3 ? { traceState: createTraceState("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE") } : {}),
          });
    const start = 1_700_000_000_000 + next() * 1e9;
    const span = pick(tracers).startSpan(
      next() < 0.2 ? `execute_tool ${pick(VALUES)}` : "execute_tool file_read",
      {
        kind: pick([SpanKind.INTERNAL, SpanKind.CLIENT, SpanKind.SERVER]),
        startTime: start,
        attributes: { ...(attributes as Attributes), ...extra?.(i) },
      },
      parent,
    );
    if (next() < 0.3)
      span.setStatus({ code: SpanStatusCode.ERROR, message: pick(["permission.denied", "", "boundary.rejected ✗"]) });
    else if (next() < 0.2) span.setStatus({ code: SpanStatusCode.OK });
    span.end(start + next() * 5_000);
  }
  return { spans: memory.getFinishedSpans() };
}

describe("the OTLP/protobuf request writer", () => {
  test("writes, byte for byte, what the official serializer writes: any attribute value, several resources and scopes, batches of 1 to 2,000", () => {
    for (const [n, seed] of [
      [1, 1],
      [7, 2],
      [130, 3],
      [512, 4],
      [2_000, 5],
    ] as const) {
      const { spans } = sdkSpans(n, seed);
      expect(spans.length).toBe(n);
      expect(ours(spans)).toBe(official(spans));
    }
  });

  test("the spans toolgate makes from its journal rows: the same bytes, through the serializer the exporter is given", () => {
    const records: SpanRecord[] = [];
    const row: JournalRow = {
      time_ms: 1_700_000_000_123,
      tool: "file_read",
      origin: "builtin",
      digest: "d",
      effect: "read",
      status: "success",
      error_code: null,
      duration_ms: 3,
      args_preview: "{}",
      result_bytes: 9,
      detail: null,
    };
    for (let i = 0; i < 600; i++) {
      const t = callTrace(
        {
          parent:
            i % 2
              ? {
                  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
                  spanId: "00f067aa0ba902b7",
                  sampled: true,
                  remote: true,
                  traceState: "a=b",
                }
              : null,
          lane: "default",
          sandbox: "off",
        },
        (r) => records.push(r),
      );
      t.tap("tool_started", { ...row, status: "started" });
      t.approved(i % 3 ? "flag" : "policy");
      t.tap(
        "tool_finished",
        i % 5 ? row : { ...row, status: "error", error_code: "permission.denied", duration_ms: i },
      );
    }
    const make = spanMaker();
    const spans = records.map(make).filter((s): s is ReadableSpan => s !== undefined);
    expect(spans.length).toBe(600);
    expect(hex(TraceSerializer.serializeRequest(spans))).toBe(official(spans));
    // The same batch again (now from the attribute cache): unchanged.
    expect(hex(TraceSerializer.serializeRequest(spans))).toBe(official(spans));
  });

  test("past the attribute cache's bound (thousands of distinct values), the bytes stay the official ones", () => {
    const { spans } = sdkSpans(1_500, 9, (i) => ({
      "distinct.a": `value-${i}`,
      "distinct.b": `other-${i}`,
      "distinct.c": i % 2 === 0,
      "distinct.d": `v${i}-`.repeat(10),
    }));
    expect(ours(spans)).toBe(official(spans));
    const again = sdkSpans(600, 10, (i) => ({ "distinct.a": `value-${i + 5_000}` }));
    expect(ours(again.spans)).toBe(official(again.spans));
  });

  test("records with ids that are not lowercase hex, or attributes that are not plain values (the reaper reads records from its environment as they come), go through the official serializer whole", () => {
    const good = {
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      sampled: true,
      name: "execute_tool file_read",
      start: 1_700_000_000_123,
      end: 1_700_000_000_130,
      attributes: { "toolgate.status": "success" },
    };
    const odd: SpanRecord[] = [
      { ...good, traceId: "zz".repeat(16) },
      { ...good, traceId: "4BF92F3577B34DA6A3CE929D0E0E4736" },
      { ...good, spanId: "00f067aa0ba902b" },
      { ...good, parent: { spanId: "0g".repeat(8), remote: true } },
      { ...good, parent: { spanId: "abc", remote: false } },
      { ...good, attributes: { "toolgate.status": null } as unknown as SpanRecord["attributes"] },
      { ...good, attributes: { "toolgate.status": { nested: "x" } } as unknown as SpanRecord["attributes"] },
    ];
    const make = spanMaker();
    for (const r of odd) {
      const spans = [good, r, good].map(make).filter((s): s is ReadableSpan => s !== undefined);
      expect(spans.length).toBe(3);
      expect(writeRequest(spans)).toBeUndefined();
      expect(hex(TraceSerializer.serializeRequest(spans))).toBe(official(spans));
    }
  });

  test("spans with events, links or array and bytes attributes go through the official serializer whole", () => {
    const { spans } = sdkSpans(20, 11, (i): Attributes => (i === 7 ? { list: ["a", "b"], bytes: "x" } : {}));
    expect(writeRequest(spans)).toBeUndefined();
    expect(hex(TraceSerializer.serializeRequest(spans))).toBe(official(spans));
    const memory = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
    const other = tracer.startSpan("a");
    const s = tracer.startSpan("with event and link", {
      links: [{ context: other.spanContext(), attributes: { why: "because" } }],
    });
    s.addEvent("happened", { n: 1 }, 1_700_000_000_000);
    s.end();
    other.end();
    expect(writeRequest(memory.getFinishedSpans())).toBeUndefined();
    expect(hex(TraceSerializer.serializeRequest(memory.getFinishedSpans()))).toBe(official(memory.getFinishedSpans()));
  });
});
