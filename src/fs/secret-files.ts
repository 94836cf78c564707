// Well-known secret files (docs/permissions.md): `.env`, `.env.*`,
// `*.pem`, `*.key`, `id_rsa*`, `id_ed25519*`, `id_ecdsa*`, `.npmrc`, `.netrc`, `.pypirc`,
// `.git-credentials`. File tools and walks leave them alone unless the user names the file itself
// in a grant (`--allow-read=.env`). Judged on the name alone, case-insensitively (a folding
// file system finds `.ENV` as `.env`).
import { basename } from "node:path";

const EXACT = new Set([".env", ".npmrc", ".netrc", ".pypirc", ".git-credentials"]);
const PREFIXES = [".env.", "id_rsa", "id_ed25519", "id_ecdsa"];
const SUFFIXES = [".pem", ".key"];

/** Whether a file name (one path segment) is a well-known secret file's. */
export function isSecretName(name: string): boolean {
  const n = name.toLowerCase();
  return EXACT.has(n) || PREFIXES.some((p) => n.startsWith(p)) || SUFFIXES.some((s) => n.endsWith(s));
}

/** Whether the last segment of a path is a well-known secret file's name. */
export const isSecretPath = (path: string): boolean => isSecretName(basename(path));

/** The patterns, for messages and docs. */
export const SECRET_PATTERNS =
  ".env, .env.*, *.pem, *.key, id_rsa*, id_ed25519*, id_ecdsa*, .npmrc, .netrc, .pypirc, .git-credentials";
