// The process tree of one launched child, tracked through /proc so that ending it leaves no
// process behind: members are the child's process group and session, every process whose
// parent is a member, and the sessions and groups members create (setsid, setpgid). A pid is
// remembered with its start time, so a reused pid is never mistaken for a member. Without a
// process table (not Linux) the tree is the child's process group; without groups (Windows), its root.
import { hostPlatform } from "../platform/host.ts";
import type { ProcessTable, ProcStat } from "../platform/types.ts";
import { ownChildren, subreaping } from "./subreaper.ts";

export type { ProcStat };

/** What a tree is found with: the process table (null: none, not Linux), and whether a whole group can be signalled. */
export interface TreeSystem {
  readonly processes: ProcessTable | null;
  readonly processGroups: boolean;
}

const host = (): TreeSystem => hostPlatform();

/** A process's /proc/PID/stat, or null (ended, or no process table on this platform). */
export const readStat = (pid: number): ProcStat | null => host().processes?.stat(pid) ?? null;

/** Every visible process; null without a process table. */
export const scan = (): ProcStat[] | null => host().processes?.scan() ?? null;

/** A zombie has ended; it only waits for its parent to reap it. */
export const isLive = (s: ProcStat) => s.state !== "Z" && s.state !== "X" && s.state !== "x";

/**
 * Whether process `pid` runs, and is the one started at `start` when that is known. Without a
 * process table only whether the pid exists (kill(2) with signal 0; a zombie counts): a pid reused
 * by another process is taken for it.
 */
