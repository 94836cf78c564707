// The OTLP/protobuf body of an export (ExportTraceServiceRequest), byte for byte what the official
// serializer (@opentelemetry/otlp-transformer's ProtobufTraceSerializer) writes for the same spans:
// the same fields in the same order, the same defaults written, the same grouping by resource and
// scope (test/telemetry/protobuf.test.ts compares the two). It is made for a process that exports
// thousands of spans whose attributes repeat: a string or boolean attribute (key and value) is
// encoded once and its bytes copied after that, and the request is written in one pass (the official
// one measures it in a first pass, then writes). In serve, the official serializer was most of the
// exporter's CPU and of the JIT compiles telemetry added (target: serve calls/s within 5% of off).
// A span it does not expect (events, links, an attribute that is not a string, number or boolean)
// sends the whole batch through the official serializer instead (export.ts hands it in: only that
// file loads OpenTelemetry's code).
import type { ISerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { utf8, Writer } from "./protobuf-writer.ts";

type Value = unknown;
type Attrs = Readonly<Record<string, Value>> | undefined;
type Resource = ReadableSpan["resource"];
type Scope = ReadableSpan["instrumentationScope"];

/** AnyValue, every kind the official writer knows (null and undefined: an empty value, as it writes). */
function anyValue(w: Writer, value: Value): void {
  if (typeof value === "string") {
    w.tag(1, 2);
    w.string(value);
  } else if (typeof value === "boolean") {
    w.tag(2, 0);
    w.varint(value ? 1 : 0);
  } else if (typeof value === "number") {
    if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63) {
      w.tag(3, 0);
      w.varint(value);
    } else {
      w.tag(4, 1);
      w.double(value);
    }
  } else if (value instanceof Uint8Array) {
    w.tag(7, 2);
    w.bytes(value);
  } else if (Array.isArray(value)) {
    w.tag(5, 2);
    const list = w.start();
    for (const item of value) {
      w.tag(1, 2);
      const at = w.start();
      anyValue(w, item);
      w.end(at);
    }
    w.end(list);
  } else if (typeof value === "object" && value !== null) {
    w.tag(6, 2);
    const list = w.start();
    keyValues(w, value as Record<string, Value>, 1);
    w.end(list);
  }
}

/** Each own property as a KeyValue message in `field`, in for-in order (the official writer's). */
function keyValues(w: Writer, attrs: Readonly<Record<string, Value>>, field: number): void {
  for (const key in attrs) if (Object.hasOwn(attrs, key)) keyValue(w, field, key, attrs[key]);
}

/** One KeyValue message in `field`: its tag, length, key and value. */
function keyValue(w: Writer, field: number, key: string, value: Value): void {
  w.tag(field, 2);
  const kv = w.start();
  w.tag(1, 2);
  w.string(key);
  w.tag(2, 2);
  const at = w.start();
  anyValue(w, value);
  w.end(at);
  w.end(kv);
}

/** A span attribute's whole field (tag, length, KeyValue), by key then value; bounded, short values only. */
const attributeBytes = new Map<string, Map<string | number | boolean, Uint8Array>>();
let cached = 0;
const CACHE_MAX = 4_096;
const CACHE_VALUE_MAX = 256;
const scratch = new Writer();

function spanAttributes(w: Writer, attrs: Readonly<Record<string, Value>>): void {
  for (const key in attrs) {
    if (!Object.hasOwn(attrs, key)) continue;
    const value = attrs[key];
    const bytes = attributeBytes.get(key)?.get(value as string | number | boolean);
    if (bytes !== undefined) w.raw(bytes);
    // Numbers are cached when small whole ones (exit codes, most durations); other values as they
    // come; once the cache is full, a value it lacks is written directly (not encoded and copied).
    else if (
      cached >= CACHE_MAX ||
      (typeof value === "number"
        ? !(value >= 0 && value < 1_024 && Number.isInteger(value))
        : typeof value === "string" && value.length > CACHE_VALUE_MAX)
    )
      keyValue(w, 9, key, value);
    else w.raw(remember(key, value as string | number | boolean));
  }
}

/** The attribute's field, encoded once and kept (a copy: a Buffer's slice is a view). */
function remember(key: string, value: string | number | boolean): Uint8Array {
  scratch.pos = 0;
  keyValue(scratch, 9, key, value);
  const bytes = Uint8Array.prototype.slice.call(scratch.buf, 0, scratch.pos);
  let byValue = attributeBytes.get(key);
  if (byValue === undefined) attributeBytes.set(key, (byValue = new Map()));
  byValue.set(value, bytes);
  cached++;
  return bytes;
}

/** Span names repeat (`execute_tool <tool>`): their UTF-8, kept (bounded). */
const names = new Map<string, Uint8Array>();
function nameBytes(name: string): Uint8Array {
  let b = names.get(name);
  if (b === undefined) {
    b = utf8.encode(name);
    if (names.size < CACHE_MAX && name.length <= CACHE_VALUE_MAX) names.set(name, b);
  }
  return b;
}

