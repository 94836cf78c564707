// Whether anyone can be asked: prompting not refused by flag or CI, and a controlling terminal.
import { closeSync, openSync } from "node:fs";
import { isCI } from "../config/ci.ts";

export function canAsk(
  ctx: { readonly env: Readonly<Record<string, string | undefined>> },
  noPrompt: boolean,
): boolean {
  if (noPrompt || isCI(ctx.env)) return false;
  try {
    closeSync(openSync("/dev/tty", "r+"));
    return true;
  } catch {
    return false;
  }
}
