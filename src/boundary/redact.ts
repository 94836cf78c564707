// Redaction of secret values bound to a call, for every view (also across chunk boundaries of a
// stream), and the bounded argument preview used by prompts and the journal. Pure. Runs after the
// boundary check, before the journal and the views. What each secret is masked as: masks.ts.
import { isSecretKey } from "./keys.ts";
import { masksOf, type Masks } from "./masks.ts";

export { MIN_ENCODED_LENGTH, MIN_SECRET_LENGTH } from "./masks.ts";

export const REDACTED = "[REDACTED]";

/**
 * Where masks cover `text`, as merged [start, end) pairs, sorted. Every occurrence counts,
 * overlapping ones included, so with secrets "abcd" and "cdef" all of "abcdef" is covered.
 * `carry` marks [0, carry) as covered by a match that began before `text`. Runs of covered chars
 * (touching or overlapping matches) become one marker.
 */
function coverage(text: string, masks: Masks, carry: number): number[] {
  const spans: Array<[number, number]> = carry > 0 ? [[0, carry]] : [];
  for (const secret of masks.texts) {
    for (let p = text.indexOf(secret); p !== -1; p = text.indexOf(secret, p + 1)) spans.push([p, p + secret.length]);
  }
  // A percent-encoded form holds a `%` or a `+`; without either, a pattern matches only the literal.
  if (masks.patterns.length > 0 && (text.indexOf("%") !== -1 || text.indexOf("+") !== -1)) {
    for (const pattern of masks.patterns) {
      pattern.lastIndex = 0;
      for (let m = pattern.exec(text); m !== null; pattern.lastIndex = m.index + 1, m = pattern.exec(text))
        spans.push([m.index, m.index + m[0].length]);
    }
  }
  spans.sort((a, b) => a[0] - b[0]);
  const merged: number[] = [];
  for (const [start, end] of spans) {
    const last = merged.length - 1;
    if (last > 0 && start <= merged[last]!) merged[last] = Math.max(merged[last]!, end);
    else merged.push(start, end);
  }
  return merged;
}

/** text[0, cut) with each covered run replaced by one marker; `continuing` when the run at 0 began earlier. */
function emit(text: string, cut: number, spans: number[], continuing: boolean): string {
  let out = "";
  let pos = 0;
  for (let i = 0; i < spans.length && spans[i]! < cut; i += 2) {
    const start = spans[i]!;
    out += text.slice(pos, start);
    if (!(start === 0 && continuing)) out += REDACTED;
    pos = Math.min(spans[i + 1]!, cut);
  }
  return out + text.slice(pos, cut);
}

/** Every occurrence of every form of every usable secret replaced by [REDACTED]. */
export function redactText(text: string, secrets: readonly string[]): string {
  const list = masksOf(secrets);
  return list.texts.length === 0 ? text : redactWith(text, list);
}

function redactWith(text: string, list: Masks): string {
  const spans = coverage(text, list, 0);
  return spans.length === 0 ? text : emit(text, text.length, spans, false);
}

/**
 * A copy of `value` with secrets redacted from every string, keys included. The copy follows
 * JSON.stringify (`toJSON` honoured); a number or bigint whose decimal text holds a secret
 * becomes the string [REDACTED]. If two keys redact to the same text, the later one wins.
 * With no usable secrets the value itself is returned.
 */
export function redactValue(value: unknown, secrets: readonly string[]): unknown {
  const list = masksOf(secrets);
  return list.texts.length === 0 ? value : redactDeep(value, list, false, Infinity);
}

