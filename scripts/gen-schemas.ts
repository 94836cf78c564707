// Exports every arktype schema to JSON Schema at build time, so the compiled binary
// validates without loading arktype. `bun scripts/gen-schemas.ts --check` fails when
// src/generated/schemas.json is out of date (the test suite runs that check too).
import { type } from "arktype";
import { configType } from "../src/config/schema.ts";
import { builtinTools } from "../src/tools/index.ts";
import { railTools } from "../src/tools/rails/index.ts";
import { mostTools } from "../src/tools/most/index.ts";
import { delegationTools } from "../src/tools/delegate/index.ts";

export function renderSchemas(): string {
  const strip = (s: Record<string, unknown>) => {
    const { $schema: _, ...rest } = s;
    return rest;
  };
  const tools: Record<string, unknown> = {};
  for (const t of [...builtinTools, ...railTools, ...mostTools, ...delegationTools({ delegation: { command: [], worktree_root: "" } })]) tools[t.name] = strip(t.input(type).toJsonSchema() as Record<string, unknown>);
  const config = strip(configType(type).toJsonSchema() as Record<string, unknown>);
  return `${JSON.stringify({ tools, config }, null, 2)}\n`;
}

if (import.meta.main) {
  const path = new URL("../src/generated/schemas.json", import.meta.url).pathname;
  const next = renderSchemas();
  const prev = await Bun.file(path).text().catch(() => "");
  if (process.argv.includes("--check")) {
    if (prev !== next) {
      console.error("src/generated/schemas.json is out of date: run `bun run gen`");
      process.exit(1);
    }
  } else if (prev !== next) {
    await Bun.write(path, next);
    console.error("wrote src/generated/schemas.json");
  }
}
