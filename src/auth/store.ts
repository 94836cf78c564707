// OAuth state of remote MCP servers (tokens, client registrations, discovery, a wanted scope), one
// JSON file per server URL in the user's state folder beside the trust records: 0600 files in a
// 0700 folder, written atomically, never in a workspace. Every token or secret read or written is
// added to `secrets`, the live list the views redact.
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

/** What is kept for one server URL. Shapes are the SDK's (OAuthTokens, client information, discovery state). */
export interface AuthRecord {
  /** The server URL the record belongs to: tokens are bound to it, never to a config's server name. */
  readonly server_url: string;
  readonly tokens?: Record<string, unknown> & { access_token: string; refresh_token?: string; expires_in?: number };
  /** When the tokens were saved (ms): with expires_in, when the access token lapses. */
  readonly obtained_ms?: number;
  readonly client?: Record<string, unknown> & { client_id: string };
  readonly discovery?: Record<string, unknown>;
  /**
   * The authorization server that first accepted the config's own client credentials: they are
   * presented to no other (a server that names another one later is refused).
   */
  readonly configured_client?: { readonly client_id: string; readonly issuer: string };
  /** A scope a server asked for (insufficient_scope) that the next `toolgate auth` requests. */
  readonly wanted_scope?: string;
}

export const AUTH_DIR = "auth";

/** The file of a server URL: its sha256, so no URL text becomes a path. */
export const recordName = (serverUrl: string) =>
  `${createHash("sha256").update(canonicalServerUrl(serverUrl)).digest("hex").slice(0, 32)}.json`;

/** The URL without a fragment, as the SDK derives the resource from it. */
export function canonicalServerUrl(raw: string): string {
  const u = new URL(raw);
  u.hash = "";
  return u.href;
}

export class AuthStore {
  /** Without a user state folder (none, or one inside the workspace): records live in memory only. */
  readonly #memory = new Map<string, AuthRecord>();

  /**
   * `secrets`: token and secret values seen by this store are pushed here, a live list the views
   * redact from.
   */
  constructor(
    private readonly userStateDir: string | null,
    readonly secrets: string[] = [],
  ) {}

  get dir(): string | null {
    return this.userStateDir === null ? null : join(this.userStateDir, AUTH_DIR);
  }

  pathOf(serverUrl: string): string | null {
    return this.dir === null ? null : join(this.dir, recordName(serverUrl));
  }

  read(serverUrl: string): AuthRecord | undefined {
    const path = this.pathOf(serverUrl);
    if (path === null) return this.#memory.get(canonicalServerUrl(serverUrl));
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      return undefined;
    }
    let rec: AuthRecord;
    try {
      rec = JSON.parse(text) as AuthRecord;
    } catch {
      return undefined;
    }
    // A record copied from another server's file is not this server's.
    if (rec.server_url !== canonicalServerUrl(serverUrl)) return undefined;
    this.#remember(rec);
    return rec;
  }

  /** Replaces the record with `change` applied to the current one (atomically). */
  update(serverUrl: string, change: (rec: AuthRecord) => AuthRecord): AuthRecord {
    const url = canonicalServerUrl(serverUrl);
    const next = { ...change(this.read(url) ?? { server_url: url }), server_url: url };
    this.#remember(next);
    const path = this.pathOf(url);
    if (path === null) this.#memory.set(url, next);
    else this.#write(path, `${JSON.stringify(next, null, 2)}\n`);
    return next;
  }

  /** Removes the server's record; whether there was one. */
  remove(serverUrl: string): boolean {
    const path = this.pathOf(serverUrl);
    if (path === null) return this.#memory.delete(canonicalServerUrl(serverUrl));
    try {
      unlinkSync(path);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw e;
    }
  }

  #remember(rec: AuthRecord): void {
    for (const v of [
      rec.tokens?.access_token,
      rec.tokens?.refresh_token,
      rec.tokens?.id_token,
      rec.client?.client_secret,
    ]) {
      if (typeof v === "string" && v.length > 0 && !this.secrets.includes(v)) this.secrets.push(v);
    }
  }

  /** A temporary 0600 file in the same folder, fsync, rename: a reader sees the old record or the new one. */
  #write(path: string, text: string): void {
    const dir = this.dir!;
    mkdirSync(this.userStateDir!, { recursive: true, mode: 0o700 });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // A folder made earlier by someone else's umask is narrowed: tokens live here.
    chmodSync(dir, 0o700);
    const tmp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
    const fd = openSync(tmp, "wx", 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      renameSync(tmp, path);
    } catch (e) {
      try {
        unlinkSync(tmp);
      } catch {
        // already gone
      }
      throw e;
    }
  }
}
