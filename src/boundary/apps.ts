// MCP Apps in a relayed resources/read (BoundaryOptions.apps): a `contents` item whose URI is
// `ui://` and whose mimeType is text/html (`text/html;profile=mcp-app`) is an App's interface,
// rendered by the host in a sandboxed frame, not read by the model, and a whole bundled program
// (hundreds of KiB). Its text is held to the transport's bound (16 MiB), not the 64 KiB, and is
// read for a NUL and a private key only: a bundle's code reads as paths (zod's `file:` export is a
// `file:` URL). Every other part of the result, that item's other fields included, is checked as
// any result is. Pure; used only by boundary.ts.
import { textRule, type TextRule } from "./scan.ts";

/** A result with App interfaces: the result, and their indices in its contents. */
export interface Apps {
  readonly value: { readonly contents: readonly unknown[] };
  readonly at: readonly number[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const HTML = /^\s*text\/html\s*(;|$)/i;

/** The App interfaces among a resources/read result's contents, or null when it has none. */
export function appTexts(value: unknown): Apps | null {
  if (!isRecord(value) || !Array.isArray(value.contents)) return null;
  const at: number[] = [];
  value.contents.forEach((c, i) => {
    if (
      isRecord(c) &&
      typeof c.text === "string" &&
      typeof c.uri === "string" &&
      /^ui:\/\//i.test(c.uri) &&
      typeof c.mimeType === "string" &&
      HTML.test(c.mimeType)
    )
      at.push(i);
  });
  return at.length > 0 ? { value: value as Apps["value"], at } : null;
}

/** The result with each App's text emptied: what the other rules check. */
export function withoutAppTexts(apps: Apps): unknown {
  return {
    ...apps.value,
    contents: apps.value.contents.map((c, i) => (apps.at.includes(i) ? { ...(c as object), text: "" } : c)),
  };
}

/** The first App text with a NUL or a private key, and where. */
export function appTextRule(apps: Apps): { rule: TextRule; where: string } | null {
  for (const i of apps.at) {
    const rule = textRule((apps.value.contents[i] as { text: string }).text, null);
    if (rule !== null) return { rule, where: `$.contents[${i}].text` };
  }
  return null;
}
