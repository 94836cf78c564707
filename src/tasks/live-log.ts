// A running task's output on its way to SQLite: the launcher hands each redacted piece
// here (LaunchWatch.output); pieces are batched and written at most once per FLUSH_MS, so a
// chatty process costs a bounded number of transactions, and `tasks logs --follow` sees output
// within about that long. What waits between writes is bounded too: past the cap the oldest goes;
// and a write that took long (megabytes a second) spaces the next out, so the database never
// takes more than about a tenth of the supervisor's time from draining the child.
/** One write per this long at most (a busy database is shared by every call and task). */
export const FLUSH_MS = 200;
/** After a write of W ms the next waits at least W times this (the drain keeps most of the time). */
const SPACING = 9;

export interface Piece {
  /** stdout, stderr, or operator (the pipeline's own lines for the operator). */
  stream: string;
  text: string;
}

export interface LiveLogDeps {
  /** Writes one batch in order, with the count of chunks dropped before it (state/task-logs.ts appendLogs). */
  readonly write: (pieces: readonly Piece[], dropped: number) => void;
  /** Characters one stored chunk holds, and how many chunks a task keeps (the pending cap is both). */
  readonly chunkChars: number;
  readonly chunksCap: number;
  readonly flushMs?: number;
}

export class LiveLog {
  #pending: Piece[] = [];
  #chars = 0;
  /** Characters dropped from the pending batch since the last write (counted as chunks when written). */
  #droppedChars = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  #failed = false;
  readonly #deps: LiveLogDeps;

  readonly #now: () => number;

  constructor(deps: LiveLogDeps, now: () => number = () => performance.now()) {
    this.#deps = deps;
    this.#now = now;
  }

  /** Starts the periodic writes; `stop()` ends them with a last write. */
  start(): this {
    if (this.#running) return this;
    this.#running = true;
    this.#schedule(0);
    return this;
  }

  #schedule(tookMs: number): void {
    if (!this.#running) return;
    this.#timer = setTimeout(
      () => {
        const t0 = this.#now();
        this.flush();
        this.#schedule(this.#now() - t0);
      },
      Math.max(this.#deps.flushMs ?? FLUSH_MS, tookMs * SPACING),
    );
  }

  push(stream: string, text: string): void {
    if (text.length === 0) return;
    const last = this.#pending.at(-1);
    if (last?.stream === stream) last.text += text;
    else this.#pending.push({ stream, text });
    this.#chars += text.length;
    const cap = this.#deps.chunkChars * this.#deps.chunksCap;
    // More than the table would keep anyway: the oldest pending text goes now, counted.
    while (this.#chars > cap) {
      const first = this.#pending[0]!;
      const cut = Math.min(first.text.length, this.#chars - cap);
      first.text = first.text.slice(cut);
      this.#chars -= cut;
      this.#droppedChars += cut;
      if (first.text.length === 0) this.#pending.shift();
    }
  }

  /** Writes what is pending. A failing write is not retried (the artifacts keep the whole stream). */
  flush(): void {
    if (this.#pending.length === 0 && this.#droppedChars === 0) return;
    const pieces = this.#pending;
    const dropped = Math.ceil(this.#droppedChars / this.#deps.chunkChars);
    this.#pending = [];
    this.#chars = 0;
    this.#droppedChars = 0;
    if (this.#failed) return;
    try {
      this.#deps.write(pieces, dropped);
    } catch {
      // A locked or full database must not fail the task's run: the log then stops here.
      this.#failed = true;
    }
  }

  stop(): void {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.flush();
  }
}
