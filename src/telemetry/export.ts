// The exporter: span records (spans.ts) become OTel SDK spans, batched and sent as OTLP over HTTP
// (protobuf or JSON) by the official SDK and OTLP exporter machinery, configured from the standard
// OTEL_* variables. Imported only when telemetry is on (telemetry.ts), never on the caller's path of
// a one-shot call (its spans are sent by the detached reaper). Its one request goes through
// toolgate's HTTP adapter (src/http, the only place that calls fetch) to the configured endpoint
// and nowhere else: no redirect is followed. A collector that is down, slow or refusing costs one
// line on stderr per process, and nothing else.
import {
  createTraceState,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type HrTime,
  type SpanContext,
} from "@opentelemetry/api";
import { createOtlpNetworkExportDelegate, ExporterMetrics, OTLPExporterBase } from "@opentelemetry/otlp-exporter-base";
import { convertLegacyHttpOptions } from "@opentelemetry/otlp-exporter-base/node-http";
import {
  JsonTraceSerializer,
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
} from "@opentelemetry/otlp-transformer";
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
  type Resource,
} from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import { VERSION } from "../version.ts";
import { endpointView, type TelemetryOn } from "./env.ts";
import { withRequestWriter } from "./protobuf.ts";
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
  const options = convertLegacyHttpOptions({ url: settings.endpoint }, "TRACES", "v1/traces", {
    "Content-Type": protobuf ? "application/x-protobuf" : "application/json",
  });
  // The HTTP adapter loads now, not on the first export (in serve: while the process boots).
  void httpModules().catch(() => {});
  const transport = {
    send: (data: Uint8Array, timeoutMs: number) =>
      post(options.url, options.headers, options.compression, data, timeoutMs),
    shutdown: () => {},
  };
  const metrics = new ExporterMetrics({
    componentType: "otlp_http_span_exporter",
    metricsHelper: TraceExporterMetricsHelper,
    url: options.url,
    meterProvider: undefined,
    responseAttributesFromError: () => ({}),
  });
  const base = new OTLPExporterBase<ReadableSpan[]>(
    createOtlpNetworkExportDelegate(
      options,
      protobuf ? withRequestWriter(ProtobufTraceSerializer) : JsonTraceSerializer,
      metrics,
      transport,
    ),
  );
  let told = false;
  const exporter: SpanExporter = {
    export: (spans, done) =>
      base.export(spans, (r) => {
        if (r.code !== 0 && !told) {
          told = true;
          const why = (r.error?.message ?? "unknown error").replace(/[\u0000-\u001f\u007f]/g, " ").slice(0, 300);
          operator(
            `toolgate: telemetry: ${spans.length} span(s) could not be sent to ` +
              `${endpointView(settings.endpoint)}: ${why} (the calls themselves are unaffected; this process ` +
              `reports no further export failures)`,
          );
        }
        done(r);
      }),
    shutdown: () => base.shutdown(),
    forceFlush: () => base.forceFlush(),
  };
  const span = spanMaker();
  // The SDK's batching as it is (OTEL_BSP_*): spans go in as they ended, out in batches to the exporter.
  const processor = new BatchSpanProcessor(exporter);
  return {
    add(records) {
      for (const r of records) {
        const made = span(r);
        if (made !== undefined) processor.onEnd(made);
      }
    },
    async close(ms) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((res) => (timer = setTimeout(res, ms)));
      await Promise.race([processor.forceFlush().then(() => processor.shutdown()), late]).catch(() => {});
      clearTimeout(timer);
    },
  };
}

/**
 * Records to finished spans, as the SDK's tracer would have made them (same ids, times, status,
 * sampling decision, resource), built directly: the tracer's Span machinery is not needed for spans
 * that are already over. Undefined: not sampled (not exported).
 */
export function spanMaker(): (r: SpanRecord) => ReadableSpan | undefined {
  // toolgate's name and version, under what the user's OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES say.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": "toolgate", "service.version": VERSION }))
    .merge(detectResources({ detectors: [envDetector] }));
  const scope = { name: "toolgate", version: VERSION };
  const sampler = samplerFromEnv();
  const limit = lengthLimit();
  return (r) => readable(r, resource, scope, sampler, limit);
}

/**
 * The sampler OTEL_TRACES_SAMPLER names, as the SDK's tracer provider builds it; undefined: the default
 * (parent-based, always on).
 */
function samplerFromEnv(): Sampler | undefined {
  const name = process.env.OTEL_TRACES_SAMPLER;
  if (name === undefined || name.trim() === "" || name === "parentbased_always_on") return undefined;
  const ratio = () => {
    const v = Number(process.env.OTEL_TRACES_SAMPLER_ARG?.trim() || NaN);
    return Number.isNaN(v) || v < 0 || v > 1 ? 1 : v;
  };
  if (name === "always_on") return new AlwaysOnSampler();
  if (name === "always_off") return new AlwaysOffSampler();
  if (name === "parentbased_always_off") return new ParentBasedSampler({ root: new AlwaysOffSampler() });
  if (name === "traceidratio") return new TraceIdRatioBasedSampler(ratio());
  if (name === "parentbased_traceidratio")
    return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
  return undefined;
}

