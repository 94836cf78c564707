// The status line of a slow call on a terminal: nothing for a fast call, then one line redrawn in
// place (what the call is doing, cut to the width, and the time so far), hidden while something
// else uses the terminal, cleared for good before the result. In process with an injected clock,
// and end to end under a pseudo-terminal (util-linux `script`), where stdout is a file.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { lastLine, statusLine } from "../../src/cli/status-line.ts";
import { BIN, run, tempDir } from "../helpers.ts";
import { waitFor } from "../support/wait.ts";

const CLEAR = "\r\x1b[2K";

describe("the line", () => {
  test("shows after the delay, redraws in place, cuts to the width, and clears", async () => {
    const out: string[] = [];
    let t = 1_000;
    const line = statusLine({ write: (s) => out.push(s), columns: () => 30, now: () => t, delayMs: 20, everyMs: 10 });
    line.begin("bash");
    line.detail("step 1");
    expect(out).toEqual([]); // a fast call shows nothing
    t += 1_500;
    await waitFor("a line drawn", () => out.length > 0);
    expect(out[0]).toBe(`${CLEAR}⠋ bash: step 1 · 1.5s`);
    line.detail("a very long line of output that will not fit");
    await waitFor("the line cut to the width", () => out.at(-1)!.includes("…"));
    const last = out.at(-1)!;
    expect(last.startsWith(`${CLEAR}`)).toBe(true);
    expect(last.endsWith("… · 1.5s")).toBe(true);
    expect(last.length - CLEAR.length).toBe(29);
    line.pause();
    expect(out.at(-1)).toBe(CLEAR);
    const paused = out.length;
    await Bun.sleep(25);
    expect(out.length).toBe(paused); // nothing drawn over a prompt
    line.resume();
    line.stop();
    expect(out.at(-1)).toBe(CLEAR);
    const stopped = out.length;
    await Bun.sleep(25);
    expect(out.length).toBe(stopped);
  });

  test("a control character in what a command printed is shown escaped, never acted on", async () => {
    const out: string[] = [];
    const line = statusLine({ write: (s) => out.push(s), columns: () => 80, delayMs: 0, everyMs: 1000 });
    line.begin("bash");
    line.detail("\x1b]0;pwned\x07done");
    await waitFor("a line drawn", () => out.length > 0);
    line.stop();
    expect(out[0]).not.toContain("\x1b]0");
    expect(out[0]).toContain("pwned");
  });

  test.each([
    ["one\ntwo\n", "two"],
    ["  \n\n", undefined],
    ["50%\r60%\r", "60%"],
  ])("the last line of %j", (text, last) => expect(lastLine(text)).toBe(last));
});

describe("a call on a terminal", () => {
  const onTerminal = async (cwd: string, call: string, term = "xterm") => {
    const log = join(cwd, "terminal.log");
    const p = Bun.spawn(["script", "-qfec", `${BIN} call ${call} --no-session > out.json`, log], {
      cwd,
      env: { PATH: "/usr/bin:/bin", HOME: cwd, TERM: term },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
    });
    await p.exited;
    return { terminal: readFileSync(log, "utf8"), stdout: readFileSync(join(cwd, "out.json"), "utf8") };
  };

  test("a slow bash call shows its last output line and the time, cleared before it ends; stdout is only the result", async () => {
    if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
    await using d = tempDir();
    const { terminal, stdout } = await onTerminal(
      d.path,
      `bash '{"command":"for i in 1 2 3 4; do echo step $i; sleep 0.3; done"}' --allow-run --approve bash`,
    );
    expect(terminal).toMatch(/⠋ bash: step \d · \d\.\ds/);
    expect(terminal).toMatch(/\r\x1b\[2K\r?\n?[^\r]*$/); // the last thing on the terminal clears the line
    expect(JSON.parse(stdout).status).toBe("success");
    expect(stdout).not.toContain("\x1b");
  }, 30_000);

  test("a call whose MCP server is slow to start says so: the server's name and program, then the wait for its answer", async () => {
    await using d = tempDir();
    const fixture = join(import.meta.dir, "..", "fixtures", "mcp", "ordinary.ts");
    await Bun.write(
      join(d.path, "toolgate.json"),
      JSON.stringify({
        mcpServers: { slow: { command: "sh", args: ["-c", `sleep 0.8; exec ${process.execPath} ${fixture}`] } },
      }),
    );
    // The first call lists the server for the catalog cache; the second starts it as the call's own work.
    const grant = `--allow-run --approve all`;
    await onTerminal(d.path, `slow__weather '{}' ${grant}`);
    const { terminal, stdout } = await onTerminal(d.path, `slow__weather '{}' ${grant}`);
    expect(terminal).toMatch(/slow__weather: starting server slow \(sh\)… · \d\.\ds/);
    expect(JSON.parse(stdout).status).toBe("success");
  }, 30_000);

  test("a fast call shows nothing; --quiet and a piped stderr show nothing either", async () => {
    await using d = tempDir();
    await Bun.write(join(d.path, "a.txt"), "x\n");
    expect(
      (await onTerminal(d.path, `file_read '{"path":"a.txt"}' --allow-read --approve file_read`)).terminal,
    ).not.toContain("\x1b[2K");
    expect(
      (await onTerminal(d.path, `bash '{"command":"sleep 0.6"}' --allow-run --approve bash --quiet`)).terminal,
    ).not.toContain("\x1b[2K");
    // A terminal that says it cannot move its cursor (TERM=dumb: an editor's shell buffer) gets no line either.
    const dumb = await onTerminal(d.path, `bash '{"command":"echo a; sleep 0.6"}' --allow-run --approve bash`, "dumb");
    expect([JSON.parse(dumb.stdout).status, dumb.terminal.includes("\x1b")]).toEqual(["success", false]);
    const piped = await run(["call", "bash", '{"command":"echo a; sleep 0.6"}', "--allow-run", "--approve", "bash"], {
      cwd: d.path,
    });
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain("\x1b");
  }, 30_000);
});
