// The prompter: asks the person at the controlling terminal (never stdin/stdout, which may be
// pipes or JSON-RPC) whether to grant one permission, in Deno's format. No terminal means no.
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { escapeControl } from "../result/escape.ts";
import type { PermKind } from "./types.ts";

export type Answer = "y" | "n" | "A";

export interface PromptRequest {
  kind: PermKind;
  value: string;
  /** Who asks, e.g. the tool name. Untrusted: escaped before display. */
  reason: string;
  flag: string;
  /**
   * Lines shown under the request ("┠─ …\n" each), built and escaped by toolgate itself: what the grant would start.
   */
  detail?: string;
}

export type Prompter = (req: PromptRequest) => Answer;
/** A prompter that asks elsewhere (a session asking at its client's terminal). */
export type AsyncPrompter = (req: PromptRequest) => Promise<Answer>;

/** One question for a terminal, as data: what askTty writes, what it accepts, what it says after. */
export interface Question {
  readonly text: string;
  readonly answers: readonly string[];
  readonly retry?: string;
  /** Written after the question is settled, by answer; `none` when no answer was given. */
  readonly outcomes: Readonly<Record<string, string>>;
  readonly none: string;
}

/** Asks a Question at some terminal: the answer (one of `answers`), or null. */
export type Asker = (q: Question) => Promise<string | null>;

/** Builds a Question from askTty's arguments (its outcome function evaluated for each answer). */
export function question(text: string, answers: readonly string[], opts: AskOptions = {}): Question {
  const outcome = opts.outcome ?? (() => "");
  return {
    text,
    answers,
    ...(opts.retry !== undefined ? { retry: opts.retry } : {}),
    outcomes: Object.fromEntries(answers.map((a) => [a, outcome(a)])),
    none: outcome(null),
  };
}

/** Asks `q` at the terminal at `ttyPath` (askTty). */
export function askQuestion(ttyPath: string, q: Question): string | null {
  return askTty(ttyPath, q.text, q.answers, {
    ...(q.retry !== undefined ? { retry: q.retry } : {}),
    outcome: (a) => (a === null ? q.none : (q.outcomes[a] ?? q.none)),
  });
}

/** The non-interactive prompter (`--no-prompt`, CI, no terminal): always no, prints nothing. */
export const noPrompter: Prompter = () => "n";

const MAX_LINE = 1024;

// One line from a terminal in canonical mode; null at end of input. Bytes past MAX_LINE are
// read and dropped so they cannot answer the next question.
function readLine(fd: number): string | null {
  const chunk = Buffer.alloc(256);
  const kept: Buffer[] = [];
  let size = 0;
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) return size === 0 ? null : Buffer.concat(kept).toString("utf8");
    const newline = chunk.subarray(0, n).indexOf(10);
    const part = chunk.subarray(0, newline < 0 ? n : newline);
    if (size < MAX_LINE) kept.push(Buffer.from(part.subarray(0, MAX_LINE - size)));
    size += part.length;
    if (newline >= 0) return Buffer.concat(kept).toString("utf8");
  }
}

/** The controlling terminal, open for a conversation of several questions (a form); null when it cannot be opened. */
export interface TtyLines {
  write(text: string): void;
  /** One line as typed (without its newline); null at end of input. */
  line(): string | null;
  close(): void;
}

export function openTtyLines(ttyPath = "/dev/tty"): TtyLines | null {
  let fd: number;
  try {
    fd = openSync(ttyPath, "r+");
  } catch {
    return null;
  }
  return {
    write: (text) => void writeSync(fd, text),
    line: () => {
      try {
        return readLine(fd);
      } catch {
        return null;
      }
    },
    close: () => closeSync(fd),
  };
}

export interface AskOptions {
  /** How many lines to read before giving up (default 3). */
  tries?: number;
  /** Written before each re-read after an unrecognized line (default: `text` again). */
  retry?: string;
  /** Written after the question is settled; gets the answer, or null when none was given. */
  outcome?: (answer: string | null) => string;
}

/**
 * Writes `text` to the terminal at `ttyPath` and reads lines until one (trimmed) is among
 * `answers`. null when the terminal cannot be opened, at end of input, or after `tries` misses.
 */
export function askTty(
  ttyPath: string,
  text: string,
  answers: readonly string[],
  opts: AskOptions = {},
): string | null {
  let fd: number;
  try {
    fd = openSync(ttyPath, "r+");
  } catch {
    return null;
  }
  try {
    writeSync(fd, text);
    let answer: string | null = null;
    for (let i = 0; i < (opts.tries ?? 3); i++) {
      if (i > 0) writeSync(fd, opts.retry ?? text);
      const line = readLine(fd);
      if (line === null) break;
      if (answers.includes(line.trim())) {
        answer = line.trim();
        break;
      }
    }
    if (opts.outcome) writeSync(fd, opts.outcome(answer));
    return answer;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** `all`: "A" (allow every permission of this kind) is offered; never through a session's socket. */
function allowLine(kind: PermKind, all = true): string {
  return all
    ? `Allow? [y/n/A] (y = yes, allow; n = no, deny; A = allow all ${kind} permissions) > `
    : "Allow? [y/n] (y = yes, allow this call; n = no, deny) > ";
}

function access(req: PromptRequest): string {
  return `${req.kind} access to "${escapeControl(req.value)}"`;
}

/** The prompt text, as Deno words it. */
export function promptText(req: PromptRequest, all = true): string {
  return (
    `┏ ⚠️  toolgate requests ${access(req)}.\n` +
    (req.detail ?? "") +
    `┠─ Requested by tool \`${escapeControl(req.reason)}\`.\n` +
    `┠─ Run again with ${escapeControl(req.flag)} to bypass this prompt.\n` +
    `┗ ${allowLine(req.kind, all)}`
  );
}

function outcomeText(req: PromptRequest, answer: Answer): string {
  if (answer === "A") return `✅ Granted all ${req.kind} access.\n`;
  return answer === "y" ? `✅ Granted ${access(req)}.\n` : `❌ Denied ${access(req)}.\n`;
}

function toAnswer(line: string | null, all = true): Answer {
  if (line === "y" || line === "Y") return "y";
  return line === "A" && all ? "A" : "n";
}

function permissionQuestion(req: PromptRequest, all = true): Question {
  return question(promptText(req, all), all ? ["y", "Y", "n", "N", "A"] : ["y", "Y", "n", "N"], {
    retry: `┗ Unrecognized option. ${allowLine(req.kind, all)}`,
    outcome: (line) => outcomeText(req, toAnswer(line, all)),
  });
}

/** Prompts on the controlling terminal; behaves as noPrompter when there is none. */
export function ttyPrompter(ttyPath = "/dev/tty"): Prompter {
  return (req) => toAnswer(askQuestion(ttyPath, permissionQuestion(req)));
}

/**
 * The same prompt, asked through `ask` (a session's client, at its own terminal): yes or no for
 * this call only. "A" is neither offered nor taken: whatever reaches the socket must not widen more.
 */
export function askerPrompter(ask: Asker): AsyncPrompter {
  return async (req) => toAnswer(await ask(permissionQuestion(req, false)), false);
}
