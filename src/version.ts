// The version, commit and target, injected by scripts/build.ts (and scripts/release.ts) through
// `define`; from source they say so.
declare const TOOLGATE_VERSION: string | undefined;
declare const TOOLGATE_COMMIT: string | undefined;
declare const TOOLGATE_TARGET: string | undefined;
export const VERSION: string = typeof TOOLGATE_VERSION === "string" ? TOOLGATE_VERSION : "0.0.0-dev";
/** The commit built (12 hex, `-dirty` when the tree had uncommitted changes), or "unknown". */
export const COMMIT: string = typeof TOOLGATE_COMMIT === "string" ? TOOLGATE_COMMIT : "unknown";
/** The platform the binary was built for: linux-x64, linux-arm64-musl, darwin-arm64, windows-x64, ... */
export const TARGET: string =
  typeof TOOLGATE_TARGET === "string" ? TOOLGATE_TARGET : `${process.platform}-${process.arch}`;
