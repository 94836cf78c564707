// A withheld result's place (`where`) is shown on stderr, journaled and exported as a span
// attribute: it names an object key only when the key is a plain identifier, and counts any other
// (`<key#n>`), since such a key may be the secret itself. Through dist/toolgate, inside a
// loopback-only network namespace (the spans go to a receiver on loopback): an authored tool
// prints a result whose rule fires under, or on, a key shaped like a credential or a PEM line.
import { beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { cpSync, existsSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, tempDir } from "../helpers.ts";
import { inLoopbackNamespace } from "../http/netns.ts";
import { receiver } from "../telemetry/receiver.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const EMIT = join(import.meta.dir, "..", "fixtures", "authored", "emit");

/** The journal's rows for the call, read from the database file. */
function journalRows(ws: string): { tool: string; error_code: string | null; detail: string | null }[] {
  const db = new Database(join(ws, ".toolgate", "toolgate.db"), { readonly: true });
  try {
    return db.query("SELECT tool, error_code, detail FROM journal ORDER BY id").all() as {
      tool: string;
      error_code: string | null;
      detail: string | null;
    }[];
  } finally {
    db.close();
  }
}

inLoopbackNamespace(import.meta.path, () => {
  describe("where names plain identifier keys only", () => {
    test.each([
      [
        "a password under a key shaped like an API key",
        { "sk-live-4f9a2c7e1bCANARY": { password: "x" } },
        "secret_key",
        "$<key#0>.password",
        "sk-live-4f9a2c7e1bCANARY",
      ],
      [
        "a local path under a key holding a marker's dashes",
        { ok: 1, "-----BEGIN xCANARY": "/etc/passwd" },
        "local_path",
        "$<key#1>",
        "-----BEGIN xCANARY",
      ],
      [
        "a key that is itself a secret key, spelled with a dash",
        { data: [{ "ghp-CANARY-token": 1 }] },
        "secret_key",
        "$.data[0]<key#0>",
        "ghp-CANARY-token",
      ],
    ])(
      "%s: stderr, the journal and the span give the place as <key#n>, never the key",
      async (_what, printed, rule, where, key) => {
        await using ws = tempDir();
        await using r = receiver();
        cpSync(EMIT, join(ws.path, "tools", "emit"), { recursive: true });
        const c = await run(
          ["call", "emit", JSON.stringify({ raw: JSON.stringify(printed) }), "--allow-run", "--approve", "all"],
          {
            cwd: ws.path,
            env: { OTEL_EXPORTER_OTLP_ENDPOINT: r.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
          },
        );
        expect([c.code, json(c)]).toEqual([1, { status: "failed", error_code: "sensitive_output_rejected" }]);
        expect(c.stderr).toContain(
          `emit: the result was withheld (sensitive_output_rejected): rule ${rule} at ${where}, the value is not shown`,
        );
        const rows = journalRows(ws.path).filter((row) => row.tool === "emit");
        expect(rows.map((row) => [row.error_code, JSON.parse(row.detail!)])).toEqual([
          ["sensitive_output_rejected", { rule, where }],
        ]);
        const [span] = await r.waitFor(1);
        expect(span!.attributes).toMatchObject({ "toolgate.boundary.rule": rule, "toolgate.boundary.where": where });
        // (The journal's argument preview holds the key: the arguments are the caller's own text.)
        const views = {
          stdout: c.stdout,
          stderr: c.stderr,
          detail: JSON.stringify(rows),
          span: Buffer.from(r.requests[0]!.bytes).toString("utf8"),
        };
        expect(
          Object.entries(views)
            .filter(([, v]) => v.includes("CANARY") || v.includes(key))
            .map(([name]) => name),
        ).toEqual([]);
      },
    );
  });
});
