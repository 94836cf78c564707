// `toolgate doctor` on a terminal: one line a check with its mark (✓, ✗, !, ·), the detail wrapped
// beside it and the fix under it, then the count of problems and warnings.
import { escapeControl } from "../result/escape.ts";
import { COMMIT, TARGET, VERSION } from "../version.ts";
import type { Check, Status } from "./doctor-checks.ts";
import { wrap } from "./render-help.ts";
import { displayWidth } from "./ui.ts";

const MARK: Record<Status, string> = { ok: "✓", fail: "✗", warn: "!", info: "·" };

export function doctorReport(checks: readonly Check[], width: number, workspace: string | undefined): string {
  const w = Math.min(18, Math.max(...checks.map((c) => displayWidth(c.check))));
  const lines = [`toolgate ${VERSION} (${COMMIT}, ${TARGET})${workspace ? ` in ${escapeControl(workspace)}` : ""}`, ""];
  for (const c of checks) {
    const head = `${MARK[c.status]} ${escapeControl(c.check).padEnd(w)}  `;
    const body = wrap(escapeControl(c.detail), width - displayWidth(head));
    lines.push(head + body[0], ...body.slice(1).map((l) => " ".repeat(displayWidth(head)) + l));
    if (c.fix && c.status !== "ok" && c.status !== "info")
      lines.push(...wrap(`fix: ${escapeControl(c.fix)}`, width, displayWidth(head) + 2, displayWidth(head)));
  }
  const count = (st: Status) => checks.filter((c) => c.status === st).length;
  const [fails, warns] = [count("fail"), count("warn")];
  lines.push(
    "",
    fails
      ? `${fails} problem${fails === 1 ? "" : "s"} (✗): something the configuration needs is missing`
      : "everything the configuration needs is here",
    ...(warns
      ? [`${warns} warning${warns === 1 ? "" : "s"} (!): missing, but nothing configured needs it, or not checked`]
      : []),
  );
  return lines.join("\n");
}
