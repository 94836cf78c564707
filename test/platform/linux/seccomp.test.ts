// The seccomp program's shape for both architectures (the x86_64 one is exercised for real by
// test/security/sandbox-suid.test.ts): a whole number of sock_filter entries, the arch checked first.
import { expect, test } from "bun:test";
import { seccompProgram, seccompSupported } from "../../../src/platform/linux/seccomp.ts";

const entries = (b: Uint8Array) => {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return Array.from({ length: b.length / 8 }, (_, i) => ({
    code: v.getUint16(i * 8, true),
    jt: b[i * 8 + 2]!,
    jf: b[i * 8 + 3]!,
    k: v.getUint32(i * 8 + 4, true),
  }));
};

test.each([
  ["x64", 0xc000003e],
  ["arm64", 0xc00000b7],
])("%s: loads the arch, refuses another ABI, and every jump lands inside the program", (arch, audit) => {
  const prog = entries(seccompProgram(arch));
  expect(prog.length).toBeLessThan(64);
  expect(prog[0]).toEqual({ code: 0x20, jt: 0, jf: 0, k: 4 });
  expect(prog[1]).toMatchObject({ code: 0x15, k: audit });
  // The last two returns: EPERM (the set-id refusal) and ENOSYS.
  expect(prog.slice(-2).map((x) => x.k)).toEqual([0x00050001, 0x00050026]);
  prog.forEach((x, i) => {
    if ((x.code & 0x07) === 0x05) expect(Math.max(x.jt, x.jf) + i + 1).toBeLessThan(prog.length);
  });
});

test("other architectures have no filter (product and bench as root are then refused at boot)", () => {
  expect(seccompSupported("x64")).toBe(true);
  expect(seccompSupported("ia32")).toBe(false);
  expect(() => seccompProgram("ia32")).toThrow("no seccomp filter for the ia32 architecture");
});
