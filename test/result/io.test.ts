// Output sinks: a cold process writes to its own stdout/stderr; inside withSinks (a session serving
// forwarded calls) each call's output, including what it writes after awaiting, reaches its sinks.
import { describe, expect, test } from "bun:test";

describe("io", () => {
  test("without sinks, output goes to the process's stdout and stderr", async () => {
    const code =
      'import { writeStdout, writeStderr } from "./src/result/io.ts"; writeStdout("out\\n"); writeStderr("err\\n");';
    const p = Bun.spawn([process.execPath, "-e", code], {
      cwd: `${import.meta.dir}/../..`,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, exit] = await Promise.all([
      new Response(p.stdout).text(),
      new Response(p.stderr).text(),
      p.exited,
    ]);
    expect({ out, err, exit }).toEqual({ out: "out\n", err: "err\n", exit: 0 });
  });

  test("after useProcessStreams, output goes through process.stdout (which serve guards) and isTerminal tells a pipe", async () => {
    const code = [
      'import { isTerminal, useProcessStreams, writeStdout } from "./src/result/io.ts";',
      "writeStdout(`direct ${isTerminal(1)}\\n`);",
      "const write = process.stdout.write.bind(process.stdout);",
      "(process.stdout as any).write = (t: string) => write(`guarded:${t}`);",
      "useProcessStreams();",
      'writeStdout("after\\n");',
    ].join("\n");
    const p = Bun.spawn([process.execPath, "-e", code], {
      cwd: `${import.meta.dir}/../..`,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, exit] = await Promise.all([new Response(p.stdout).text(), p.exited]);
    expect({ out, exit }).toEqual({ out: "direct false\nguarded:after\n", exit: 0 });
  });

  test("concurrent calls under withSinks each write only to their own sinks, also after an await", async () => {
    const { withSinks, writeStdout, writeStderr } = await import("../../src/result/io.ts");
    const seen: Record<string, string[]> = { a: [], b: [] };
    const sinks = (k: string) => ({
      out: (t: string) => void seen[k]!.push(`out:${t}`),
      err: (t: string) => void seen[k]!.push(`err:${t}`),
    });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const a = withSinks(sinks("a"), async () => {
      writeStdout("a1");
      await gate;
      writeStderr("a2");
    });
    const b = withSinks(sinks("b"), async () => {
      writeStdout("b1");
      release();
      await gate;
      writeStdout("b2");
    });
    await Promise.all([a, b]);
    expect(seen).toEqual({ a: ["out:a1", "err:a2"], b: ["out:b1", "out:b2"] });
  });
});
