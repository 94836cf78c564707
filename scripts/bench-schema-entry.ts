// One cold process of scripts/bench-schema.ts: the time the complete validator (src/schema/full.ts)
// adds to the first call of a `$ref` tool — loading ajv, making the instance, compiling the
// schema, validating once — printed as JSON. With `sdk`, the MCP SDK's client module is loaded
// first, as in a real MCP call (it loads ajv's core itself).
import { compileFull } from "../src/schema/full.ts";

const PYDANTIC = {
  $defs: {
    Query: {
      properties: {
        text: { title: "Text", type: "string", minLength: 1 },
        tags: { anyOf: [{ items: { type: "string" }, type: "array" }, { type: "null" }], default: null, title: "Tags" },
        since: { anyOf: [{ format: "date", type: "string" }, { type: "null" }], default: null },
      },
      required: ["text"],
      title: "Query",
      type: "object",
    },
  },
  properties: { q: { $ref: "#/$defs/Query" }, limit: { default: 10, title: "Limit", type: "integer", minimum: 1 } },
  required: ["q"],
  title: "searchArguments",
  type: "object",
};

if (process.argv[2] === "sdk") await import("@modelcontextprotocol/sdk/client/index.js");
const t0 = performance.now();
const validate = compileFull(PYDANTIC);
const t1 = performance.now();
const ok = validate({ q: { text: "rain", since: "2026-11-30" } }).ok;
const t2 = performance.now();
const again = compileFull({ ...PYDANTIC, title: "another" });
again({ q: { text: "x" } });
const t3 = performance.now();
process.stdout.write(
  `${JSON.stringify({ first: t2 - t0, compile: t1 - t0, validate: t2 - t1, nextTool: t3 - t2, ok })}\n`,
);
