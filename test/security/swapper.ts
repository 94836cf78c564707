// The attacker's half of the race tests: a separate process that swaps two names with
// renameat2(RENAME_EXCHANGE) in a tight loop (bun:ffi against libc: no compiler needed), so a
// name is a real file or folder one instant and a symlink leading out the next. Bounded: it stops
// after `ms` milliseconds or when killed, and prints how many swaps it made.
// Usage: bun test/security/swapper.ts A B MS   (prints "ready" once the first swap worked)
import { dlopen, FFIType, ptr } from "bun:ffi";

const [a, b, ms] = process.argv.slice(2);
if (a === undefined || b === undefined) throw new Error("usage: swapper.ts A B [MS]");
const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;
const libc = dlopen("libc.so.6", {
  renameat2: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
});
const pa = Buffer.from(`${a}\0`);
const pb = Buffer.from(`${b}\0`);
const swap = () => libc.symbols.renameat2(AT_FDCWD, ptr(pa), AT_FDCWD, ptr(pb), RENAME_EXCHANGE);
if (swap() !== 0 || swap() !== 0) {
  process.stderr.write(`renameat2(RENAME_EXCHANGE) failed for ${a} and ${b}\n`);
  process.exit(2);
}
process.stdout.write("ready\n");
const until = performance.now() + Number(ms ?? 10_000);
let swaps = 2;
// Checking the clock costs more than a swap: look at it every 256 swaps.
while ((swaps & 255) !== 0 || performance.now() < until) {
  swap();
  swaps++;
}
process.stdout.write(`${swaps}\n`);
