// Per-lane records in the state database: the plan (ordered steps with a status) and the
// desk page. Writes are transactions (IMMEDIATE), so concurrent writers see versions in order.
import type { Database } from "bun:sqlite";
import type { DeskRecord, LaneStore, PlanRecord, PlanStep } from "../catalog/declare.ts";

interface PlanRow {
  lane: string;
  version: number;
  steps: string;
  updated_ms: number;
}
interface DeskRow {
  lane: string;
  version: number;
  text: string;
  updated_ms: number;
}

const toPlan = (r: PlanRow): PlanRecord => ({
  lane: r.lane,
  version: r.version,
  steps: JSON.parse(r.steps) as PlanStep[],
  updated_ms: r.updated_ms,
});

const stores = new WeakMap<Database, LaneStore>();

/** One store per database (serve asks for it on every plan or desk call). */
export function laneStore(db: Database): LaneStore {
  let store = stores.get(db);
  if (!store) stores.set(db, (store = makeStore(db)));
  return store;
}

function makeStore(db: Database): LaneStore {
  const planRow = db.prepare("SELECT * FROM plans WHERE lane = $lane");
  const readPlanRow = (lane: string) => planRow.get({ lane }) as PlanRow | null;
  const readDeskRow = (lane: string) =>
    db.query("SELECT * FROM desks WHERE lane = $lane").get({ lane }) as DeskRow | null;
  return {
    readPlan: (lane) => {
      const r = readPlanRow(lane);
      return r ? toPlan(r) : null;
    },
    writePlan: (lane, steps, now) =>
      db
        .transaction(() => {
          const text = JSON.stringify(steps.map((s) => ({ title: s.title, status: s.status })));
          const cur = readPlanRow(lane);
          if (cur && cur.steps === text) return { ...toPlan(cur), changed: false };
          const version = (cur?.version ?? 0) + 1;
          db.query(
            "INSERT OR REPLACE INTO plans (lane, version, steps, updated_ms) VALUES ($lane, $version, $text, $now)",
          ).run({ lane, version, text, now });
          return { ...toPlan({ lane, version, steps: text, updated_ms: now }), changed: true };
        })
        .immediate(),
    readDesk: (lane) => readDeskRow(lane),
    writeDesk: (lane, text, expectedVersion, now) =>
      db
        .transaction(() => {
          const cur = readDeskRow(lane);
          if (expectedVersion !== undefined && (cur?.version ?? 0) !== expectedVersion)
            return { ok: false as const, current: cur };
          if (cur && cur.text === text) return { ok: true as const, record: cur };
          const record: DeskRecord = { lane, version: (cur?.version ?? 0) + 1, text, updated_ms: now };
          db.query(
            "INSERT OR REPLACE INTO desks (lane, version, text, updated_ms) VALUES ($lane, $version, " +
              "$text, $updated_ms)",
          ).run({ ...record });
          return { ok: true as const, record };
        })
        .immediate(),
  };
}
