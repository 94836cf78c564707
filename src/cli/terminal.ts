// Whether anyone can be asked: prompting not refused by flag or CI, and a controlling terminal.
import { closeSync, openSync } from "node:fs";
import { isCI } from "../config/ci.ts";
import type { RunContext } from "./context.ts";

export function canAsk(ctx: RunContext, noPrompt: boolean): boolean {
  if (noPrompt || isCI(ctx.env)) return false;
  try {
    closeSync(openSync("/dev/tty", "r+"));
    return true;
  } catch {
    return false;
  }
}
