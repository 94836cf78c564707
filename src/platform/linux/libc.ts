// The C library through bun:ffi, for the few system calls Bun does not expose (openat2, prctl,
// waitpid, getsockopt). Loaded on demand only (bun:ffi costs a few ms); null with no known libc.
// Linux's names: only host.ts hands this out, and only on Linux (never a dlopen elsewhere).
import type { FFIFunction, Library } from "bun:ffi";

/** glibc, then musl's names. */
const LIBC = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1", "libc.so"];

/** Opens the first libc that has `symbols`, with bun:ffi's helpers; null where none can be had. */
export async function openLibc<S extends Record<string, FFIFunction>>(
  symbols: S,
): Promise<{ lib: Library<S>; ffi: typeof import("bun:ffi") } | null> {
  let ffi: typeof import("bun:ffi");
  try {
    ffi = await import("bun:ffi");
  } catch {
    return null;
  }
  for (const name of LIBC) {
    try {
      return { lib: ffi.dlopen(name, symbols), ffi };
    } catch {
      // Not this libc.
    }
  }
  return null;
}
