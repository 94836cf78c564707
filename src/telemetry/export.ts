// The exporter: span records (spans.ts) become OTel SDK spans, batched and sent as OTLP over HTTP
// (protobuf or JSON) by the official SDK and OTLP exporter machinery, configured from the standard
// OTEL_* variables. Imported only when telemetry is on (telemetry.ts), never on the caller's path of
// a one-shot call (its spans are sent by the detached reaper). Its one request goes through
// toolgate's HTTP adapter (src/http, the only place that calls fetch) to the configured endpoint
// and nowhere else: no redirect is followed. A collector that is down, slow or refusing costs one
// line on stderr per process, and nothing else.
import { createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { createOtlpNetworkExportDelegate, ExporterMetrics, OTLPExporterBase } from "@opentelemetry/otlp-exporter-base";
import { convertLegacyHttpOptions } from "@opentelemetry/otlp-exporter-base/node-http";
import { JsonTraceSerializer, ProtobufTraceSerializer, TraceExporterMetricsHelper } from "@opentelemetry/otlp-transformer";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { VERSION } from "../version.ts";
import { endpointView, type TelemetryOn } from "./env.ts";
import type { SpanRecord } from "./spans.ts";

export interface Exporter {
  add(records: readonly SpanRecord[]): void;
  /** Sends what is batched, waiting at most `ms`; then nothing more is sent. */
  close(ms: number): Promise<void>;
}

/** What the exporter's POST gets back, as the OTLP exporter base expects it. */
type Sent = { status: "success" } | { status: "failure"; error: Error } | { status: "retryable"; error: Error };

export function startExporter(settings: TelemetryOn, operator: (line: string) => void): Exporter {
  const protobuf = settings.protocol === "http/protobuf";
  // The standard variables: headers (OTEL_EXPORTER_OTLP[_TRACES]_HEADERS), timeout, compression.
  const options = convertLegacyHttpOptions({ url: settings.endpoint }, "TRACES", "v1/traces", { "Content-Type": protobuf ? "application/x-protobuf" : "application/json" });
  const transport = { send: (data: Uint8Array, timeoutMs: number) => post(options.url, options.headers, options.compression, data, timeoutMs), shutdown: () => {} };
  const metrics = new ExporterMetrics({ componentType: "otlp_http_span_exporter", metricsHelper: TraceExporterMetricsHelper, url: options.url, meterProvider: undefined, responseAttributesFromError: () => ({}) });
  const base = new OTLPExporterBase<ReadableSpan[]>(createOtlpNetworkExportDelegate(options, protobuf ? ProtobufTraceSerializer : JsonTraceSerializer, metrics, transport));
  let told = false;
  const exporter: SpanExporter = {
    export: (spans, done) =>
      base.export(spans, (r) => {
        if (r.code !== 0 && !told) {
          told = true;
          const why = (r.error?.message ?? "unknown error").replace(/[\u0000-\u001f\u007f]/g, " ").slice(0, 300);
          operator(`toolgate: telemetry: ${spans.length} span(s) could not be sent to ${endpointView(settings.endpoint)}: ${why} (the calls themselves are unaffected; this process reports no further export failures)`);
        }
        done(r);
      }),
    shutdown: () => base.shutdown(),
    forceFlush: () => base.forceFlush(),
  };
  // Span ids are the records' own (made while the call ran, already sent on as traceparent): the
  // SDK takes them from here instead of drawing new ones.
  let next: SpanRecord | undefined;
  const idGenerator = { generateTraceId: () => next!.traceId, generateSpanId: () => next!.spanId };
  // toolgate's name and version, under what the user's OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES say.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": "toolgate", "service.version": VERSION }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({ resource, idGenerator, spanProcessors: [new BatchSpanProcessor(exporter)] });
  const tracer = provider.getTracer("toolgate", VERSION);
  return {
    add(records) {
      for (const r of records) {
        next = r;
        const parent = r.parent
          ? trace.setSpanContext(ROOT_CONTEXT, { traceId: r.traceId, spanId: r.parent.spanId, traceFlags: r.sampled ? 1 : 0, isRemote: r.parent.remote, ...(r.traceState ? { traceState: createTraceState(r.traceState) } : {}) })
          : ROOT_CONTEXT;
        const span = tracer.startSpan(r.name, { kind: SpanKind.INTERNAL, startTime: r.start, attributes: r.attributes }, parent);
        if (r.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: r.error });
        span.end(r.end);
      }
      next = undefined;
    },
    async close(ms) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((res) => (timer = setTimeout(res, ms)));
      await Promise.race([provider.forceFlush().then(() => provider.shutdown()), late]).catch(() => {});
      clearTimeout(timer);
    },
  };
}

/** One POST to the endpoint through the HTTP adapter: the operator's endpoint (any address class), no redirect followed. */
async function post(url: string, headers: () => Promise<Record<string, string>>, compression: string, data: Uint8Array, timeoutMs: number): Promise<Sent> {
  const [{ guardedFetch }, { systemResolver }] = await Promise.all([import("../http/fetch.ts"), import("../http/resolve.ts")]);
  const h: Record<string, string> = { ...(await headers()), "User-Agent": `toolgate/${VERSION}` };
  const body = compression === "gzip" ? Bun.gzipSync(data as Uint8Array<ArrayBuffer>) : data;
  if (compression === "gzip") h["Content-Encoding"] = "gzip";
  const sent = await guardedFetch(url, { method: "POST", headers: h, body, timeoutMs, maxRedirects: 0 }, { reach: { exact: new Set(), pinned: new Set(), trustAddressClass: true }, pins: new Map(), resolver: systemResolver });
  if (!sent.ok) {
    const code = sent.refusal.code === "url.rejected" && (sent.refusal.details as { rule?: string } | undefined)?.rule === "redirect_limit" ? "the collector answered with a redirect, which is not followed" : sent.refusal.message;
    return { status: "failure", error: new Error(code) };
  }
  const res = sent.value.response;
  await res.body?.cancel().catch(() => {});
  if (res.status >= 200 && res.status < 300) return { status: "success" };
  const error = new Error(`the collector answered HTTP ${res.status}`);
  return [429, 502, 503, 504].includes(res.status) ? { status: "retryable", error } : { status: "failure", error };
}
