import { describe, expect, test } from "bun:test";
import { isSecretName, isSecretPath } from "../../src/fs/secret-files.ts";

describe("well-known secret file names (.env, .env.*, *.pem, *.key, id_rsa*, id_ed25519*, id_ecdsa*, .npmrc, .netrc, .pypirc, .git-credentials)", () => {
  test.each([
    ".env",
    ".env.local",
    ".env.production",
    "server.pem",
    "tls.key",
    ".key",
    "id_rsa",
    "id_rsa.pub",
    "id_ed25519",
    "id_ed25519_sk",
    "id_ecdsa",
    ".npmrc",
    ".netrc",
    ".pypirc",
    ".git-credentials",
    ".ENV",
    "Server.PEM",
  ])("%s is one", (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  test.each([
    "env",
    ".envrc",
    ".environment",
    "a.env",
    "pem",
    "key.txt",
    "keys",
    "my_id_rsa",
    ".npmrc.bak",
    "netrc",
    ".gitconfig",
    "README.md",
    "id_dsa",
  ])("%s is not", (name) => {
    expect(isSecretName(name)).toBe(false);
  });

  test("a path is judged by its last segment only", () => {
    expect([isSecretPath("/w/sub/.env"), isSecretPath("/w/.env/notes.txt"), isSecretPath("keys/x.key")]).toEqual([
      true,
      false,
      true,
    ]);
  });
});
