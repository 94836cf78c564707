// The one updating line a slow call shows on a terminal's stderr: what it is doing (the tool, then
// what it last said: a command's last output line, a gate's name, a server's progress) and the
// time so far. Shown only once the call has run past a moment (nothing for a fast one), redrawn in
// place, cleared before the result or any other line; never on stdout, never when stderr is not a
// terminal, off with --quiet (the caller decides and creates none).
import { escapeControl } from "../result/escape.ts";

const CLEAR = "\r\x1b[2K";
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface StatusLine {
  /** The call's own work has started (after any prompt): the line may show from `delayMs` on. */
  begin(what: string): void;
  /** What it is doing now: one line, escaped and cut to the width when drawn. */
  detail(text: string): void;
  /** Draws now, without waiting for the moment (what a server reports as its progress). */
  show(): void;
  /** Hides the line while something else uses the terminal (a form); `resume` shows it again. */
  pause(): void;
  resume(): void;
  /** Clears the line for good (before the result). */
  stop(): void;
}

export interface StatusOptions {
  readonly write: (text: string) => void;
  /** The terminal's width in columns (read at each draw: a window may be resized). */
  readonly columns: () => number;
  readonly now?: () => number;
  /** How long a call runs before the line shows (ms). */
  readonly delayMs?: number;
  /** How often it is redrawn (ms). */
  readonly everyMs?: number;
}

/** The last non-empty line of a chunk of output, or undefined. */
export const lastLine = (text: string): string | undefined =>
  text
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter(Boolean)
    .pop();

export function statusLine(o: StatusOptions): StatusLine {
  const now = o.now ?? Date.now;
  const delayMs = o.delayMs ?? 300;
  let started: number | undefined;
  let what = "";
  let detail = "";
  let frame = 0;
  let shown = false;
  let paused = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  let arm: ReturnType<typeof setTimeout> | undefined;
  const clear = () => {
    if (shown) o.write(CLEAR);
    shown = false;
  };
  const draw = () => {
    if (paused || started === undefined) return;
    const secs = ((now() - started) / 1000).toFixed(1);
    const text = escapeControl(`${FRAMES[frame++ % FRAMES.length]} ${what}${detail ? `: ${detail}` : ""}`);
    const tail = ` · ${secs}s`;
    const width = Math.max(20, o.columns() - 1);
    const cut = text.length + tail.length > width ? `${text.slice(0, Math.max(1, width - tail.length - 1))}…` : text;
    o.write(`${CLEAR}${cut}${tail}`);
    shown = true;
  };
  const run = () => {
    if (timer) return;
    if (arm) clearTimeout(arm);
    arm = undefined;
    draw();
    timer = setInterval(draw, o.everyMs ?? 100);
    timer.unref?.();
  };
  const stopTimers = () => {
    if (arm) clearTimeout(arm);
    if (timer) clearInterval(timer);
    arm = timer = undefined;
  };
  return {
    begin(w) {
      what = w;
      if (started !== undefined) return;
      started = now();
      arm = setTimeout(run, delayMs);
      arm.unref?.();
    },
    detail(text) {
      detail = text;
    },
    show() {
      if (started !== undefined) run();
    },
    pause() {
      paused = true;
      clear();
    },
    resume() {
      paused = false;
    },
    stop() {
      stopTimers();
      clear();
      started = undefined;
    },
  };
}