/**
 * OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT (else OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT): string values cut there, as the
 * SDK's spans do.
 */
function lengthLimit(): number {
  for (const name of ["OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"]) {
    const v = process.env[name]?.trim();
    if (v !== undefined && v !== "" && !Number.isNaN(Number(v))) return Number(v);
  }
  return Infinity;
}

const NO_LINKS: ReadableSpan["links"] = Object.freeze([]) as unknown as ReadableSpan["links"];
const NO_EVENTS: ReadableSpan["events"] = Object.freeze([]) as unknown as ReadableSpan["events"];
const hrTime = (ms: number): HrTime => [Math.trunc(ms / 1000), Math.round((ms % 1000) * 1e6)];

function readable(
  r: SpanRecord,
  resource: Resource,
  scope: ReadableSpan["instrumentationScope"],
  sampler: Sampler | undefined,
  limit: number,
): ReadableSpan | undefined {
  const state = r.traceState ? createTraceState(r.traceState) : undefined;
  const parent: SpanContext | undefined = r.parent
    ? {
        traceId: r.traceId,
        spanId: r.parent.spanId,
        traceFlags: r.sampled ? 1 : 0,
        isRemote: r.parent.remote,
        ...(state ? { traceState: state } : {}),
      }
    : undefined;
  let sampled = r.sampled;
  let attributes: Attributes = r.attributes;
  let traceState = parent ? state : undefined;
  if (sampler !== undefined) {
    const decision = sampler.shouldSample(
      parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
      r.traceId,
      r.name,
      SpanKind.INTERNAL,
      { ...attributes },
      [],
    );
    sampled = decision.decision === SamplingDecision.RECORD_AND_SAMPLED;
    if (decision.attributes) attributes = { ...attributes, ...decision.attributes } as Attributes;
    traceState = decision.traceState ?? traceState;
  }
  if (!sampled) return undefined;
  if (limit !== Infinity)
    attributes = Object.fromEntries(
      Object.entries(attributes).map(([k, v]) => [k, typeof v === "string" ? v.slice(0, limit) : v]),
    );
  const context: SpanContext = {
    traceId: r.traceId,
    spanId: r.spanId,
    traceFlags: 1,
    ...(traceState ? { traceState } : {}),
  };
  const end = Math.max(r.start, r.end);
  return {
    name: r.name,
    kind: SpanKind.INTERNAL,
    spanContext: () => context,
    parentSpanContext: parent,
    startTime: hrTime(r.start),
    endTime: hrTime(end),
    duration: hrTime(end - r.start),
    status: r.error === undefined ? { code: SpanStatusCode.UNSET } : { code: SpanStatusCode.ERROR, message: r.error },
    attributes,
    links: NO_LINKS,
    events: NO_EVENTS,
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

let http: Promise<[typeof import("../http/fetch.ts"), typeof import("../http/resolve.ts")]> | undefined;
const httpModules = () => (http ??= Promise.all([import("../http/fetch.ts"), import("../http/resolve.ts")]));

/**
 * One POST to the endpoint through the HTTP adapter: the operator's endpoint (any address class), no redirect
 * followed.
 */
async function post(
  url: string,
  headers: () => Promise<Record<string, string>>,
  compression: string,
  data: Uint8Array,
  timeoutMs: number,
): Promise<Sent> {
  const [{ guardedFetch }, { systemResolver }] = await httpModules();
  const h: Record<string, string> = { ...(await headers()), "User-Agent": `toolgate/${VERSION}` };
  const body = compression === "gzip" ? Bun.gzipSync(data as Uint8Array<ArrayBuffer>) : data;
  if (compression === "gzip") h["Content-Encoding"] = "gzip";
  const sent = await guardedFetch(
    url,
    { method: "POST", headers: h, body, timeoutMs, maxRedirects: 0 },
    {
      reach: { exact: new Set(), pinned: new Set(), trustAddressClass: true },
      pins: new Map(),
      resolver: systemResolver,
    },
  );
  if (!sent.ok) {
    const code =
      sent.refusal.code === "url.rejected" &&
      (sent.refusal.details as { rule?: string } | undefined)?.rule === "redirect_limit"
        ? "the collector answered with a redirect, which is not followed"
        : sent.refusal.message;
    return { status: "failure", error: new Error(code) };
  }
  const res = sent.value.response;
  await res.body?.cancel().catch(() => {});
  if (res.status >= 200 && res.status < 300) return { status: "success" };
  const error = new Error(`the collector answered HTTP ${res.status}`);
  return [429, 502, 503, 504].includes(res.status) ? { status: "retryable", error } : { status: "failure", error };
}
