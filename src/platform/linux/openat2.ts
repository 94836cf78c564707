// openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) through bun:ffi: opens a path below an open folder in
// one system call, the kernel refusing any symlink on the way and any escape by "..". What file_search
// opens per file, where a /proc check per descriptor would cost a second call. Loaded on demand
// (bun:ffi costs a few ms); null where the call is missing (Linux before 5.6, no glibc): callers then
// verify each descriptor by its path (fs/opened.ts).
import type { OpenBeneath } from "../types.ts";
import { openLibc } from "./libc.ts";

const SYS_OPENAT2 = 437; // the same number on x86_64 and aarch64 (asm-generic)
const O_CLOEXEC = 0o2000000;
const RESOLVE_NO_SYMLINKS = 0x04;
const RESOLVE_BENEATH = 0x08;

let loaded: Promise<OpenBeneath | null> | undefined;

export function loadOpenBeneath(flags: number): Promise<OpenBeneath | null> {
  return (loaded ??= load(flags));
}

async function load(flags: number): Promise<OpenBeneath | null> {
  const opened = await openLibc({ syscall: { args: ["i64", "i32", "ptr", "ptr", "u64"], returns: "i32" } });
  if (!opened) return null;
  const {
    lib,
    ffi: { ptr },
  } = opened;
  // struct open_how { u64 flags; u64 mode; u64 resolve; }
  // Both buffers stay referenced by the closure and are pointed at on each call: a pointer taken
  // once would outlive a buffer the collector is free to reclaim.
  const how = new BigUint64Array([BigInt(flags | O_CLOEXEC), 0n, BigInt(RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH)]);
  const path = new Uint8Array(4097);
  const room = path.subarray(0, 4096); // one byte kept for the NUL
  const encoder = new TextEncoder();
  const open: OpenBeneath = (dirFd, rel) => {
    const { read, written } = encoder.encodeInto(rel, room);
    if (read !== rel.length) return -1; // longer than PATH_MAX
    path[written] = 0;
    return lib.symbols.syscall(SYS_OPENAT2, dirFd, ptr(path), ptr(how), 24) as number;
  };
  // The kernel has it when "." opens below "/" (ENOSYS otherwise); the probe's fd is closed at once.
  const { openSync, closeSync, constants } = await import("node:fs");
  const root = openSync("/", constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    const fd = open(root, ".");
    if (fd < 0) return null;
    closeSync(fd);
    return open;
  } finally {
    closeSync(root);
  }
}
