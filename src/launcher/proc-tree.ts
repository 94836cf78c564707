// The process tree of one launched child, tracked through /proc so that ending it leaves no
// process behind: members are the child's process group and session, every process whose
// parent is a member, and the sessions and groups members create (setsid, setpgid). A pid is
// remembered with its start time, so a reused pid is never mistaken for a member.
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { ownChildren, subreaping } from "./subreaper.ts";

export interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  /** Start time in clock ticks since boot: with the pid, the identity of a process. */
  readonly start: number;
  readonly state: string;
}

/** Parses /proc/PID/stat; the command name may hold spaces and parentheses, so split after the last ")". */
export function parseStat(text: string): ProcStat | null {
  const close = text.lastIndexOf(")");
  if (close === -1) return null;
  const f = text.slice(close + 2).split(" ");
  const pid = Number.parseInt(text, 10);
  // Fields after the name, counted from 3 (state): ppid 4, pgrp 5, session 6, starttime 22.
  const stat = { pid, state: f[0] ?? "", ppid: Number(f[1]), pgid: Number(f[2]), sid: Number(f[3]), start: Number(f[19]) };
  return Number.isInteger(pid) && Number.isFinite(stat.start) ? stat : null;
}

export function readStat(pid: number): ProcStat | null {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, "latin1"));
  } catch {
    return null;
  }
}

/** Every process visible in /proc (about 1 ms for 100 processes); null without a procfs. */
export function scan(): ProcStat[] | null {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return null;
  }
  const out: ProcStat[] = [];
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const stat = readStat(Number(name));
    if (stat) out.push(stat);
  }
  return out;
}

/** A zombie has ended; it only waits for its parent to reap it. */
export const isLive = (s: ProcStat) => s.state !== "Z" && s.state !== "X" && s.state !== "x";

const HAS_PROCFS = existsSync("/proc/self/stat");
let sid: number | undefined;
const ownSid = () => (sid ??= readStat(process.pid)?.sid ?? -1);
/** The unit of starttime in /proc/PID/stat: sysconf(_SC_CLK_TCK), 100 on every Linux port in use. */
const USER_HZ = 100;

/**
 * Limits (no cgroup, so membership is inferred): without the subreaper (subreaper.ts), a process
 * that leaves the session and group, is orphaned before any sample sees it, and no longer holds
 * the child's stdout or stderr cannot be found; a pid can be reused between a scan and its kill(2) (no pidfd); without /proc (macOS)
 * only the root's group is signalled.
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

  /** `root` leads a new session and process group (spawned detached); build it right after the spawn. */
  constructor(root: number) {
    this.root = root;
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
    const ids = (set: Set<number>) => [...set].map((id) => [id, readStat(id)?.start ?? null] as const);
    return { root: this.root, known: [...this.#known], sids: ids(this.#sids), pgids: ids(this.#pgids), spread: this.#spread };
  }

  /**
   * The tree of a snapshot taken in another process. A session or group id whose pid now belongs to
   * another process is dropped: Linux reuses such a pid only once no process is left in that
   * session or group, so it is no longer the tree's. A member is matched by pid and start time.
   */
  static resume(s: TreeSnapshot): ProcessTree {
    const t = new ProcessTree(s.root);
    t.#sids.clear();
    t.#pgids.clear();
    const ours = ([id, start]: readonly [number, number | null]) => {
      const now = readStat(id);
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
    const all = HAS_PROCFS ? scan() : null;
    if (!all) return [];
    const self = process.pid;
    const children = new Map<number, ProcStat[]>();
    const members: ProcStat[] = [];
    const seen = new Set<number>();
    // toolgate a subreaper: an orphan re-parented to it that it did not spawn itself, started
    // since this run's spawn, left some run's tree (with concurrent runs: the one ending first).
    let spawnTick: number | null | undefined;
    // Children toolgate spawned itself share its session (helpers) or are registered (runs, servers).
    const orphan = (s: ProcStat) => {
      if (s.ppid !== self || s.pid === this.root || ownChildren.has(s.pid) || s.sid === ownSid()) return false;
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
    const s = readStat(pid);
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

  /** The spawn's time in the clock ticks of /proc/PID/stat (USER_HZ, 100 on Linux), a tick early. */
  #spawnTick(): number | null {
    try {
      const uptime = Number.parseFloat(readFileSync("/proc/uptime", "latin1"));
      const ago = (performance.now() - this.#spawnedAt) / 1000;
      return Number.isFinite(uptime) ? Math.floor((uptime - ago) * USER_HZ) - 1 : null;
    } catch {
      return null;
    }
  }

  /**
   * Sends `signal` to every live member and to the root's group; returns the members signalled.
   * The scan comes first: once a parent dies, its children can only be found by what was seen.
   */
  signal(signal: NodeJS.Signals): ProcStat[] {
    const live = this.sample();
    for (const m of live) sendSignal(m.pid, signal);
    if (this.#group) sendSignal(-this.root, signal);
    return live;
  }

  /** Whether any member is alive. Cheap (one kill(2)) while nothing escaped the root's group. */
  anyLive(): boolean {
    const groupExists = this.#group && sendSignal(-this.root, 0);
    if (!HAS_PROCFS) return groupExists;
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
export function outputIds(pid: number): string[] {
  if (!HAS_PROCFS) return [];
  const ids: string[] = [];
  for (const fd of [1, 2]) {
    try {
      const id = readlinkSync(`/proc/${pid}/fd/${fd}`);
      // Bun connects them by socket pair; anything else is the child's own redirection.
      if (id.startsWith("socket:[") || id.startsWith("pipe:[")) ids.push(id);
    } catch {
      // Gone already.
    }
  }
  return ids;
}

/** Processes other than this one holding any of `ids` open: they inherited the child's output. */
export function holdersOf(ids: readonly string[]): number[] {
  if (ids.length === 0 || !HAS_PROCFS) return [];
  const wanted = new Set(ids);
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (wanted.has(target)) {
        out.push(pid);
        break;
      }
    }
  }
  return out;
}
