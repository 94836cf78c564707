// What Linux's /proc tells toolgate: the process table (a launched tree's members, found by
// session, group and parent), the descriptors a process holds, its environment, the path the
// kernel gives an open descriptor (/proc/self/fd/N: what was opened is what was checked), and the
// Unix sockets bound on the host (/proc/net/unix). Nothing is read until asked.
import { constants, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import type { FdPaths, ProcessTable, ProcStat } from "../types.ts";

/** Parses /proc/PID/stat; the command name may hold spaces and parentheses, so split after the last ")". */
export function parseStat(text: string): ProcStat | null {
  const close = text.lastIndexOf(")");
  if (close === -1) return null;
  const f = text.slice(close + 2).split(" ");
  const pid = Number.parseInt(text, 10);
  // Fields after the name, counted from 3 (state): ppid 4, pgrp 5, session 6, starttime 22.
  const stat = {
    pid,
    state: f[0] ?? "",
    ppid: Number(f[1]),
    pgid: Number(f[2]),
    sid: Number(f[3]),
    start: Number(f[19]),
  };
  return Number.isInteger(pid) && Number.isFinite(stat.start) ? stat : null;
}

function readStat(pid: number): ProcStat | null {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, "latin1"));
  } catch {
    return null;
  }
}

/** Every process visible in /proc (about 1 ms for 100 processes); null without a procfs. */
function scan(): ProcStat[] | null {
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

/** The identities ("socket:[N]") of a running process's stdout and stderr; not of its own redirections. */
function outputIds(pid: number): string[] {
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

function holdersOf(ids: readonly string[]): number[] {
  if (ids.length === 0) return [];
  const wanted = new Set(ids);
  const out: number[] = [];
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const name of names) {
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

export const procTable: ProcessTable = {
  stat: readStat,
  scan,
  uptime() {
    try {
      const up = Number.parseFloat(readFileSync("/proc/uptime", "latin1"));
      return Number.isFinite(up) ? up : null;
    } catch {
      return null;
    }
  },
  // sysconf(_SC_CLK_TCK): USER_HZ, 100 on every Linux port in use.
  ticksPerSecond: 100,
  outputIds,
  holdersOf,
  environ(pid) {
    try {
      return readFileSync(`/proc/${pid}/environ`, "latin1");
    } catch {
      return null;
    }
  },
};

/** The path the kernel reports for an open descriptor, or null. */
function fdPath(fd: number): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/** Linux's O_PATH (the same value on every architecture Bun ships for): an fd naming an object, no I/O. */
export const O_PATH = 0o10000000;

export const procFdPaths: FdPaths = {
  isAt: (fd, path) => fdPath(fd) === path,
  pathOf: fdPath,
  // The kernel looks the name up in that very folder: open, mkdir, link and rename through it act
  // where the descriptor was verified, not where a path now leads.
  inDir: (dirFd, name) => `/proc/self/fd/${dirFd}/${name}`,
  reopenPath: (fd) => `/proc/${process.pid}/fd/${fd}`,
  openIn: (dirFd, name, flags, mode) => openSync(`/proc/self/fd/${dirFd}/${name}`, flags | constants.O_NOFOLLOW, mode),
  namingFlags: O_PATH,
};

/**
 * The paths in /proc/net/unix's text ("Num RefCount Protocol Flags Type St Inode Path"): a path
 * is the eighth field to the end of the line; an abstract name (starting with @) and a relative
 * path (bound from the binder's folder, not findable) are left out.
 */
export function listedSocketPaths(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split("\n")) {
    const m = /^\s*\S+:(?:\s+\S+){6} (\/.*)$/.exec(line);
    if (m) out.add(m[1]!);
  }
  return [...out];
}

/** The real paths of the host's bound sockets that exist now as sockets (a listed path may have been unlinked). */
export function boundSockets(): string[] {
  let text: string;
  try {
    text = readFileSync("/proc/net/unix", "latin1");
  } catch {
    return [];
  }
  const out = new Set<string>();
  for (const listed of listedSocketPaths(text)) {
    try {
      const real = realpathSync(listed);
      if (lstatSync(real).isSocket()) out.add(real);
    } catch {
      // Gone, or in a folder this process cannot search (then nobody it starts can either).
    }
  }
  return [...out];
}

/** A kernel setting under /proc/sys (`user/max_user_namespaces`), trimmed; undefined when it cannot be read. */
export function sysctl(name: string): string | undefined {
  try {
    return readFileSync(`/proc/sys/${name}`, "utf8").trim();
  } catch {
    return undefined;
  }
}