/** `room` is how many more containers to enter; past it a container previews as "…". */
function redactDeep(value: unknown, list: Masks, maskSecretKeys: boolean, room: number): unknown {
  if (typeof value === "string") return redactWith(value, list);
  if (typeof value === "number" || typeof value === "bigint") {
    const text = String(value);
    return redactWith(text, list) === text ? value : REDACTED;
  }
  if (typeof value !== "object" || value === null) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return redactDeep(toJSON.call(value, ""), list, maskSecretKeys, room);
  if (room <= 0) return "…";
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, list, maskSecretKeys, room - 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const next = maskSecretKeys && isSecretKey(key) ? REDACTED : redactDeep(item, list, maskSecretKeys, room - 1);
    // defineProperty, so a key named __proto__ stays data instead of setting the prototype.
    Object.defineProperty(out, redactWith(key, list), {
      value: next,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Redacts a stream whose chunks may split a secret anywhere. Holds back the last (longest mask
 * − 1) UTF-16 units, one more rather than split a surrogate pair (the longest form, such as a
 * secret's percent-encoding or hex, sets it); the concatenation of every push and the flush
 * equals redactText of the whole stream.
 */
export class StreamRedactor {
  readonly #masks: Masks;
  readonly #hold: number;
  #pending = "";
  #carry = 0; // leading chars of #pending covered by a match already partly emitted
  #inRun = false; // the last emitted char was covered

  constructor(secrets: readonly string[]) {
    this.#masks = masksOf(secrets);
    this.#hold = Math.max(0, this.#masks.longest - 1);
  }

  push(chunk: string): string {
    if (this.#masks.texts.length === 0) return chunk;
    this.#pending += chunk;
    let cut = this.#pending.length - this.#hold;
    if (cut > 0 && isHighSurrogate(this.#pending.charCodeAt(cut - 1))) cut--;
    return cut > 0 ? this.#emitUpTo(cut) : "";
  }

  flush(): string {
    if (this.#pending.length === 0) return "";
    const out = this.#emitUpTo(this.#pending.length);
    this.#carry = 0;
    this.#inRun = false;
    return out;
  }

  /** Every match starting before `cut` lies wholly in #pending, so coverage of [0, cut) is final. */
  #emitUpTo(cut: number): string {
    const text = this.#pending;
    const spans = coverage(text, this.#masks, this.#carry);
    const out = emit(text, cut, spans, this.#inRun);
    // The merged span reaching cut, if any, decides both: spans starting later are found again.
    let reach = 0;
    for (let i = 0; i < spans.length && spans[i]! < cut; i += 2) reach = spans[i + 1]!;
    this.#inRun = reach >= cut;
    this.#carry = Math.max(0, reach - cut);
    this.#pending = text.slice(cut);
    return out;
  }
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

const PREVIEW_DEPTH = 16;

/**
 * Invisible or reordering characters JSON.stringify leaves raw: DEL and C1 controls, soft hyphen,
 * bidi marks, embeddings and overrides, zero-widths, line separators, BOM, tag characters.
 */
const INVISIBLE =
  /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

/**
 * A one-line, bounded preview of call arguments for prompts and the journal: compact JSON;
 * values under keys the boundary's secret-key rule names become [REDACTED]; bound secrets are
 * redacted; control and invisible characters appear as \uXXXX escapes; containers deeper than
 * PREVIEW_DEPTH (cycles included) show as "…"; clipped to `maxChars` (at least 1) ending in "…".
 * A bigint makes the arguments preview as a marker.
 */
export function previewArgs(args: unknown, maxChars = 240, secrets: readonly string[] = []): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(redactDeep(args, masksOf(secrets), true, PREVIEW_DEPTH));
  } catch {
    json = "[unserializable arguments]";
  }
  if (json === undefined) return "";
  const visible = json.replace(INVISIBLE, escapeUnits);
  const limit = Math.max(1, Math.floor(maxChars));
  if (visible.length <= limit) return visible;
  let cut = limit - 1;
  if (cut > 0 && isHighSurrogate(visible.charCodeAt(cut - 1))) cut--;
  return `${visible.slice(0, cut)}…`;
}

/** How deep the approval prompt shows nested arguments (deeper containers and cycles: "…"). */
const APPROVAL_DEPTH = 64;

/**
 * The whole arguments for the approval prompt: pretty-printed JSON, never clipped (the prompt
 * decides what fits), redacted as the preview is, invisible characters as \uXXXX escapes.
 */
export function argsForApproval(args: unknown, secrets: readonly string[] = []): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(redactDeep(args, masksOf(secrets), true, APPROVAL_DEPTH), null, 2);
  } catch {
    json = "[unserializable arguments]";
  }
  return json === undefined ? "" : json.replace(INVISIBLE, escapeUnits);
}

function escapeUnits(ch: string): string {
  let out = "";
  for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return out;
}
