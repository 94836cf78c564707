// Trust records: one small file per trusted config under <user state>/trust/, named by the
// sha256 of the config's real path and holding the content digest trusted (like `direnv allow`).
// Checking one is a single read; an edited file no longer matches its record.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface TrustRecord {
  /** The config's real path. */
  readonly path: string;
  /** sha256 (hex) of the content trusted. */
  readonly digest: string;
  readonly trusted_ms: number;
}

const hex = (s: string) => createHash("sha256").update(s).digest("hex");
const recordPath = (stateDir: string, realPath: string) => join(stateDir, "trust", `${hex(realPath)}.json`);

/** The record for this config path, or null (none, or unreadable: untrusted either way). */
export function readRecord(stateDir: string, realPath: string): TrustRecord | null {
  try {
    const r = JSON.parse(readFileSync(recordPath(stateDir, realPath), "utf8")) as TrustRecord;
    return r && r.path === realPath && typeof r.digest === "string" ? r : null;
  } catch {
    return null;
  }
}

export const isRecorded = (stateDir: string, realPath: string, digest: string): boolean =>
  readRecord(stateDir, realPath)?.digest === digest;

/** Records (replacing any earlier record for the same path): atomic, 0600 in a 0700 folder. */
export function writeRecord(stateDir: string, record: TrustRecord): void {
  const dir = join(stateDir, "trust");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = recordPath(stateDir, record.path);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

/** Removes the record for this path; whether there was one. */
export function removeRecord(stateDir: string, realPath: string): boolean {
  const had = readRecord(stateDir, realPath) !== null;
  rmSync(recordPath(stateDir, realPath), { force: true });
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
      const r = JSON.parse(readFileSync(join(stateDir, "trust", n), "utf8")) as TrustRecord;
      if (typeof r?.path === "string" && typeof r.digest === "string") out.push(r);
    } catch {
      // a torn or foreign file is not a record
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
