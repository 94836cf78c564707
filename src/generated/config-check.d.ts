// The types of config-check.js, which scripts/gen-schemas.ts generates (`bun run gen`): ajv's
// standalone check of the config file.
import type { GeneratedCheck } from "./validators.js";
export declare const validate: GeneratedCheck;
