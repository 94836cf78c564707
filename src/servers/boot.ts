// The boot's side of remote sources: which servers a command may start to list them (all for
// `tools`; for a call, only the server that can own the tool, none for a built-in or authored
// tool), which server would own a name and why that name is not in the catalog, and which
// non-required servers' tools are withheld (a bad or colliding name) instead of failing every call.
// Pure; boot.ts wires it.
import { NAME_RULE, NAME_RULE_TEXT, normalizeName, type ToolSource } from "../catalog/catalog.ts";
import { serverPrefix } from "../catalog/names.ts";
import type { ServerStatus } from "./list.ts";
import type { Refusal } from "../result/result.ts";
import { serverWho, type RemoteSpec } from "./specs.ts";

/**
 * Whether a boot may start `spec` to list it. `call` is the tool a `call` will run (undefined for
 * `tools`); `local` tells whether a name is a built-in's or an authored tool's.
 */
export function mayDiscover(
  spec: RemoteSpec,
  call: string | undefined,
  local: (name: string) => boolean,
  lasSurfaces: readonly string[],
): boolean {
  if (call === undefined) return true;
  if (local(call)) return false;
  const sep = call.indexOf("__");
  if (sep <= 0) return false;
  // A server's tools all start `<prefix>__`, mapped ones too (catalog/names.ts).
  return spec.kind === "las"
    ? lasSurfaces.includes(call.slice(0, sep))
    : call.startsWith(`${serverPrefix(spec.name)}__`);
}

/**
 * The server whose prefix starts `name` (the longest, should one prefix start another), else Las; none for a name
 * without `__`.
 */
export function ownerOf(specs: readonly RemoteSpec[], name: string): RemoteSpec | undefined {
  if (name.indexOf("__") <= 0) return undefined;
  const owners = specs.filter((s) => s.kind === "mcp" && name.startsWith(`${serverPrefix(s.name)}__`));
  return (
    owners.sort((a, b) => serverPrefix(b.name).length - serverPrefix(a.name).length)[0] ??
    specs.find((s) => s.kind === "las")
  );
}

/**
 * Whether `name` may be a tool of a server whose tools this boot did not list: a call's boot starts
 * only its own tool's server; one failed or was withheld. Nobody can say then that no such tool exists.
 */
export function mayOwnUnlisted(specs: readonly RemoteSpec[], status: readonly ServerStatus[], name: string): boolean {
  const spec = ownerOf(specs, name);
  return spec !== undefined && status.find((st) => st.name === spec.name)?.ok !== true;
}

/**
 * Why `name` is not in the catalog when a configured server would own it: the connect was
 * refused (`refusals`: the permission's refusal, naming the flag), failed, or its tools (or this one) were withheld.
 */
export function whyUnlisted(
  specs: readonly RemoteSpec[],
  status: readonly ServerStatus[],
  refusals: ReadonlyMap<string, Refusal>,
  name: string,
): Refusal | undefined {
  const spec = ownerOf(specs, name);
  const st = spec && status.find((x) => x.name === spec.name);
  if (!spec || !st) return undefined;
  const who = serverWho(spec);
  if (st.withheld !== undefined)
    return { code: "mcp.withheld", message: `${name}: the tools of ${who} are withheld: ${st.withheld}` };
  const t = st.withheldTools?.find((w) => w.name === name);
  if (t)
    return {
      code: "mcp.withheld",
      message:
        `${name}: withheld from the listing of ${who}: what it declares breaks the output boundary (rule ` +
        `${t.rule} at ${t.where}, the value is not shown)`,
    };
  if (st.ok) return undefined;
  return (
    refusals.get(spec.name) ?? {
      code: "mcp.connect_failed",
      message: `${name}: ${who} failed: ${st.error ?? "unknown error"}`,
    }
  );
}

export interface Withheld {
  readonly server: string;
  readonly reason: string;
}

/**
 * Splits remote sources into those the catalog takes and the servers whose tools are withheld.
 * Las and `required` servers are never withheld (their problems fail the boot in the catalog);
 * a non-required server is withheld whole when one of its tools has a bad name or schema, or a
 * name equal (after normalization) to any other source's, including another server's.
 */
export function withholdBadServers(
  remote: readonly ToolSource[],
  specs: readonly RemoteSpec[],
  others: readonly ToolSource[],
): { keep: ToolSource[]; withheld: Withheld[] } {
  const optional = new Set(specs.filter((s) => s.kind === "mcp" && !s.required).map((s) => s.origin));
  const owners = new Map<string, Set<string>>();
  for (const t of [...others, ...remote]) {
    const key = normalizeName(t.name);
    owners.set(key, (owners.get(key) ?? new Set()).add(t.origin));
  }
  const counts = new Map<string, number>();
  for (const t of [...others, ...remote])
    counts.set(normalizeName(t.name), (counts.get(normalizeName(t.name)) ?? 0) + 1);
  const reasons = new Map<string, string>();
  for (const t of remote) {
    if (!optional.has(t.origin) || reasons.has(t.origin)) continue;
    const why = problemOf(t, counts, owners);
    if (why) reasons.set(t.origin, why);
  }
  const withheld = specs
    .filter((s) => reasons.has(s.origin))
    .map((s) => ({ server: s.name, reason: reasons.get(s.origin)! }));
  return { keep: remote.filter((t) => !reasons.has(t.origin)), withheld };
}

function problemOf(
  t: ToolSource,
  counts: ReadonlyMap<string, number>,
  owners: ReadonlyMap<string, ReadonlySet<string>>,
): string | null {
  if (!NAME_RULE.test(t.name))
    return (
      `its tool ${JSON.stringify(t.rawName)} makes the name ${JSON.stringify(t.name)}, which is not ` +
      `${NAME_RULE_TEXT}`
    );
  const key = normalizeName(t.name);
  if (counts.get(key)! > 1) {
    const others = [...owners.get(key)!].filter((o) => o !== t.origin);
    const with_ = others.length > 0 ? `a tool from ${others.join(", ")}` : "another of its own tools";
    return `its tool "${t.name}" has the same name as ${with_} after normalization ("${key}"); no source has priority`;
  }
  const schema = t.inputSchema as { type?: unknown } | null;
  if (schema === null || typeof schema !== "object" || Array.isArray(schema) || schema.type !== "object") {
    return `its tool "${t.name}" has an input schema that is not a JSON object schema with "type": "object"`;
  }
  return null;
}
