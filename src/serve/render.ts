// How the catalog and the pipeline's envelopes look to an MCP client: a descriptor becomes a Tool
// (annotations from the effect class, toolgate's facts under _meta.toolgate), an envelope a
// CallToolResult (an MCP-sourced payload passes as the server's own content; a refusal is isError
// with the envelope as JSON text and its code in _meta). Pure.
import type { Descriptor } from "../catalog/catalog.ts";
import type { EffectClass } from "../catalog/declare.ts";
import type { Envelope } from "../result/result.ts";
import { serverOf } from "../catalog/origin.ts";

/** MCP's tool annotations for each effect class (the hints' defaults are the unsafe ones). */
const ANNOTATIONS: Record<EffectClass, Record<string, boolean>> = {
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  "idempotent-write": { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  reversible: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  irreversible: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
};

export interface ServedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly annotations: Record<string, boolean>;
  readonly _meta: {
    readonly toolgate: {
      readonly name: string;
      readonly origin: string;
      readonly effect: EffectClass;
      readonly approval: string;
      readonly digest: string;
    };
  };
}

/** One descriptor as served: `served` is the name the client sees, `approval` the effective policy. */
export function renderTool(d: Descriptor, served: string, approval: string): ServedTool {
  return {
    name: served,
    description: d.description,
    inputSchema: d.inputSchema,
    annotations: ANNOTATIONS[d.effect],
    _meta: {
      toolgate: {
        name: d.name,
        ...(d.original !== undefined ? { original: d.original } : {}),
        origin: d.origin,
        effect: d.effect,
        approval,
        digest: d.digest.slice(0, 12),
      },
    },
  };
}

export interface CallResult {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta: Record<string, unknown>;
  [key: string]: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Whether a payload is an MCP server's own CallToolResult (a content array), passed through as is. */
const isMcpResult = (origin: string, payload: unknown): payload is Record<string, unknown> & { content: unknown[] } =>
  serverOf(origin) !== undefined && isObject(payload) && Array.isArray(payload.content);

/** The pipeline's envelope for `origin`'s tool as a CallToolResult. */
export function renderResult(envelope: Envelope, origin: string | undefined): CallResult {
  if (envelope.status === "success") {
    const meta = { toolgate: { status: "success" } };
    const payload = envelope.payload;
    if (origin !== undefined && isMcpResult(origin, payload)) {
      const { content, structuredContent } = payload;
      const own = isObject(payload._meta) ? payload._meta : {};
      return { content, ...(isObject(structuredContent) ? { structuredContent } : {}), _meta: { ...own, ...meta } };
    }
    const text = JSON.stringify(payload ?? null);
    return {
      content: [{ type: "text", text }],
      ...(isObject(payload) ? { structuredContent: payload } : {}),
      _meta: meta,
    };
  }
  const meta = { toolgate: { status: envelope.status, error_code: envelope.error_code } };
  return { content: [{ type: "text", text: JSON.stringify(envelope) }], isError: true, _meta: meta };
}
