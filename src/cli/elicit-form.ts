// A server's elicitation/create as a small form on the terminal: one line per property of the
// requested schema (string, number, integer, boolean, enum), each default pre-filled and kept by
// Enter (SEP-1034), then accept / decline / cancel. Everything the server wrote is escaped.
import type { ElicitAnswer, ElicitForm } from "../mcp/peer.ts";
import type { TtyLines } from "../permission/prompt.ts";
import { escapeControl } from "../result/escape.ts";

export interface Field {
  readonly key: string;
  readonly label: string;
  readonly kind: "string" | "number" | "integer" | "boolean" | "enum";
  readonly required: boolean;
  readonly description?: string;
  readonly options?: readonly { readonly value: string; readonly title: string }[];
  readonly default?: string | number | boolean;
  readonly min?: number;
  readonly max?: number;
}

type Prop = Record<string, unknown>;

/** The form's fields, or why the schema cannot be asked as one (then the request is declined). */
export function fieldsOf(
  schema: ElicitForm["requestedSchema"],
): { ok: true; fields: Field[] } | { ok: false; why: string } {
  if (schema.type !== undefined && schema.type !== "object")
    return { ok: false, why: "the requested schema is not an object" };
  const props = schema.properties ?? {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [],
  );
  const fields: Field[] = [];
  for (const [key, raw] of Object.entries(props)) {
    if (raw === null || typeof raw !== "object") return { ok: false, why: `property "${key}" is not a schema` };
    const p = raw as Prop;
    const options = optionsOf(p);
    const kind = options ? "enum" : p.type;
    if (kind !== "string" && kind !== "number" && kind !== "integer" && kind !== "boolean" && kind !== "enum") {
      return {
        ok: false,
        why: `property "${key}" has type ${JSON.stringify(p.type)}, which a terminal form does not ask`,
      };
    }
    const d = p.default;
    const def = typeof d === "string" || typeof d === "number" || typeof d === "boolean" ? d : undefined;
    const [min, max] = kind === "string" ? [p.minLength, p.maxLength] : [p.minimum, p.maximum];
    fields.push({
      key,
      label: typeof p.title === "string" && p.title !== "" ? p.title : key,
      kind,
      required: required.has(key),
      ...(typeof p.description === "string" && p.description !== "" ? { description: p.description } : {}),
      ...(options ? { options } : {}),
      ...(def !== undefined ? { default: def } : {}),
      ...(typeof min === "number" ? { min } : {}),
      ...(typeof max === "number" ? { max } : {}),
    });
  }
  return { ok: true, fields };
}

/** `enum` (with legacy `enumNames`) or `oneOf`/`anyOf` of `{const, title}` (titled single-select). */
function optionsOf(p: Prop): Field["options"] | undefined {
  if (Array.isArray(p.enum) && p.enum.every((v) => typeof v === "string")) {
    const names = Array.isArray(p.enumNames) ? p.enumNames : [];
    return (p.enum as string[]).map((value, i) => ({ value, title: typeof names[i] === "string" ? names[i] : value }));
  }
  const list = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : undefined;
  if (
    list &&
    list.length > 0 &&
    list.every((o) => o !== null && typeof o === "object" && typeof (o as Prop).const === "string")
  ) {
    return (list as Prop[]).map((o) => ({
      value: o.const as string,
      title: typeof o.title === "string" ? o.title : (o.const as string),
    }));
  }
  return undefined;
}

