// Remembered "always" approvals, bound to the tool's digest: a changed digest forgets them.
import type { Database } from "bun:sqlite";

export function isRemembered(db: Database, tool: string, digest: string): boolean {
  return db.query("SELECT 1 FROM approvals WHERE tool = $tool AND digest = $digest").get({ tool, digest }) !== null;
}

export function remember(db: Database, tool: string, digest: string, now: number): void {
  db.query("INSERT OR REPLACE INTO approvals (tool, digest, granted_ms) VALUES ($tool, $digest, $now)").run({ tool, digest, now });
}
