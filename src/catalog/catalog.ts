// The catalog: one list of tool sources, two projections (rendered descriptors and
// dispatch entries). Building it is pure: no clock, no randomness, no I/O.
import type { Need } from "../permission/types.ts";
import type { Outcome } from "../result/result.ts";
import { refuse } from "../result/result.ts";
import { canonicalJson, sha256Hex } from "./canonical.ts";
import { EFFECTS, type ApprovalPolicy, type EffectClass, type NeedsContext, type ToolContext } from "./declare.ts";
import type { Terms } from "./terms.ts";

export type JsonSchema = Record<string, unknown>;
export type { Terms } from "./terms.ts";

/**
 * What runs a tool: its needs and the call itself. What the tool needs from the pipeline around
 * the run (validation, the boundary, secrets, deadline) is its source's declaration (`Terms`).
 */
export interface Adapter {
  needs(args: unknown, ctx: NeedsContext): Outcome<Need[]>;
  run(args: unknown, ctx: ToolContext): Promise<Outcome<unknown>>;
  /**
   * A run in two phases, for a tool whose run needs an effect journaled on its own (an MCP
   * server's start, with its `server_started` row): called once steps 3-5 passed, before the
   * call's started row, so the start overlaps the row's write; returns the run that uses it
   * (undefined: `run` as usual). Only servers' tools start something ahead: optional for the rest.
   */
  readonly begin?: () => Adapter["run"] | undefined;
}

/** One tool as a source offers it, before the catalog's checks. */
export interface ToolSource {
  readonly origin: string;
  readonly rawName: string;
  readonly name: string;
  readonly description: string;
  readonly inputSchema: unknown;
  readonly effect?: string | undefined;
  readonly approval: ApprovalPolicy;
  /** Something the user should know about this tool's policy (a waiver ignored), shown by `tools`. */
  readonly note?: string;
  /** The tool's name as its server wrote it, when the catalog name is a mapped one (catalog/names.ts). */
  readonly original?: string;
  /**
   * What runs when the tool is called, as JSON (an authored tool's manifest, argv and file digests;
   * a server's command line or URL). Part of the digest: approvals and the lock follow the code.
   */
  readonly executable?: unknown;
  /** What the tool needs from the pipeline, as its source declares it. */
  readonly terms: Terms;
  readonly adapter: Adapter;
}

export interface Descriptor {
  readonly name: string;
  readonly origin: string;
  readonly description: string;
  readonly effect: EffectClass;
  readonly approval: ApprovalPolicy;
  readonly digest: string;
  readonly inputSchema: JsonSchema;
  readonly note?: string;
  /** The name as its server wrote it, when `name` is mapped (dots, slashes, spaces, length). */
  readonly original?: string;
}

export interface Entry extends Descriptor {
  readonly rawName: string;
  readonly terms: Terms;
  readonly adapter: Adapter;
}

export interface Catalog {
  readonly descriptors: readonly Descriptor[];
  readonly entries: ReadonlyMap<string, Entry>;
}

/**
 * A catalog name: ASCII letters, digits, "_" and "-", up to 128 (MCP's own limit for a tool name,
 * so `<server>__<tool>` fits). A server's tool whose name would not fit is mapped (catalog/names.ts);
 * `serve` maps names past a client's budget the same way (src/serve/names.ts).
 */
export const NAME_RULE = /^[A-Za-z0-9_-]{1,128}$/;
export const NAME_RULE_TEXT = '1-128 ASCII letters, digits, "_" or "-"';
export const normalizeName = (name: string): string => name.toLowerCase().replaceAll("-", "_");

/** Everything a tool's identity covers (the approval digest covers what runs: docs/config.md). */
export interface ToolIdentity {
  readonly origin: string;
  /** The name as its source knows it. */
  readonly name: string;
  readonly schema: unknown;
  readonly effect: EffectClass;
  readonly description: string;
  /** Absent for built-ins: what runs is this binary. */
  readonly executable?: unknown;
}

export const toolDigest = (id: ToolIdentity): string =>
  sha256Hex(
    canonicalJson({
      origin: id.origin,
      name: id.name,
      schema: id.schema,
      effect: id.effect,
      description: id.description,
      executable: id.executable,
    }),
  );

const effectOf = (e: string | undefined): EffectClass =>
  (EFFECTS as readonly string[]).includes(e ?? "") ? (e as EffectClass) : "irreversible";

export function buildCatalog(sources: readonly ToolSource[]): Outcome<Catalog> {
  const seen = new Map<string, ToolSource>();
  const entries: Entry[] = [];
  for (const s of sources) {
    if (!NAME_RULE.test(s.name)) {
      return refuse(
        "catalog.bad_name",
        `tool name ${JSON.stringify(s.name)} from ${s.origin} is not ${NAME_RULE_TEXT}`,
      );
    }
    const key = normalizeName(s.name);
    const prior = seen.get(key);
    if (prior) {
      return refuse(
        "catalog.collision",
        `tool name collision: "${prior.name}" from ${prior.origin} and "${s.name}" from ${s.origin} are the ` +
          `same name after normalization ("${key}"); rename one of them (no source has priority)`,
      );
    }
    seen.set(key, s);
    const schema = s.inputSchema;
    if (
      schema === null ||
      typeof schema !== "object" ||
      Array.isArray(schema) ||
      (schema as JsonSchema).type !== "object"
    ) {
      return refuse(
        "catalog.bad_schema",
        `tool "${s.name}" from ${s.origin}: the input schema must be a JSON object schema with "type": "object"`,
      );
    }
    const effect = effectOf(s.effect);
    const inputSchema = schema as JsonSchema;
    // Computed on first read (a getter, so JSON, spreads and equality see a plain string): a cold
    // call needs only its own tool's digest, and hashing every schema cost each start per tool.
    let digest: string | undefined;
    const digestOf = () =>
      (digest ??= toolDigest({
        origin: s.origin,
        name: s.rawName,
        schema: inputSchema,
        effect,
        description: s.description,
        executable: s.executable,
      }));
    entries.push({
      name: s.name,
      origin: s.origin,
      description: s.description,
      effect,
      approval: s.approval,
      get digest() {
        return digestOf();
      },
      inputSchema,
      ...(s.note ? { note: s.note } : {}),
      ...(s.original !== undefined ? { original: s.original } : {}),
      rawName: s.rawName,
      terms: s.terms,
      adapter: s.adapter,
    });
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const descriptors = entries.map(
    (e): Descriptor => ({
      name: e.name,
      ...(e.original !== undefined ? { original: e.original } : {}),
      origin: e.origin,
      description: e.description,
      effect: e.effect,
      approval: e.approval,
      get digest() {
        return e.digest;
      },
      inputSchema: e.inputSchema,
      ...(e.note ? { note: e.note } : {}),
    }),
  );
  return { ok: true, value: { descriptors, entries: new Map(entries.map((e) => [e.name, e])) } };
}