/** One typed line for a field: Enter keeps the default (or leaves an optional field out). */
export function parseAnswer(f: Field, line: string): { ok: true; value: unknown } | { ok: false; why: string } {
  const text = f.kind === "string" ? line : line.trim();
  if (text === "") {
    if (f.default !== undefined) return { ok: true, value: f.default };
    return f.required ? { ok: false, why: "this field is required" } : { ok: true, value: undefined };
  }
  switch (f.kind) {
    case "boolean":
      if (/^(y|yes|true)$/i.test(text)) return { ok: true, value: true };
      if (/^(n|no|false)$/i.test(text)) return { ok: true, value: false };
      return { ok: false, why: "answer yes or no" };
    case "enum": {
      const opts = f.options ?? [];
      const n = /^\d+$/.test(text) ? Number(text) : NaN;
      const hit = opts.find((o) => o.value === text) ?? (n >= 1 && n <= opts.length ? opts[n - 1] : undefined);
      return hit
        ? { ok: true, value: hit.value }
        : { ok: false, why: `answer one of ${opts.map((o) => o.value).join(", ")} (or its number)` };
    }
    case "number":
    case "integer": {
      const v = Number(text);
      if (!Number.isFinite(v) || (f.kind === "integer" && !Number.isInteger(v)))
        return { ok: false, why: `answer ${f.kind === "integer" ? "a whole number" : "a number"}` };
      if ((f.min !== undefined && v < f.min) || (f.max !== undefined && v > f.max))
        return { ok: false, why: `answer between ${f.min ?? "-∞"} and ${f.max ?? "∞"}` };
      return { ok: true, value: v };
    }
    default:
      if ((f.min !== undefined && text.length < f.min) || (f.max !== undefined && text.length > f.max))
        return { ok: false, why: `answer ${f.min ?? 0}-${f.max ?? "∞"} characters` };
      return { ok: true, value: text };
  }
}

const show = (v: unknown) => (typeof v === "boolean" ? (v ? "yes" : "no") : String(v));

function questionOf(f: Field): string {
  const what =
    f.kind === "enum"
      ? `one of ${(f.options ?? []).map((o, i) => `${i + 1}=${o.value === o.title ? o.value : `${o.value} (${o.title})`}`).join(", ")}`
      : f.kind === "boolean"
        ? "yes/no"
        : f.kind;
  const about = f.description ? ` — ${f.description}` : "";
  const def =
    f.default !== undefined ? ` [${show(f.default)}]` : f.required ? " (required)" : " (optional: Enter skips)";
  return escapeControl(`┠─ ${f.label} (${what})${about}${def} > `);
}

const TRIES = 3;

/**
 * Asks the form on `tty`: each field (a bad line is asked again, up to 3 times), then whether to
 * send. End of input, or a field never answered, is a cancel.
 */
export function askForm(tty: TtyLines, form: ElicitForm, who: { server: string; tool: string }): ElicitAnswer {
  const parsed = fieldsOf(form.requestedSchema);
  if (!parsed.ok) return { action: "decline" };
  tty.write(`┏ 💬 MCP server "${escapeControl(who.server)}" asks for input (during ${escapeControl(who.tool)}):\n`);
  for (const l of form.message.split("\n")) tty.write(`┃   ${escapeControl(l)}\n`);
  const content: Record<string, unknown> = {};
  for (const f of parsed.fields) {
    let settled = false;
    for (let i = 0; i < TRIES && !settled; i++) {
      tty.write(questionOf(f));
      const line = tty.line();
      if (line === null) return cancelled(tty);
      const r = parseAnswer(f, line);
      if (r.ok) {
        if (r.value !== undefined) content[f.key] = r.value;
        settled = true;
      } else tty.write(`┃   ${r.why}\n`);
    }
    if (!settled) return cancelled(tty);
  }
  for (let i = 0; i < TRIES; i++) {
    tty.write("┗ Send these values? [a/d/c] (a = accept and send; d = decline; c = cancel) > ");
    const line = tty.line();
    if (line === null) return cancelled(tty);
    const a = line.trim().toLowerCase();
    if (a === "a" || a === "accept") {
      tty.write("✅ Sent.\n");
      return { action: "accept", content };
    }
    if (a === "d" || a === "decline") {
      tty.write("❌ Declined.\n");
      return { action: "decline" };
    }
    if (a === "c" || a === "cancel") return cancelled(tty);
  }
  return cancelled(tty);
}

function cancelled(tty: TtyLines): ElicitAnswer {
  tty.write("\n❌ Cancelled.\n");
  return { action: "cancel" };
}
