// What toolgate says of an answer the SDK's schema refused (a tools/call result that is not one,
// a JSON-RPC envelope with a key it does not allow): where it broke and how, in words of toolgate's
// own. The schema's messages are not repeated: zod names an unrecognized key, and a hostile server
// chooses its keys (a sentence aimed at the model, a path); nor is any key the schema does not know.

/** The words for each kind of issue (zod's codes); anything else is "invalid". */
const SAID: Readonly<Record<string, string>> = {
  invalid_type: "not of the expected type",
  unrecognized_keys: "a key the schema does not allow",
  invalid_union: "invalid input",
  invalid_value: "not an allowed value",
  invalid_format: "not in the expected format",
  invalid_key: "an invalid key",
  invalid_element: "an invalid element",
  too_small: "too small",
  too_big: "too big",
  not_multiple_of: "not an allowed number",
};

/** The names a result's or an envelope's schema uses: a place is shown by these, and indexes, only. */
const KNOWN = new Set([
  "jsonrpc",
  "id",
  "method",
  "params",
  "result",
  "error",
  "code",
  "message",
  "data",
  "content",
  "type",
  "text",
  "mimeType",
  "resource",
  "uri",
  "blob",
  "name",
  "title",
  "description",
  "annotations",
  "audience",
  "priority",
  "lastModified",
  "icons",
  "src",
  "sizes",
  "theme",
  "size",
  "structuredContent",
  "isError",
  "_meta",
  "progressToken",
  "tools",
  "inputSchema",
  "outputSchema",
  "nextCursor",
  "resources",
  "resourceTemplates",
  "contents",
  "prompts",
  "messages",
  "role",
  "arguments",
  "completion",
  "values",
]);

/** Where and how an answer broke the schema, from its issues: never a key or value the server chose. */
export function whereRefused(issues: readonly unknown[]): string {
  const place = (path: unknown) =>
    Array.isArray(path) && path.length > 0
      ? path
          .map((p) =>
            typeof p === "number" && Number.isSafeInteger(p)
              ? `[${p}]`
              : typeof p === "string" && KNOWN.has(p)
                ? `.${p}`
                : ".…",
          )
          .join("")
          .replace(/^\./, "")
      : "the answer";
  const how = (i: { code?: unknown; expected?: unknown }) =>
    i.code === "invalid_type" && typeof i.expected === "string" && /^[a-z]{1,16}$/.test(i.expected)
      ? `expected ${i.expected}`
      : typeof i.code === "string" && Object.hasOwn(SAID, i.code)
        ? SAID[i.code]!
        : "invalid";
  const shown = issues
    .slice(0, 3)
    .map((i) => `${place((i as { path?: unknown }).path)}: ${how(i as { code?: unknown; expected?: unknown })}`);
  return `${shown.join("; ")}${issues.length > 3 ? `; and ${issues.length - 3} more` : ""}`;
}
