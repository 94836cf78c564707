// When `toolgate serve` stops: on the first of SIGINT, SIGTERM or, over stdio, stdin's end or
// stdout's reader gone (an HTTP server may run with stdin closed: only a signal stops it).
import type { StdoutSink } from "./stdout.ts";

/** Resolves on the first of SIGINT, SIGTERM or (when `stdin`) stdin's end or stdout's reader gone, saying which. */
export function stopSignal(stdin: boolean, stdout: StdoutSink): Promise<string> {
  return new Promise((resolve) => {
    let stopped = false;
    const eof = () => stop("stdin closed");
    const int = () => stop("SIGINT");
    const term = () => stop("SIGTERM");
    const stop = (why: string) => {
      if (stopped) return;
      stopped = true;
      process.stdin.off("end", eof).off("close", eof);
      process.off("SIGINT", int).off("SIGTERM", term);
      resolve(why);
    };
    if (stdin) {
      process.stdin.once("end", eof).once("close", eof);
      stdout.onGone(() => stop("stdout closed: the client is gone"));
    }
    process.once("SIGINT", int).once("SIGTERM", term);
  });
}
