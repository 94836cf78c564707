// Validator benchmark (on demand, not in `bun test`): a built-in tool's argument check, the fast
// check src/schema/validate.ts compiles from arktype's JSON Schema, against arktype's own, per call
// once the JIT is warm; and what compiling one costs. test/schema/validate.test.ts proves they agree.
import { type, type Type } from "arktype";
import { compileSchema, type JsonSchema } from "../src/schema/validate.ts";

const shapes: [name: string, t: Type<any, any>, input: unknown][] = [
  ['"+": "reject"', type({ "+": "reject", a: "string", "b?": "number" }), { a: "x" }],
  ["nested objects", type({ outer: { inner: { leaf: "string" }, "n?": "number" } }), { outer: { inner: { leaf: "x" } } }],
  ["defaults", type({ key: "number = 5", "name?": "string", mode: "'a' | 'b' = 'a'" }), {}],
];

/** Nanoseconds per call of `f`, after as many calls to warm up. */
function perCall(f: () => unknown, n = 100_000): string {
  for (let i = 0; i < n; i++) f();
  const start = Bun.nanoseconds();
  for (let i = 0; i < n; i++) f();
  return ((Bun.nanoseconds() - start) / n).toFixed(0);
}

for (const [name, t, input] of shapes) {
  const validate = compileSchema(t.toJsonSchema() as JsonSchema);
  const compile = perCall(() => compileSchema(t.toJsonSchema() as JsonSchema), 1000);
  console.log(`${name}: fast ${perCall(() => validate(input))} ns, arktype ${perCall(() => t(input))} ns, compile ${compile} ns`);
}
