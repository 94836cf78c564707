// `toolgate trust --list`: every trusted file, and whether it still holds what was trusted.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { jsonForTerminal } from "../result/escape.ts";
import { listRecords } from "../trust/store.ts";
import { table, writeOut } from "./ui.ts";

export function listTrusted(stateDir: string | null, json: boolean, width: number): number {
  const records = stateDir === null ? [] : listRecords(stateDir);
  const rows = records.map((r) => ({ ...r, state: stateOf(r.path, r.digest) }));
  if (json) {
    if (rows.length) writeOut(rows.map((r) => jsonForTerminal(r)).join("\n"));
    return 0;
  }
  const out = [["PATH", "SHA256", "STATE"], ...rows.map((r) => [r.path, r.digest.slice(0, 12), r.state])];
  writeOut(rows.length ? table(out, width, 0) : "nothing is trusted");
  return 0;
}

/** "trusted" while the file still holds the content trusted; "changed" after an edit; "missing". */
function stateOf(path: string, digest: string): "trusted" | "changed" | "missing" {
  try {
    return createHash("sha256").update(readFileSync(path)).digest("hex") === digest ? "trusted" : "changed";
  } catch {
    return "missing";
  }
}
