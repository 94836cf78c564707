// `toolgate log --follow`: the window, then each call as it finishes (a call still running is shown
// once it ends), until Ctrl-C. Polls the journal: read-only, its own connection, no state made.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import type { Effective } from "../config/resolve.ts";
import { jsonForTerminal } from "../result/escape.ts";
import { actionsSince, lastActionId, lastActions, type ActionFilter } from "../state/actions.ts";
import { DB_NAME } from "../state/db.ts";
import type { JournalEntry } from "../state/journal.ts";
import { cells, HEADER } from "./log-rows.ts";
import { table, writeOut } from "./ui.ts";

const POLL_MS = 250;

export interface Follow {
  readonly config: Effective;
  readonly filter: ActionFilter;
  readonly last: number;
  readonly json: boolean;
  readonly width: number;
  readonly open: () => Database;
}

export async function follow(f: Follow): Promise<number> {
  // No journal yet: the first call makes it.
  const path = join(f.config.values.state, DB_NAME);
  while (!existsSync(path)) await Bun.sleep(POLL_MS);
  const db = f.open();
  // Column widths: the header's and the window's, so later lines line up under them.
  let widths: number[] | undefined;
  const print = (rows: readonly JournalEntry[], header: boolean) => {
    if (rows.length === 0 && !header) return;
    if (f.json) return rows.length ? writeOut(rows.map((r) => jsonForTerminal(r)).join("\n")) : undefined;
    const all = [HEADER, ...rows.map(cells)];
    widths ??= HEADER.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
    writeOut(
      table(
        all.map((r) => r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths![i]!) : c))),
        f.width,
      )
        .split("\n")
        .slice(header ? 0 : 1)
        .join("\n"),
    );
  };
  try {
    const window = lastActions(db, f.last, undefined, f.filter);
    print(window, true);
    // Rows the filter left out of the window are not shown later: follow from the newest row.
    let after = Math.max(0, ...window.map((r) => r.id), lastActionId(db));
    // Shown as running: shown again once they end.
    let pending = window.filter((r) => r.status === "running").map((r) => r.id);
    for (;;) {
      await Bun.sleep(POLL_MS);
      const rows = actionsSince(db, after, pending, f.filter);
      const ended = rows.filter((r) => r.status !== "running");
      pending = [
        ...pending.filter((id) => !ended.some((r) => r.id === id)),
        ...rows.filter((r) => r.status === "running" && !pending.includes(r.id)).map((r) => r.id),
      ];
      after = Math.max(after, ...rows.map((r) => r.id));
      print(ended, false);
    }
  } finally {
    db.close();
  }
}