const HEX_ID = /^(?:[0-9a-f]{2})+$/;

/** What this writer covers; anything else goes through the official serializer. */
function plain(s: ReadableSpan): boolean {
  const c = s.spanContext();
  if (s.events.length > 0 || s.links.length > 0 || !HEX_ID.test(c.traceId) || !HEX_ID.test(c.spanId)) return false;
  if (s.parentSpanContext?.spanId && !HEX_ID.test(s.parentSpanContext.spanId)) return false;
  for (const key in s.attributes) {
    const t = typeof s.attributes[key];
    if (t !== "string" && t !== "number" && t !== "boolean") return false;
  }
  return true;
}

function span(w: Writer, s: ReadableSpan): void {
  const c = s.spanContext();
  w.hexId(1, c.traceId);
  w.hexId(2, c.spanId);
  const state = c.traceState?.serialize();
  if (state) {
    w.tag(3, 2);
    w.string(state);
  }
  if (s.parentSpanContext?.spanId) w.hexId(4, s.parentSpanContext.spanId);
  w.tag(5, 2);
  w.bytes(nameBytes(s.name));
  // The kind, one up (the API has no value for unset).
  const kind = s.kind == null ? 0 : s.kind + 1;
  if (kind !== 0) {
    w.tag(6, 0);
    w.varint(kind);
  }
  w.tag(7, 1);
  w.hrTime(s.startTime);
  w.tag(8, 1);
  w.hrTime(s.endTime);
  if (s.attributes) spanAttributes(w, s.attributes);
  w.tag(10, 0);
  w.varint(s.droppedAttributesCount);
  w.tag(12, 0);
  w.varint(s.droppedEventsCount);
  w.tag(14, 0);
  w.varint(s.droppedLinksCount);
  w.tag(15, 2);
  const status = w.start();
  if (s.status.message) {
    w.tag(2, 2);
    w.string(s.status.message);
  }
  w.tag(3, 0);
  w.varint(s.status.code);
  w.end(status);
  // Flags: the trace flags, and whether the parent is remote (known, then its value).
  w.tag(16, 5);
  w.fixed32((c.traceFlags & 0xff) | 0x100 | (s.parentSpanContext?.isRemote ? 0x200 : 0));
}

function scope(w: Writer, sc: Scope & { attributes?: Attrs; droppedAttributesCount?: number }): void {
  w.tag(1, 2);
  const at = w.start();
  w.tag(1, 2);
  w.string(sc.name);
  if (sc.version) {
    w.tag(2, 2);
    w.string(sc.version);
  }
  if (sc.attributes) keyValues(w, sc.attributes, 3);
  if (sc.droppedAttributesCount) {
    w.tag(4, 0);
    w.varint(sc.droppedAttributesCount);
  }
  w.end(at);
}

function resourceSpans(w: Writer, resource: Resource, scopes: Map<Scope, ReadableSpan[]>): void {
  w.tag(1, 2);
  const at = w.start();
  w.tag(1, 2);
  const res = w.start();
  if (resource.attributes) keyValues(w, resource.attributes, 1);
  w.tag(2, 0);
  w.varint(0);
  w.end(res);
  for (const spans of scopes.values()) {
    w.tag(2, 2);
    const ss = w.start();
    const sc = spans[0]!.instrumentationScope;
    scope(w, sc);
    for (const s of spans) {
      w.tag(2, 2);
      const sp = w.start();
      span(w, s);
      w.end(sp);
    }
    if (sc.schemaUrl) {
      w.tag(3, 2);
      w.string(sc.schemaUrl);
    }
    w.end(ss);
  }
  if (resource.schemaUrl) {
    w.tag(3, 2);
    w.string(resource.schemaUrl);
  }
  w.end(at);
}

/** The request body for `spans`; undefined for a batch this writer does not cover. */
export function writeRequest(spans: readonly ReadableSpan[]): Uint8Array | undefined {
  if (!spans.every(plain)) return undefined;
  // Grouped by resource, then scope, by identity, in order of first appearance (as the official one groups).
  const byResource = new Map<Resource, Map<Scope, ReadableSpan[]>>();
  for (const s of spans) {
    let scopes = byResource.get(s.resource);
    if (!scopes) byResource.set(s.resource, (scopes = new Map()));
    let list = scopes.get(s.instrumentationScope);
    if (!list) scopes.set(s.instrumentationScope, (list = []));
    list.push(s);
  }
  const w = new Writer();
  for (const [resource, scopes] of byResource) resourceSpans(w, resource, scopes);
  return w.buf.subarray(0, w.pos);
}

/** The official protobuf serializer with this request writer in front (its response reading unchanged). */
export function withRequestWriter<R>(official: ISerializer<ReadableSpan[], R>): ISerializer<ReadableSpan[], R> {
  return {
    serializeRequest: (spans) => writeRequest(spans) ?? official.serializeRequest(spans),
    deserializeResponse: (data) => official.deserializeResponse(data),
  };
}
