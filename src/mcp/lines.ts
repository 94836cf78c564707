// Whose answer a line dropped past the message bound was (result/ndjson.ts drops it and keeps its
// edges; transport.ts's PipeTransport fails the request it answered at once instead of letting it
// wait out its deadline): as the bound is passed when the line's start names it, else when the line ends.

import type { Dropped } from "../result/ndjson.ts";

/** An id as JSON writes one: an integer or a string. */
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
const VERSION = String.raw`"jsonrpc"\s*:\s*"2\.0"\s*`;
/** The object's first members: `jsonrpc` and `id` in either order (either may be missing), then the first other key. */
const HEAD = new RegExp(
  String.raw`^\s*\{\s*(?:${VERSION},\s*)?(?:"id"\s*:\s*${ID}\s*,\s*)?(?:${VERSION},\s*)?"([^"\\]*)"\s*:`,
);
/** The object's last members: `id`, with `jsonrpc` before or after it, then the object's end. */
const TAIL = new RegExp(String.raw`,\s*(?:${VERSION},\s*)?"id"\s*:\s*${ID}\s*(?:,\s*${VERSION})?\}\s*$`);

/**
 * Whether a dropped line was an answer to a request, and to which (its id, when its edges show it).
 * Servers write an answer's members in their serializer's order: `jsonrpc`, `id`, `result` (the
 * Python SDK, rmcp), or `result`, `jsonrpc`, `id` (the TypeScript SDK): the id is among the first
 * members or the last, and only there is it read (never from inside the result). A line whose
 * first key is `method` or `params` is a request or a notification of the server's; one that is not
 * a JSON object, or starts with any other key, is not a JSON-RPC answer either.
 */
export function answerOf(
  d: Dropped,
): { readonly answer: false } | { readonly answer: true; readonly id?: string | number } {
  const head = HEAD.exec(d.head);
  if (!head || (head[2] !== "result" && head[2] !== "error")) return { answer: false };
  const id = head[1] ?? TAIL.exec(d.tail)?.[1];
  if (id === undefined) return { answer: true };
  try {
    return { answer: true, id: JSON.parse(id) as string | number };
  } catch {
    return { answer: true };
  }
}
