// Trust records: one small file per trusted config under <user state>/trust/, named by the
// sha256 of the config's path as found and holding the content digest trusted (like `direnv allow`).
// A record binds the path as found, its real path and the workspace's real path: a checkout that
// links its toolgate.json to a trusted project's file borrows nothing (another found path, another
// workspace). Checking one is a single read; an edited file no longer matches its record.
import { sha256Hex } from "../result/sha256.ts";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Where a config was found and what it is: all three must match the record. */
export interface TrustBinding {
  /** The config's path as found (absolute, symlinks not resolved). */
  readonly path: string;
  /** The config's real path. */
  readonly real: string;
  /** The real path of the workspace the config was trusted for. */
  readonly workspace: string;
}

export interface TrustRecord extends TrustBinding {
  /** sha256 (hex) of the content trusted. */
  readonly digest: string;
  readonly trusted_ms: number;
  /**
   * The authored tools the config loaded when it was trusted, name → manifest digest: only these,
   * unchanged, may keep their own "approval": "never" (absent in older records: none).
   */
  readonly tools?: Readonly<Record<string, string>>;
}

const hex = (s: string) => sha256Hex(s);
const recordPath = (stateDir: string, path: string) => join(stateDir, "trust", `${hex(path)}.json`);

const isRecord = (r: unknown): r is TrustRecord => {
  const o = r as Partial<TrustRecord> | null;
  return (
    typeof o?.path === "string" &&
    typeof o.real === "string" &&
    typeof o.workspace === "string" &&
    typeof o.digest === "string"
  );
};

/** The record for this found path, or null (none, unreadable or of an older shape: untrusted either way). */
export function readRecord(stateDir: string, path: string): TrustRecord | null {
  try {
    const r: unknown = JSON.parse(readFileSync(recordPath(stateDir, path), "utf8"));
    return isRecord(r) && r.path === path ? r : null;
  } catch {
    return null;
  }
}

/** Whether this content was trusted for this found path, this real file and this workspace. */
export function isRecorded(stateDir: string, at: TrustBinding, digest: string): boolean {
  const r = readRecord(stateDir, at.path);
  return r !== null && r.real === at.real && r.workspace === at.workspace && r.digest === digest;
}

/** Records (replacing any earlier record for the same path): atomic, 0600 in a 0700 folder. */
export function writeRecord(stateDir: string, record: TrustRecord): void {
  const dir = join(stateDir, "trust");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = recordPath(stateDir, record.path);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

/** Removes the record for this found path; whether there was one. */
export function removeRecord(stateDir: string, path: string): boolean {
  const had = readRecord(stateDir, path) !== null;
  rmSync(recordPath(stateDir, path), { force: true });
  return had;
}

/** Every record, sorted by path. */
export function listRecords(stateDir: string): TrustRecord[] {
  let names: string[];
  try {
    names = readdirSync(join(stateDir, "trust")).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  const out: TrustRecord[] = [];
  for (const n of names) {
    try {
      const r: unknown = JSON.parse(readFileSync(join(stateDir, "trust", n), "utf8"));
      if (isRecord(r)) out.push(r);
    } catch {
      // a torn or foreign file is not a record
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
