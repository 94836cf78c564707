// The foreground half of `call --background`: once the pipeline admitted the call (validated,
// permitted, approved), a queued task row is written and its detached supervisor started through
// the launcher; the caller prints the id and leaves. The request it stores is what the supervisor
// (tasks/supervise.ts) runs, nothing wider (tasks/request.ts checks it).
import type { Database } from "bun:sqlite";
import type { Refusal } from "../result/result.ts";
import type { Admitted } from "./call-types.ts";
import type { BootInput, Booted } from "./boot.ts";
import { createTask, finishTask, recordSupervisor } from "../state/tasks.ts";
import { artifactsFolder, selfArgv, startTaskSupervisor } from "../launcher/detached.ts";

export interface TaskRequest {
  readonly v: 1;
  readonly tool: string;
  readonly args: unknown;
  readonly lane: string;
  readonly stateDir: string;
  readonly boot: StoredBoot;
  readonly configDigest: string | null;
  readonly entryDigest: string;
  readonly approvedBy: string;
  readonly grants: Admitted["grants"];
  /** The tool's origin ("mcp:NAME", "las", ...): a grant holds for its own server's start only. */
  readonly origin?: string;
  /** `call --timeout`, as bounded for the tool in the foreground. */
  readonly timeoutSecs?: number;
}

/** The boot's inputs that are not the environment (the supervisor inherits that) nor a terminal (it has none). */
export interface StoredBoot {
  readonly cwd: string;
  readonly configFlag?: string | undefined;
  readonly workspaceFlag?: string | undefined;
  readonly scratchFlag?: string | undefined;
  readonly permissionFlags: BootInput["permissionFlags"];
  readonly allowLocalPaths: readonly string[];
  readonly pins: [string, readonly string[]][];
  readonly requireRails: boolean;
}

export function storedBoot(b: BootInput): StoredBoot {
  return {
    cwd: b.cwd,
    configFlag: b.configFlag,
    workspaceFlag: b.workspaceFlag,
    scratchFlag: b.scratchFlag,
    permissionFlags: b.permissionFlags,
    allowLocalPaths: b.allowLocalPaths ?? [],
    pins: [...(b.pins ?? new Map()).entries()],
    requireRails: b.requireRails === true,
  };
}

export interface TaskStart {
  readonly db: () => Database;
  readonly booted: Booted;
  readonly input: BootInput;
  readonly lane: string;
  readonly writeScope: string | null;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `call --timeout`, bounded for the tool: the task's call gets it too. */
  readonly timeoutSecs?: number;
}

export function admitTask(t: TaskStart): (a: Admitted) => { task: string } | Refusal {
  return (a) => {
    const db = t.db();
    const request: TaskRequest = {
      v: 1,
      tool: a.entry.name,
      args: a.value,
      lane: t.lane,
      stateDir: t.booted.stateDir,
      boot: storedBoot(t.input),
      configDigest: t.booted.file?.digest ?? null,
      entryDigest: a.entry.digest,
      approvedBy: a.approvedBy,
      grants: a.grants,
      origin: a.entry.origin,
      ...(t.timeoutSecs === undefined ? {} : { timeoutSecs: t.timeoutSecs }),
    };
    const created = createTask(
      db,
      {
        kind: a.entry.name === "bash" ? "terminal.exec" : "tool.call",
        owner: t.lane,
        source_tool: a.entry.name,
        args_preview: a.preview,
        write_scope: t.writeScope,
        request: JSON.stringify(request),
        now: Date.now(),
      },
      { now: Date.now },
    );
    if (!created.ok) return { code: created.code, message: created.message, details: { holder: created.holder } };
    const env = Object.fromEntries(Object.entries(t.env).filter((e): e is [string, string] => e[1] !== undefined));
    const started = startTaskSupervisor({
      argv: [...selfArgv(), "tasks", "supervise", created.id, "--state-dir", t.booted.stateDir],
      env,
      cwd: t.input.cwd,
      artifactsDir: artifactsFolder(t.booted.stateDir),
    });
    if (!started.ok) {
      finishTask(
        db,
        created.id,
        { status: "failed", summary: started.message, exit_reason: "task.start_failed", result: null },
        Date.now(),
      );
      return { code: "task.start_failed", message: started.message };
    }
    const s = started.value;
    recordSupervisor(
      db,
      created.id,
      { pid: s.pid, start: s.start },
      JSON.stringify({ stdout: s.stdout, stderr: s.stderr }),
    );
    return { task: created.id };
  };
}
