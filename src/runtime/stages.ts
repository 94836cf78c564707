// The pipeline's checks before anything runs, one function each: the name (resolve), the arguments
// (validate), the profile, the permissions; and the boundary's rules for what a tool produces.
import type { Entry } from "../catalog/catalog.ts";
import type { BoundaryOptions } from "../boundary/boundary.ts";
import type { Need } from "../permission/types.ts";
import type { Outcome, Refusal } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import { explainWithArktype } from "../schema/explain.ts";
import { generatedValidator } from "../schema/builtin-checks.ts";
import { compileExternal } from "../schema/full.ts";
import { compileSchema, type Issue, type Validator } from "../schema/validate.ts";
import { withKeySuggestions } from "../schema/keys.ts";
import type { Admitted, InvokeDeps, Profile } from "./call-types.ts";
import { gateRefusal, MissingGrants } from "./missing-grants.ts";

const validators = new WeakMap<Entry, Validator>();
/**
 * Built-ins: the check generated from the schema arktype exported (else the fast check of it). Every other source
 * (MCP, Las,
 * authored): the complete validator (draft 2020-12 / draft-07, `$ref`, formats), loaded on first
 * use of a schema past the fast check's subset. Only an authored tool gets defaults filled in.
 */
const validatorFor = (e: Entry): Validator => {
  let v = validators.get(e);
  const how = e.terms.validation;
  if (!v)
    validators.set(
      e,
      (v =
        how.kind === "generated"
          ? (generatedValidator(e.inputSchema) ?? compileSchema(e.inputSchema))
          : compileExternal(e.inputSchema, { fillDefaults: how.defaults })),
    );
  return v;
};

const formatIssues = (issues: readonly Issue[]) =>
  issues
    .map(
      (i) =>
        `${i.path.length ? i.path.join(".") : "(arguments)"}: ` +
        `${i.message}${i.did_you_mean === undefined ? "" : ` (did you mean ${JSON.stringify(i.did_you_mean)}?)`}`,
    )
    .join("; ");

/**
 * 2. The arguments against the tool's input schema: the checked value, or args.invalid naming each
 * issue. Valid arguments are answered at once (no promise: a served call pays no extra turn for it).
 */
export function validate(entry: Entry, args: unknown): Outcome<unknown> | Promise<Outcome<unknown>> {
  const name = entry.name;
  let validator: Validator;
  try {
    validator = validatorFor(entry);
  } catch (e) {
    return {
      ok: false,
      refusal: {
        code: "schema.unsupported",
        message: `${name}'s input schema cannot be checked here (${(e as Error).message}); the tool is not called`,
      },
    };
  }
  const checked = validator(args);
  if (checked.ok) return { ok: true, value: checked.value };
  return invalid(entry, args, checked.issues);
}

async function invalid(entry: Entry, args: unknown, found: readonly Issue[]): Promise<Outcome<unknown>> {
  const name = entry.name;
  const how = entry.terms.validation;
  const explained =
    how.kind === "generated" && how.explain ? await explainWithArktype(how.explain, args, found) : found;
  const issues = withKeySuggestions(explained, entry.inputSchema, args);
  return {
    ok: false,
    refusal: {
      code: "args.invalid",
      message: `invalid arguments for ${name}: ${formatIssues(issues)}`,
      details: { issues },
    },
  };
}

/** 3. Whether the session's profile offers this call: the refusal when it does not. */
export function profileRefusal(p: Profile | undefined, name: string, value: unknown): Refusal | undefined {
  if (!p || p.offers(name, value)) return undefined;
  const which = p.offers(name)
    ? `this call of ${name} is not offered in profile "${p.name}" (it offers only some calls of ${name})`
    : `${name} is not offered in profile "${p.name}"`;
  return { code: "profile.excluded", message: `${which}; a session with another profile can call it` };
}

/**
 * What the permission stage granted: each need as checked (its real path), the grants, and what nobody could be
 * asked for.
 */
export interface Permitted {
  readonly checked: Need[];
  readonly grants: Admitted["grants"][number][];
  readonly missing: MissingGrants;
}

/** What a call with no needs is permitted: nothing to check, nothing missing (answered at once). */
const NONE_NEEDED = (): Permitted => ({ checked: [], grants: [], missing: new MissingGrants() });

/**
 * 4. Each need through the permission stage (or the source's own check: a server's start). The
 * handler works on what was checked here (its real paths), never on a second resolution of the names.
 */
export function permit(
  entry: Entry,
  needs: readonly Need[],
  deps: Pick<InvokeDeps, "permissions" | "approval">,
): Permitted | Promise<Permitted | { refusal: Refusal }> {
  return needs.length === 0 ? NONE_NEEDED() : permitEach(entry, needs, deps);
}

async function permitEach(
  entry: Entry,
  needs: readonly Need[],
  deps: Pick<InvokeDeps, "permissions" | "approval">,
): Promise<Permitted | { refusal: Refusal }> {
  const checked: Need[] = [];
  const grants: Admitted["grants"][number][] = [];
  const missing = new MissingGrants();
  const settle = entry.terms.settle;
  for (const need of needs) {
    const r = await (settle.by === "start" ? settle.check(need) : deps.permissions.check(need, entry.name));
    if (!r.ok && missing.add(r, deps.approval.ask === undefined)) continue;
    if (!r.ok) return { refusal: gateRefusal(r) };
    checked.push(r.value === undefined ? need : { ...need, value: r.value });
    grants.push({ need, value: r.value });
  }
  return { checked, grants, missing };
}

/** unknown_tool, naming the nearest callable name when one is close (suggested, never called). */
export function unknownTool(name: string, callable: Iterable<string>): Refusal {
  const near = nearest(name, callable);
  const message = `no tool named "${name}" in this catalog; \`toolgate tools\` lists them${didYouMean(near)}`;
  return near === undefined
    ? { code: "unknown_tool", message }
    : { code: "unknown_tool", message, details: { did_you_mean: near } };
}

/**
 * The boundary's rules for what a tool produces (its result, a task's log of it): the local-path
 * rule unless a built-in speaks for itself or the user lifted it; a relayed read's MCP Apps held
 * to the transport's bound.
 */
export const boundaryFor = (entry: Entry | undefined): BoundaryOptions => ({
  localPaths: entry === undefined || entry.terms.boundary.localPaths.rule === "on",
  ...(entry?.terms.boundary.apps === true ? { apps: true } : {}),
});
