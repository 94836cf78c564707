import { describe, expect, test } from "bun:test";
import { DEFAULT_LAS_ONLY } from "../../src/config/resolve.ts";
import { checkProtocol, checkSurfaces, lasEnv, type LasSettings } from "../../src/mcp/las.ts";

const las = (over: Partial<LasSettings> = {}): LasSettings => ({
  command: "node",
  entrypoint: "../las/src/mcp.mjs",
  only: DEFAULT_LAS_ONLY,
  required_surfaces: ["skarbiec", "finance"],
  timeout_secs: 120,
  shutdown_grace_secs: 10,
  agent_id: "being-7",
  ...over,
});

describe("Las environment", () => {
  test("exactly LAS_ONLY, the release files and skarbiec's variables", () => {
    const r = lasEnv(
      las({
        skip: ["tama"],
        release_manifest_file: "/r/m",
        release_manifest_signature_file: "/r/s",
        release_trust_store_file: "/r/t",
        release_watermark_file: "/r/w",
      }),
      {
        SKARBIEC_VAULT_PATH: "/v",
        SKARBIEC_KEY_PATH: "/k",
        AWS_SECRET_ACCESS_KEY: "x",
        HOME: "/root",
        NOT_SKARBIEC_X: "y",
      },
    );
    expect(r).toEqual({
      ok: true,
      env: {
        LAS_ONLY: DEFAULT_LAS_ONLY.join(","),
        LAS_SKIP: "tama",
        LAS_RELEASE_MANIFEST_FILE: "/r/m",
        LAS_RELEASE_MANIFEST_SIGNATURE_FILE: "/r/s",
        LAS_RELEASE_TRUST_STORE_FILE: "/r/t",
        LAS_RELEASE_WATERMARK_FILE: "/r/w",
        SKARBIEC_VAULT_PATH: "/v",
        SKARBIEC_KEY_PATH: "/k",
        SKARBIEC_MCP_AGENT_ID: "being-7",
      },
    });
  });

  test("of the parent's SKARBIEC_* only capability paths pass (a token's file too): never a token, key, password or a value that is not an absolute path", () => {
    const r = lasEnv(las({ only: ["skarbiec"] }), {
      SKARBIEC_VAULT: "/vault",
      SKARBIEC_KEY_PATH: "/k",
      SKARBIEC_SOCKET: "/run/skarbiec.sock",
      SKARBIEC_API_TOKEN: "/looks-like-a-path-but-is-a-token",
      SKARBIEC_TOKEN_FILE: "/t",
      SKARBIEC_API_KEY: "/k2",
      SKARBIEC_PASSWORD: "/p",
      SKARBIEC_CLIENT_SECRET: "/s",
      SKARBIEC_URL: "https://vault.example",
      SKARBIEC_MODE: "strict",
      SKARBIEC_RELATIVE: "vault/x",
      SKARBIEC_MULTI: "/a\n/b",
      SKARBIEC_MCP_AGENT_ID: "from-the-parent",
    });
    expect(r).toEqual({
      ok: true,
      env: {
        LAS_ONLY: "skarbiec",
        SKARBIEC_VAULT: "/vault",
        SKARBIEC_KEY_PATH: "/k",
        SKARBIEC_SOCKET: "/run/skarbiec.sock",
        SKARBIEC_TOKEN_FILE: "/t",
        SKARBIEC_MCP_AGENT_ID: "being-7",
      },
    });
  });

  test("the default LAS_ONLY is the documented list, in its order", () => {
    expect(DEFAULT_LAS_ONLY.join(",")).toBe(
      "weles,skarbiec,tama,stado,lem,echo,most,probierz,byk,brama,warsztat,finance",
    );
  });

  test("no LAS_SKIP when none is set; no SKARBIEC_* when skarbiec is not selected", () => {
    expect(lasEnv(las({ only: ["echo", "finance"], agent_id: undefined }), { SKARBIEC_X: "/x" })).toEqual({
      ok: true,
      env: { LAS_ONLY: "echo,finance" },
    });
    expect(lasEnv(las({ skip: ["skarbiec"], agent_id: undefined }), { SKARBIEC_X: "/x" })).toMatchObject({
      ok: true,
      env: { LAS_SKIP: "skarbiec" },
    });
  });

  test.each([[undefined], [""], ["  "]])("skarbiec without an agent id (%p) is refused", (agent_id) => {
    const r = lasEnv(las({ agent_id }), {});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.refusal.code).toBe("las.agent_id_missing");
  });
});

describe("Las boot checks", () => {
  test("protocol 2024-11-05 only", () => {
    expect(checkProtocol("2024-11-05")).toBeNull();
    expect(checkProtocol("2025-06-18")?.code).toBe("las.protocol");
    expect(checkProtocol(undefined)?.code).toBe("las.protocol");
  });

  test("every required surface exposes a tool, or the missing one is named", () => {
    expect(checkSurfaces(["skarbiec__whoami", "finance__balance"], ["skarbiec", "finance"])).toBeNull();
    const r = checkSurfaces(["skarbiec__whoami", "financefoo", "finance_x"], ["skarbiec", "finance"]);
    expect(r?.code).toBe("las.surface_missing");
    expect(r?.message).toContain("finance__*");
    expect(r?.message).not.toContain("skarbiec__*");
  });
});
