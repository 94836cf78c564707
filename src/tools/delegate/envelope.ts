// The typed envelope a `task` call returns, read from what the child agent printed: its last
// stdout line when that is a JSON object with a "summary" (and optional "findings"), else the text
// itself as the summary. Bounded by delegation.max_output_chars, the bound named. Pure.

export type TaskStatus = "done" | "failed" | "timeout";

export interface TaskEnvelope {
  readonly status: TaskStatus;
  readonly summary: string;
  readonly findings: readonly string[];
  /** The summary or findings were clipped to the output bound. */
  readonly truncated: boolean;
  /** How the child ended: its exit code, or the signal / timeout. */
  readonly exit: string;
}

const clip = (s: string, n: number): [string, boolean] => (s.length > n ? [s.slice(0, n), true] : [s, false]);

export function readEnvelope(stdout: string, exit: string, status: TaskStatus, maxChars: number): TaskEnvelope {
  const lines = stdout.trimEnd().split("\n");
  let summary = stdout.trim();
  let findings: string[] = [];
  try {
    const last = JSON.parse(lines[lines.length - 1] ?? "");
    if (last !== null && typeof last === "object" && typeof last.summary === "string") {
      summary = last.summary;
      if (Array.isArray(last.findings))
        findings = last.findings.map((f: unknown) => (typeof f === "string" ? f : JSON.stringify(f)));
    }
  } catch {
    // Free text: the whole output is the summary.
  }
  const [s, cut] = clip(summary, maxChars);
  let budget = maxChars - s.length;
  let clipped = cut;
  const kept: string[] = [];
  for (const f of findings) {
    if (budget <= 0) {
      clipped = true;
      break;
    }
    const [c, cutF] = clip(f, budget);
    kept.push(c);
    budget -= c.length;
    clipped ||= cutF;
  }
  return { status, summary: s, findings: kept, truncated: clipped, exit };
}
