// The seccomp filter every bubblewrap sandbox runs under (docs/security.md): no setuid or
// setgid bit can be set from inside. As root the child is uid 0 in a user namespace mapped to host
// root; the owner of a file may set S_ISUID without any capability, and the workspace is written
// through to the host, whose mount is not nosuid: a `chmod 4755` copy of a shell would be a root
// shell for every host user. The filter makes the calls that set a mode fail with EPERM when the
// mode carries S_ISUID or S_ISGID; openat2 (mode inside a struct the filter cannot read) and
// io_uring (which opens files outside these calls) fail with ENOSYS, so libraries fall back.
// No new user namespace either (nested ones refused, also as nobody): clone and unshare with
// CLONE_NEWUSER fail with EPERM, clone3 (flags inside a struct) with ENOSYS so libc falls back to
// clone. bwrap reads the compiled classic-BPF program (an array of struct sock_filter) from a descriptor.
import { mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const X32_SYSCALL_BIT = 0x40000000;

const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

const SET_ID_BITS = 0o6000; // S_ISUID | S_ISGID
const CREATES = 0o100 | 0o20000000; // O_CREAT | __O_TMPFILE: only then does open read its mode
const CLONE_NEWUSER = 0x10000000;

// Where the call's arguments are: `mode` is the index of the argument refused (EPERM) when it has
// any of `bits` (default: the set-id bits); `flags`, when given, the index of open's flags (the mode
// is read only when they create a file); `errno`: the call always fails with it.
interface Rule {
  readonly nr: number;
  readonly mode?: number;
  readonly bits?: number;
  readonly flags?: number;
  readonly errno?: number;
}

const OPENAT2 = 437;
const IO_URING_SETUP = 425;
const FCHMODAT2 = 452;
const CLONE3 = 435;

/** x86_64 also has the old path calls; aarch64 has only the *at ones. */
const RULES: Record<string, { readonly arch: number; readonly rules: readonly Rule[] }> = {
  x64: {
    arch: AUDIT_ARCH_X86_64,
    rules: [
      { nr: 2, flags: 1, mode: 2 }, // open
      { nr: 257, flags: 2, mode: 3 }, // openat
      { nr: 85, mode: 1 }, // creat
      { nr: 83, mode: 1 }, // mkdir
      { nr: 258, mode: 2 }, // mkdirat
      { nr: 133, mode: 1 }, // mknod
      { nr: 259, mode: 2 }, // mknodat
      { nr: 90, mode: 1 }, // chmod
      { nr: 91, mode: 1 }, // fchmod
      { nr: 268, mode: 2 }, // fchmodat
      { nr: FCHMODAT2, mode: 2 },
      { nr: OPENAT2, errno: ENOSYS },
      { nr: IO_URING_SETUP, errno: ENOSYS },
      { nr: 56, mode: 0, bits: CLONE_NEWUSER }, // clone
      { nr: 272, mode: 0, bits: CLONE_NEWUSER }, // unshare
      { nr: CLONE3, errno: ENOSYS },
    ],
  },
  arm64: {
    arch: AUDIT_ARCH_AARCH64,
    rules: [
      { nr: 56, flags: 2, mode: 3 }, // openat
      { nr: 34, mode: 2 }, // mkdirat
      { nr: 33, mode: 2 }, // mknodat
      { nr: 52, mode: 1 }, // fchmod
      { nr: 53, mode: 2 }, // fchmodat
      { nr: FCHMODAT2, mode: 2 },
      { nr: OPENAT2, errno: ENOSYS },
      { nr: IO_URING_SETUP, errno: ENOSYS },
      { nr: 220, mode: 0, bits: CLONE_NEWUSER }, // clone
      { nr: 97, mode: 0, bits: CLONE_NEWUSER }, // unshare
      { nr: CLONE3, errno: ENOSYS },
    ],
  },
};

/**
 * Whether an architecture has a filter (platform/facilities.ts `seccomp`; else product/bench as root are refused at
 * boot).
 */
export const seccompSupported = (arch: string = process.arch): boolean => arch in RULES;

// struct seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8i (the low word first: both arches are little-endian).
const argLow = (i: number) => 16 + 8 * i;

interface Insn {
  readonly code: number;
  readonly k: number;
  /** Labels (or 0 to fall through) for conditional jumps. */
  readonly jt?: string | 0;
  readonly jf?: string | 0;
  readonly label?: string;
}

const LD = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const JSET = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const RET = 0x06; // BPF_RET | BPF_K

/** The program for one architecture, as the bytes bwrap reads. */
export function seccompProgram(arch: string = process.arch): Uint8Array {
  const table = RULES[arch];
  if (!table) throw new Error(`no seccomp filter for the ${arch} architecture`);
  const insns: Insn[] = [
    { code: LD, k: 4 },
    // Another ABI (32-bit compat) would use other syscall numbers: nothing runs under it.
    { code: JEQ, k: table.arch, jt: 0, jf: "nosys" },
    { code: LD, k: 0 },
    ...(table.arch === AUDIT_ARCH_X86_64 ? [{ code: JGE, k: X32_SYSCALL_BIT, jt: "nosys", jf: 0 } as Insn] : []),
    ...table.rules.map((r, i): Insn => ({ code: JEQ, k: r.nr, jt: `rule${i}`, jf: 0 })),
    { code: RET, k: RET_ALLOW },
  ];
  table.rules.forEach((r, i) => {
    const label = `rule${i}`;
    if (r.errno !== undefined) {
      insns.push({ code: RET, k: RET_ERRNO | r.errno, label });
      return;
    }
    if (r.flags !== undefined) {
      insns.push({ code: LD, k: argLow(r.flags), label });
      insns.push({ code: JSET, k: CREATES, jt: 0, jf: "ok" });
    }
    insns.push({ code: LD, k: argLow(r.mode!), ...(r.flags === undefined ? { label } : {}) });
    insns.push({ code: JSET, k: r.bits ?? SET_ID_BITS, jt: "eperm", jf: "ok" });
  });
  // Jumps only go forward: the handlers' "allowed" is its own return at the end.
  insns.push({ code: RET, k: RET_ALLOW, label: "ok" });
  insns.push({ code: RET, k: RET_ERRNO | EPERM, label: "eperm" });
  insns.push({ code: RET, k: RET_ERRNO | ENOSYS, label: "nosys" });
  return assemble(insns);
}

/** Resolves labels to the forward offsets classic BPF jumps take (8 bits: the program is small). */
function assemble(insns: readonly Insn[]): Uint8Array {
  const at = new Map<string, number>();
  insns.forEach((x, i) => {
    if (x.label) at.set(x.label, i);
  });
  const bytes = new Uint8Array(insns.length * 8);
  const view = new DataView(bytes.buffer);
  const offset = (from: number, to: string | 0 | undefined) => {
    if (!to) return 0;
    const d = at.get(to)! - from - 1;
    if (!(d >= 0 && d <= 255)) throw new Error(`seccomp jump to ${to} out of range`);
    return d;
  };
  insns.forEach((x, i) => {
    view.setUint16(i * 8, x.code, true);
    view.setUint8(i * 8 + 2, offset(i, x.jt));
    view.setUint8(i * 8 + 3, offset(i, x.jf));
    view.setUint32(i * 8 + 4, x.k, true);
  });
  return bytes;
}

/** One descriptor per process onto the program, its file already removed. */
let held: number | undefined;

/**
 * A fresh read-only descriptor onto the program, for one bwrap (which reads it to its end: every
 * run needs its own offset, so each opens /proc/self/fd/N anew). The caller closes it after the spawn.
 */
export function openSeccomp(): number {
  if (held === undefined) {
    // node:os on first use: a static import of a builtin is loaded at every start of the binary.
    const { tmpdir } = require("node:os") as typeof import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "toolgate-seccomp-"));
    try {
      const file = join(dir, "filter.bpf");
      writeFileSync(file, seccompProgram(), { mode: 0o600 });
      held = openSync(file, "r");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return openSync(`/proc/self/fd/${held}`, "r");
}
