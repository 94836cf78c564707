// Builds dist/toolgate: one file made by `bun build --compile`. Schemas are exported from
// arktype first (src/generated/schemas.ts); the binary reads no .env or bunfig.toml.
import { $ } from "bun";
import pkg from "../package.json" with { type: "json" };

const root = new URL("..", import.meta.url).pathname;
await $`bun ${root}scripts/gen-schemas.ts`;

const result = await Bun.build({
  // The file_search worker is a second entry: in the binary it sits at tools/search-worker.ts
  // in the embedded file system, where search-pool.ts starts it (without it, one thread scans).
  entrypoints: [`${root}src/main.ts`, `${root}src/tools/search-worker.ts`],
  compile: {
    outfile: `${root}dist/toolgate`,
    autoloadDotenv: false,
    autoloadBunfig: false,
  },
  minify: true,
  bytecode: true,
  format: "esm",
  target: "bun",
  define: { TOOLGATE_VERSION: JSON.stringify(pkg.version) },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.error(`built dist/toolgate ${pkg.version}`);
