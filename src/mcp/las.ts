// Las, the supervised MCP child (docs/mcp.md#las): its exact environment, the skarbiec identity
// rule checked before spawn, the pinned protocol and the required-surface boot check.
// Pure functions; the supervisor (spawn, connect, shutdown) builds on them.
import type { Refusal } from "../result/result.ts";
import { PINNED_PROTOCOL } from "./transport.ts";

export interface LasSettings {
  readonly command: string;
  readonly entrypoint: string;
  readonly only: readonly string[];
  readonly skip?: readonly string[] | undefined;
  readonly required_surfaces: readonly string[];
  readonly agent_id?: string | undefined;
  readonly timeout_secs: number;
  readonly shutdown_grace_secs: number;
  readonly release_manifest_file?: string | undefined;
  readonly release_manifest_signature_file?: string | undefined;
  readonly release_trust_store_file?: string | undefined;
  readonly release_watermark_file?: string | undefined;
}

const RELEASE_FILES = [
  ["LAS_RELEASE_MANIFEST_FILE", "release_manifest_file"],
  ["LAS_RELEASE_MANIFEST_SIGNATURE_FILE", "release_manifest_signature_file"],
  ["LAS_RELEASE_TRUST_STORE_FILE", "release_trust_store_file"],
  ["LAS_RELEASE_WATERMARK_FILE", "release_watermark_file"],
] as const;

/** Surfaces Las will serve: LAS_ONLY minus LAS_SKIP. */
export const selectedSurfaces = (las: LasSettings): string[] => las.only.filter((s) => !(las.skip ?? []).includes(s));

/**
 * The variables Las gets on top of the launcher's fixed PATH/LANG/LC_ALL: LAS_ONLY, LAS_SKIP
 * when set, the four release-pinning files when set, and — only when skarbiec is selected —
 * the parent's SKARBIEC_* capability paths (capabilityPath) plus SKARBIEC_MCP_AGENT_ID.
 * Skarbiec without an explicit agent id is refused here, before anything is spawned.
 */
export function lasEnv(
  las: LasSettings,
  parent: Readonly<Record<string, string | undefined>>,
): { ok: true; env: Record<string, string> } | { ok: false; refusal: Refusal } {
  const env: Record<string, string> = { LAS_ONLY: las.only.join(",") };
  if (las.skip && las.skip.length > 0) env.LAS_SKIP = las.skip.join(",");
  for (const [name, key] of RELEASE_FILES) {
    const v = las[key];
    if (v !== undefined && v !== "") env[name] = v;
  }
  if (selectedSurfaces(las).includes("skarbiec")) {
    const id = las.agent_id?.trim();
    if (!id) {
      return {
        ok: false,
        refusal: {
          code: "las.agent_id_missing",
          message:
            "the skarbiec surface needs an explicit agent id and none is configured; set las.agent_id in " +
            "toolgate.json, or drop skarbiec from LAS_ONLY / add it to LAS_SKIP",
        },
      };
    }
    for (const [k, v] of Object.entries(parent)) if (capabilityPath(k, v)) env[k] = v;
    env.SKARBIEC_MCP_AGENT_ID = id;
  }
  return { ok: true, env };
}

/** A name ending in one of these words holds a credential itself, never a path to hand over. */
const SECRET_WORDS = new Set([
  "TOKEN",
  "SECRET",
  "PASSWORD",
  "PASSWD",
  "PASS",
  "PASSPHRASE",
  "COOKIE",
  "AUTH",
  "AUTHORIZATION",
  "CREDENTIAL",
  "CREDENTIALS",
  "KEY",
  "APIKEY",
  "SESSION",
]);

/**
 * Las gets the parent's SKARBIEC_* capability *paths*, not every SKARBIEC_* variable.
 * A capability path is an absolute path (`/...`, one line) under a name whose last word does not
 * say it is a credential: SKARBIEC_VAULT=/v and SKARBIEC_TOKEN_FILE=/t pass; SKARBIEC_API_TOKEN,
 * SKARBIEC_API_KEY, SKARBIEC_PASSWORD (whatever their value) and a value that is not an absolute
 * path (a token, a URL) never do.
 */
export function capabilityPath(name: string, value: string | undefined): value is string {
  if (!name.startsWith("SKARBIEC_") || name === "SKARBIEC_MCP_AGENT_ID" || value === undefined) return false;
  if (SECRET_WORDS.has(name.split("_").at(-1)!)) return false;
  return /^\/[^\0\n\r]*$/.test(value);
}

/** Any protocol version other than the pinned one is a boot failure. */
export function checkProtocol(negotiated: string | undefined): Refusal | null {
  return negotiated === PINNED_PROTOCOL
    ? null
    : {
        code: "las.protocol",
        message:
          `Las negotiated MCP protocol ${JSON.stringify(negotiated)}; toolgate speaks ` +
          `${PINNED_PROTOCOL} only with Las`,
      };
}

/** Every required surface must expose at least one `<surface>__` tool. */
export function checkSurfaces(toolNames: readonly string[], required: readonly string[]): Refusal | null {
  const missing = required.filter((s) => !toolNames.some((n) => n.startsWith(`${s}__`)));
  if (missing.length === 0) return null;
  return {
    code: "las.surface_missing",
    message:
      `Las exposes no ${missing.map((s) => `${s}__*`).join(", ")} tool (required surfaces: ` +
      `${required.join(",")}); check LAS_ONLY/LAS_SKIP, or set SINGULARITY_REQUIRED_SURFACES`,
  };
}
