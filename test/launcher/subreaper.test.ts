// toolgate as a child subreaper: an unsandboxed run's orphan is re-parented to this process,
// ended with the run and reaped; a server this process started (even during the run) is not.
// Full suite only: a run's orphans as real processes, ended and reaped at its end.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { StreamRedactor } from "../../src/boundary/redact.ts";
import { readStat } from "../../src/launcher/proc-tree.ts";
import { startServer } from "../../src/launcher/server.ts";
import { tempDir } from "../helpers.ts";
import { env, gone, launcherWith, pidsIn } from "./support.ts";

test("an orphan is ended and reaped at the run's end; a server started during the run keeps running", async () => {
  await using dir = tempDir();
  const pidFile = join(dir.path, "orphan.pid");
  const script = `(setsid bash -c 'echo $$ >> ${pidFile}; exec sleep 30' </dev/null >/dev/null 2>&1 &); for i in $(seq 500); do [ -s ${pidFile} ] && break; sleep 0.01; done; sleep 0.3`;
  const running = launcherWith().launch({
    argv: ["/bin/bash", "-c", script],
    env: env(),
    cwd: dir.path,
    deadlineMs: 20_000,
    artifactsDir: join(dir.path, "a"),
  });
  const [orphan] = await pidsIn(pidFile, 1);
  const server = startServer({
    argv: ["sleep", "30"],
    env: env(),
    cwd: dir.path,
    redactor: (s) => new StreamRedactor(s),
  });
  if (!server.ok) throw new Error(server.refusal.message);
  try {
    const r = await running;
    if (!r.ok) throw new Error(r.refusal.message);
    expect(r.value).toMatchObject({ ended: "exited", code: 0, leftovers: 1, survivors: [] });
    // Ended and reaped: this process (its subreaper) collected it, no zombie is left.
    expect(readStat(orphan!)).toBeNull();
    expect(gone(server.value.pid)).toBe(false);
  } finally {
    await server.value.shutdown(0);
    if (!gone(orphan!)) process.kill(orphan!, "SIGKILL");
  }
});
