// A check generated at build time (ajv's standalone code, scripts/gen-schemas.ts) as the pipeline's
// Validator: only the verdict is read, and an error's path (a refusal is worded by arktype,
// explain.ts; these issues stand in only should arktype accept what the check refused).
import type { GeneratedCheck } from "../generated/validators.js";
import { issuesOf } from "./full.ts";
import type { Validator } from "./validate.ts";

export function validatorOf(check: GeneratedCheck): Validator {
  return (data) => {
    if (check(data)) return { ok: true, value: data };
    // The generated code keeps no data in its errors (smaller): each error's value is read back for "was …".
    return {
      ok: false,
      issues: issuesOf((check.errors ?? []).map((e) => ({ ...e, data: valueAt(data, e.instancePath) }))),
    };
  };
}

/** The value at a JSON pointer ("/steps/0/title") in `data`; undefined when there is none. */
function valueAt(data: unknown, pointer: string): unknown {
  let at = data;
  for (const raw of pointer === "" ? [] : pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    at =
      typeof at === "object" && at !== null && Object.hasOwn(at, key)
        ? (at as Record<string, unknown>)[key]
        : undefined;
  }
  return at;
}
