// The exporter builds finished spans straight from the records (no tracer, no Span objects): what it
// sends must be, byte for byte, what the SDK's own tracer would have sent for the same records —
// ids, parent and its remote flag, trace state, times, status, attributes, resource, scope — and it
// must sample as the SDK does (a remote parent that is not sampled: nothing; OTEL_TRACES_SAMPLER).
import { afterEach, describe, expect, test } from "bun:test";
import { createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { ProtobufTraceSerializer, JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { spanMaker } from "../../src/telemetry/export.ts";
import type { SpanRecord } from "../../src/telemetry/spans.ts";
import { VERSION } from "../../src/version.ts";

const attributes = {
  "gen_ai.operation.name": "execute_tool",
  "gen_ai.tool.name": "file_read",
  "toolgate.status": "success",
  "toolgate.exit_code": 0,
  "toolgate.duration_ms": 7,
  "toolgate.delegated": true,
};
const base = {
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  sampled: true,
  name: "execute_tool file_read",
  start: 1_700_000_000_123,
  end: 1_700_000_000_130,
  attributes,
};
const records: SpanRecord[] = [
  { ...base, spanId: "00000000000000a1" },
  {
    ...base,
    spanId: "00000000000000a2",
    parent: { spanId: "00f067aa0ba902b7", remote: true },
    traceState: "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
  },
  {
    ...base,
    spanId: "00000000000000a3",
    parent: { spanId: "00000000000000a2", remote: false },
    error: "permission.denied",
    start: 1_700_000_000_999.5,
    end: 1_700_000_001_000,
  },
  { ...base, spanId: "00000000000000a4", parent: { spanId: "00f067aa0ba902b7", remote: true }, sampled: false },
  { ...base, spanId: "00000000000000a5", attributes: { ...attributes, "toolgate.lane": "l".repeat(40) } },
];

/** What the SDK's tracer makes of the records (how the exporter made its spans before). */
function bySdk(rs: readonly SpanRecord[]): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  let next: SpanRecord | undefined;
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": "toolgate", "service.version": VERSION }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({
    resource,
    idGenerator: { generateTraceId: () => next!.traceId, generateSpanId: () => next!.spanId },
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer("toolgate", VERSION);
  for (const r of rs) {
    next = r;
    const parent = r.parent
      ? trace.setSpanContext(ROOT_CONTEXT, {
          traceId: r.traceId,
          spanId: r.parent.spanId,
          traceFlags: r.sampled ? 1 : 0,
          isRemote: r.parent.remote,
          ...(r.traceState ? { traceState: createTraceState(r.traceState) } : {}),
        })
      : ROOT_CONTEXT;
    const span = tracer.startSpan(
      r.name,
      { kind: SpanKind.INTERNAL, startTime: r.start, attributes: r.attributes },
      parent,
    );
    if (r.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: r.error });
    span.end(r.end);
  }
  return memory.getFinishedSpans();
}

const direct = (rs: readonly SpanRecord[]) => {
  const make = spanMaker();
  return rs.map(make).filter((s): s is ReadableSpan => s !== undefined);
};
const hex = (b: Uint8Array | undefined) => Buffer.from(b!).toString("hex");
const json = (b: Uint8Array | undefined) => JSON.parse(new TextDecoder().decode(b));

const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith("OTEL_") && !(k in saved)) delete process.env[k];
});

describe("spans made from records", () => {
  test("serialize (protobuf and JSON) exactly as the SDK tracer's spans of the same records; an unsampled remote parent's child is dropped", () => {
    process.env.OTEL_SERVICE_NAME = "svc";
    process.env.OTEL_RESOURCE_ATTRIBUTES = "deployment.environment=ci";
    const sdk = bySdk(records);
    const ours = direct(records);
    expect(ours.map((s) => s.spanContext().spanId)).toEqual([
      "00000000000000a1",
      "00000000000000a2",
      "00000000000000a3",
      "00000000000000a5",
    ]);
    expect(hex(ProtobufTraceSerializer.serializeRequest(ours))).toBe(
      hex(ProtobufTraceSerializer.serializeRequest(sdk)),
    );
    expect(json(JsonTraceSerializer.serializeRequest(ours))).toEqual(json(JsonTraceSerializer.serializeRequest(sdk)));
  });

  test.each([["always_on"], ["always_off"], ["parentbased_always_off"], ["traceidratio"]])(
    "OTEL_TRACES_SAMPLER=%s decides as in the SDK",
    (sampler) => {
      process.env.OTEL_TRACES_SAMPLER = sampler;
      process.env.OTEL_TRACES_SAMPLER_ARG = "0.5";
      const many = Array.from({ length: 40 }, (_, i) => ({
        ...records[i % 4]!,
        traceId: `${i.toString(16).padStart(2, "0")}${"7".repeat(30)}`,
      }));
      expect(hex(ProtobufTraceSerializer.serializeRequest(direct(many)))).toBe(
        hex(ProtobufTraceSerializer.serializeRequest(bySdk(many))),
      );
    },
  );

  test("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT cuts string values as the SDK does", () => {
    process.env.OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT = "8";
    expect(hex(ProtobufTraceSerializer.serializeRequest(direct(records)))).toBe(
      hex(ProtobufTraceSerializer.serializeRequest(bySdk(records))),
    );
  });
});
