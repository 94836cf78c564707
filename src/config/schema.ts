// The config file's schema, in arktype, behind a thunk so the hot path never loads arktype.
// The build exports it to JSON Schema (src/generated/schemas.json); `toolgate config schema` prints that.
import type { type as arkType } from "arktype";

export const configType = (type: typeof arkType) => {
  const grants = type({
    "+": "reject",
    "read?": "boolean | string[]",
    "write?": "boolean | string[]",
    "run?": "boolean | string[]",
    "net?": "boolean | string[]",
    "env?": "boolean | string[]",
  });
  const mcpServer = type({
    "+": "reject",
    "type?": "'stdio' | 'http' | 'streamable-http' | 'sse'",
    "command?": "string > 0",
    "args?": "string[]",
    "env?": { "[string]": "string" },
    "cwd?": "string",
    "url?": "string > 0",
    "headers?": { "[string]": "string" },
    "include?": "string[]",
    "exclude?": "string[]",
    "connect_timeout_secs?": "number > 0",
    "timeout_secs?": "number > 0",
    "required?": "boolean",
    // The server needs the network: in the product sandbox it gets it only with --allow-net.
    "network?": "boolean",
    // Parent variables passed through by name (each needs --allow-env=NAME).
    "inherit_env?": "string[]",
    // Keys other MCP clients write into an entry; accepted so a block pastes unchanged.
    "disabled?": "boolean",
    "autoApprove?": "string[]",
    "alwaysAllow?": "string[]",
    "timeout?": "number",
    "description?": "string",
    "name?": "string",
    "transportType?": "string",
    "envFile?": "string",
    // The user's own opt-out for a server whose job is to answer with absolute paths (ESLint, pdf):
    // the boundary's local-path rule is off for its results. Widens: only a trusted config sets it.
    "boundary?": { "+": "reject", "local_paths?": "'allow'" },
    // OAuth client settings for an HTTP server (toolgate auth). Chooses credentials: only a trusted config sets it.
    "oauth?": {
      "+": "reject",
      "client_id?": "string > 0",
      "client_secret?": "string > 0",
      "client_metadata_url?": "string > 0",
      // private_key_jwt client authentication (RFC 7523): a PKCS#8 PEM, usually "${NAME}", and its algorithm.
      "private_key?": "string > 0",
      "signing_algorithm?": "string > 0",
      "scope?": "string",
      "grant?": "'authorization_code' | 'client_credentials'",
    },
  });
  const names = "string > 0 | (string > 0)[]";
  // A caller rule of serve --http --oauth-issuer: the claims it matches (every key given must hold)
  // and what it gives, over the serve line (it only narrows).
  const callerRule = type({
    "+": "reject",
    "name?": "string > 0",
    "match?": { "+": "reject", "sub?": names, "client_id?": names, "groups?": names, "scopes?": names },
    "profile?": "string > 0",
    "approve?": "string[]",
    "requests_per_minute?": "number.integer > 0",
    "concurrent_sessions?": "number.integer > 0",
  });
  return type({
    "+": "reject",
    "$schema?": "string",
    "workspace?": "string > 0",
    "scratch?": "string > 0",
    "state?": "string > 0",
    "permissions?": { "+": "reject", "allow?": grants, "deny?": grants, "prompt?": "boolean" },
    "approval?": { "[string]": "'required' | 'never'" },
    "profiles?": { "[string]": { "+": "reject", "include?": "string[]", "exclude?": "string[]" } },
    "las?": {
      "+": "reject",
      "enabled?": "boolean",
      "command?": "string > 0",
      "entrypoint?": "string > 0",
      "only?": "string[]",
      "skip?": "string[]",
      "required_surfaces?": "string[]",
      "agent_id?": "string > 0",
      "timeout_secs?": "number > 0",
      "shutdown_grace_secs?": "number >= 0",
      "network?": "boolean",
      "release_manifest_file?": "string > 0",
      "release_manifest_signature_file?": "string > 0",
      "release_trust_store_file?": "string > 0",
      "release_watermark_file?": "string > 0",
    },
    "mcpServers?": { "[string]": mcpServer },
    "rails?": { "+": "reject", "require?": "boolean", "required?": "boolean" },
    "most?": { "+": "reject", "service_token_file?": "string > 0", "url?": "string > 0" },
    "gates?": {
      "+": "reject",
      "directory?": "string > 0",
      "pattern?": "string > 0",
      "timeout_secs?": "number > 0",
      "annotations?": "boolean",
    },
    "bash?": { "+": "reject", "timeout_secs?": "number > 0", "max_timeout_secs?": "number > 0" },
    "authored?": { "+": "reject", "dir?": "string > 0" },
    // yield_until's longest wait; below the call deadline (300 s), so a yield never turns into one.
    "tasks?": { "+": "reject", "yield_cap_secs?": "0 < number <= 290" },
    "sandbox?": "'off' | 'product' | 'bench'",
    "delegation?": {
      "+": "reject",
      "command?": "string[] > 0",
      "worktree_root?": "string > 0",
      "timeout_secs?": "number > 0",
      "max_output_chars?": "number.integer >= 100",
      "env?": "string[]",
    },
    // Reserved: the boundary's rules are fixed (no key loosens or extends them yet).
    "boundary?": { "+": "reject" },
    "skills?": "string[]",
    // serve --http as a team's gateway: whose access tokens are accepted, and what each caller gets.
    "serve?": {
      "+": "reject",
      "oauth?": {
        "+": "reject",
        issuer: "string > 0",
        "audience?": "string > 0",
        "scopes?": "string[]",
        "jwks_uri?": "string > 0",
        "groups_claim?": "string > 0",
      },
      "callers?": callerRule.array(),
    },
  });
};

/** A config file's data as the schema accepts it (type only: arktype is not loaded for it). */
export type ConfigData = ReturnType<typeof configType>["infer"];
