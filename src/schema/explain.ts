// The slow path of validation: only after the fast JSON-Schema check failed, load arktype
// and let it explain the failure in its own words (the schema language stays arktype).
import type { type as arkType, Type } from "arktype";
import type { Issue } from "./validate.ts";

export async function explainWithArktype(
  make: (t: typeof arkType) => Type<unknown>,
  data: unknown,
  fallback: readonly Issue[],
): Promise<Issue[]> {
  const { type } = await import("arktype");
  const { arkIssues } = await import("./ark-issues.ts");
  const out = make(type)(data);
  // arktype accepting what the fast check refused would be a bug in the fast check: keep its issues.
  return out instanceof type.errors ? arkIssues(out) : [...fallback];
}
