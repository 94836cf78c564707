// The types of validators.js, which scripts/gen-schemas.ts generates (`bun run gen`): ajv's
// standalone check of each built-in tool's input, by tool name.
export type GeneratedCheck = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string; data?: unknown }[] | null;
};
export declare const checks: Readonly<Record<string, GeneratedCheck | undefined>>;
