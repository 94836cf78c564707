// The version, injected by scripts/build.ts through `define`; "dev" when run from source.
declare const TOOLGATE_VERSION: string | undefined;
export const VERSION: string = typeof TOOLGATE_VERSION === "string" ? TOOLGATE_VERSION : "0.0.0-dev";