export function processRuns(pid: number, start: number | null, sys: TreeSystem = host()): boolean {
  const table = sys.processes;
  if (table) {
    const s = table.stat(pid);
    return s !== null && isLive(s) && (start === null || s.start === start);
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

let sid: number | undefined;
const ownSid = (table: ProcessTable) => (sid ??= table.stat(process.pid)?.sid ?? -1);

/**
 * Limits (no cgroup, so membership is inferred): without the subreaper (subreaper.ts), a process
 * that leaves the session and group, is orphaned before any sample sees it, and no longer holds
 * the child's stdout or stderr cannot be found; a pid can be reused between a scan and its kill(2) (no pidfd);
 * without /proc (macOS)
 * only the root's group is signalled (a process that left it is not found), and without process
 * groups (Windows) only the root itself (its children are not ended).
 */
export class ProcessTree {
  readonly root: number;
  /** Members ever seen, pid → start time. */
  readonly #known = new Map<number, number>();
  readonly #sids = new Set<number>();
  readonly #pgids = new Set<number>();
  readonly #orphans = new Set<number>();
  /** A member outside the root's group was seen: kill(-root, 0) alone no longer tells if any is alive. */
  #spread = false;
  /** Whether the root's pid still names this tree's group (resume() may find it reused). */
  #group = true;

  /** performance.now() right after the spawn. */
  readonly #spawnedAt: number;
  readonly #sys: TreeSystem;

  /** `root` leads a new session and process group (spawned detached); build it right after the spawn. */
  constructor(root: number, sys: TreeSystem = host()) {
    this.root = root;
    this.#sys = sys;
    this.#spawnedAt = performance.now();
    this.#sids.add(root);
    this.#pgids.add(root);
  }

  /**
   * What another process needs to end this tree later (the reaper, reaper.ts): the members seen,
   * and for each session and group id the start time of the process holding that pid now (null: gone).
   */
  snapshot(): TreeSnapshot {
    this.sample();
    const ids = (set: Set<number>) => [...set].map((id) => [id, this.#stat(id)?.start ?? null] as const);
    return {
      root: this.root,
      known: [...this.#known],
      sids: ids(this.#sids),
      pgids: ids(this.#pgids),
      spread: this.#spread,
    };
  }

  /**
   * The tree of a snapshot taken in another process. A session or group id whose pid now belongs to
   * another process is dropped: Linux reuses such a pid only once no process is left in that
   * session or group, so it is no longer the tree's. A member is matched by pid and start time.
   */
  static resume(s: TreeSnapshot, sys: TreeSystem = host()): ProcessTree {
    const t = new ProcessTree(s.root, sys);
    t.#sids.clear();
    t.#pgids.clear();
    const ours = ([id, start]: readonly [number, number | null]) => {
      const now = t.#stat(id);
      return now === null || (start !== null && now.start === start);
    };
    for (const [id] of s.sids.filter(ours)) t.#sids.add(id);
    for (const [id] of s.pgids.filter(ours)) t.#pgids.add(id);
    for (const [pid, start] of s.known) t.#known.set(pid, start);
    t.#group = t.#pgids.has(s.root);
    t.#spread = s.spread || !t.#group;
    return t;
  }

  /** Orphans re-parented to toolgate that were taken as members (to reap once ended). */
  get orphans(): number[] {
    return [...this.#orphans];
  }

  /** Scans /proc and returns the members alive now (zombies excluded), remembering each. */
  sample(): ProcStat[] {
    const table = this.#sys.processes;
    const all = table?.scan() ?? null;
    if (!table || !all) return [];
    const self = process.pid;
    const children = new Map<number, ProcStat[]>();
    const members: ProcStat[] = [];
    const seen = new Set<number>();
    // toolgate a subreaper: an orphan re-parented to it that it did not spawn itself, started
    // since this run's spawn, left some run's tree (with concurrent runs: the one ending first).
    let spawnTick: number | null | undefined;
    // Children toolgate spawned itself share its session (helpers) or are registered (runs, servers).
    const orphan = (s: ProcStat) => {
      if (s.ppid !== self || s.pid === this.root || ownChildren.has(s.pid) || s.sid === ownSid(table)) return false;
      spawnTick ??= this.#spawnTick();
      return spawnTick !== null && s.start >= spawnTick;
    };
    for (const s of all) {
      if (s.pid === self || s.pid === 1) continue;
      const list = children.get(s.ppid);
      if (list) list.push(s);
      else children.set(s.ppid, [s]);
      if (this.#known.get(s.pid) === s.start || this.#sids.has(s.sid) || this.#pgids.has(s.pgid) || orphan(s)) {
        members.push(s);
        seen.add(s.pid);
      }
    }
    // Descendants of members, however deep, whatever session they made for themselves.
    for (let i = 0; i < members.length; i++) {
      for (const child of children.get(members[i]!.pid) ?? []) {
        if (!seen.has(child.pid)) {
          seen.add(child.pid);
          members.push(child);
        }
      }
    }
    for (const m of members) {
      this.#remember(m);
      // However it was found, a member re-parented to toolgate is toolgate's to reap once ended.
      if (m.ppid === self && m.pid !== this.root && !ownChildren.has(m.pid)) this.#orphans.add(m.pid);
    }
    return members.filter(isLive);
  }

  /**
   * Takes in a process found another way (it holds the child's stdout). Only one started after
   * the child can have inherited from it (one handed the descriptor over a socket may be older:
   * it is left alone), and only a session or group it leads itself becomes the tree's.
   */
  adopt(pid: number): boolean {
    const s = this.#stat(pid);
    const spawnTick = this.#spawnTick();
    if (!s || s.pid === process.pid || s.pid === 1 || spawnTick === null || s.start < spawnTick) return false;
    this.#remember(s, s.sid === s.pid, s.pgid === s.pid);
    return true;
  }

  #remember(s: ProcStat, withSession = true, withGroup = true): void {
    this.#known.set(s.pid, s.start);
    if (s.pgid !== this.root) this.#spread = true;
    if (withSession) this.#sids.add(s.sid);
    if (withGroup) this.#pgids.add(s.pgid);
  }

  #stat(pid: number): ProcStat | null {
    return this.#sys.processes?.stat(pid) ?? null;
  }

  /** The spawn's time in the clock ticks of /proc/PID/stat (USER_HZ, 100 on Linux), a tick early. */
  #spawnTick(): number | null {
    const table = this.#sys.processes;
    const uptime = table?.uptime() ?? null;
    if (!table || uptime === null) return null;
    const ago = (performance.now() - this.#spawnedAt) / 1000;
    return Math.floor((uptime - ago) * table.ticksPerSecond) - 1;
  }

  /** The root's group (kill(-root)), or where there are no groups the root alone. */
  get #target(): number {
    return this.#sys.processGroups ? -this.root : this.root;
  }

  /**
   * Sends `signal` to every live member and to the root's group; returns the members signalled.
   * The scan comes first: once a parent dies, its children can only be found by what was seen.
   */
  signal(signal: NodeJS.Signals): ProcStat[] {
    const live = this.sample();
    for (const m of live) sendSignal(m.pid, signal);
    if (this.#group) sendSignal(this.#target, signal);
    return live;
  }

  /** Whether any member is alive. Cheap (one kill(2)) while nothing escaped the root's group. */
  anyLive(): boolean {
    const groupExists = this.#group && sendSignal(this.#target, 0);
    if (!this.#sys.processes) return groupExists;
    // A subreaper's orphans can only be found by a scan: they may never have been sampled.
    if (!groupExists && !this.#spread && !subreaping()) return false;
    return this.sample().length > 0;
  }
}

export interface TreeSnapshot {
  readonly root: number;
  readonly known: readonly (readonly [pid: number, start: number])[];
  readonly sids: readonly (readonly [id: number, start: number | null])[];
  readonly pgids: readonly (readonly [id: number, start: number | null])[];
  readonly spread: boolean;
}

/** kill(2), true when delivered; ESRCH (gone) and EPERM (not ours: never a member) are false. */
function sendSignal(target: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * The identities ("socket:[N]") of a running child's stdout and stderr. Not read at spawn: the
 * read waits until the child's exec is done. A child caught mid-redirection hides one of them.
 */
export const outputIds = (pid: number): string[] => host().processes?.outputIds(pid) ?? [];

/** Processes other than this one holding any of `ids` open: they inherited the child's output. */
export const holdersOf = (ids: readonly string[]): number[] =>
  ids.length === 0 ? [] : (host().processes?.holdersOf(ids) ?? []);
