// The checks of the schemas toolgate declares itself (the built-in tools' inputs, the config file):
// ajv's standalone code, generated at build time from the JSON Schemas arktype exports
// (scripts/gen-schemas.ts), so neither a call nor a start loads a validator library or compiles a
// schema (scripts/bench-validate.ts: the fastest of the engines measured, warm and cold). Only the
// verdict is read: a refusal is worded by arktype (explain.ts).
import { validate as configCheck } from "../generated/config-check.js";
import { toolSchemas } from "../generated/schemas.ts";
import { checks, type GeneratedCheck } from "../generated/validators.js";
import { issuesOf } from "./full.ts";
import type { Validator } from "./validate.ts";

const nameOf = new Map<unknown, string>(Object.entries(toolSchemas).map(([name, schema]) => [schema, name]));

/** The generated check of `schema` when it is a built-in tool's exported one (by identity); undefined otherwise. */
export function generatedValidator(schema: unknown): Validator | undefined {
  const name = nameOf.get(schema);
  const check = name === undefined ? undefined : checks[name];
  return check && validatorOf(check);
}

/** The config file's check: a default its schema names is filled into the data checked (as arktype would). */
export const configValidator: Validator = validatorOf(configCheck);

function validatorOf(check: GeneratedCheck): Validator {
  return (data) => {
    if (check(data)) return { ok: true, value: data };
    // The generated code keeps no data in its errors (smaller): each error's value is read back for "was …".
    return { ok: false, issues: issuesOf((check.errors ?? []).map((e) => ({ ...e, data: valueAt(data, e.instancePath) }))) };
  };
}

/** The value at a JSON pointer ("/steps/0/title") in `data`; undefined when there is none. */
function valueAt(data: unknown, pointer: string): unknown {
  let at = data;
  for (const raw of pointer === "" ? [] : pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    at = typeof at === "object" && at !== null && Object.hasOwn(at, key) ? (at as Record<string, unknown>)[key] : undefined;
  }
  return at;
}
