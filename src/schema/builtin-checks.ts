// The built-in tools' input checks: ajv's standalone code, generated at build time from the JSON
// Schemas arktype exports (scripts/gen-schemas.ts), so a call neither loads a validator library
// nor compiles a schema (scripts/bench-validate.ts: the fastest of the engines measured, warm and
// cold). The config file's check is made the same way (config/file.ts loads it with the file).
import { toolSchemas } from "../generated/schemas.ts";
import { checks } from "../generated/validators.js";
import { validatorOf } from "./generated-check.ts";
import type { Validator } from "./validate.ts";

const nameOf = new Map<unknown, string>(Object.entries(toolSchemas).map(([name, schema]) => [schema, name]));

/** The generated check of `schema` when it is a built-in tool's exported one (by identity); undefined otherwise. */
export function generatedValidator(schema: unknown): Validator | undefined {
  const name = nameOf.get(schema);
  const check = name === undefined ? undefined : checks[name];
  return check && validatorOf(check);
}
