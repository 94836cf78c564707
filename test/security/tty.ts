// Runs dist/toolgate on a real pseudo-terminal (util-linux `script`), answers fed to its input.
import { BIN } from "../helpers.ts";

export async function onTty(cwd: string, args: readonly string[], answers: string, env: Record<string, string> = {}) {
  const cmd = [BIN, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  const proc = Bun.spawn(["script", "-qec", cmd, "/dev/null"], {
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: cwd, TERM: "dumb", ...env },
    stdin: new Blob([answers]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { out: out.replaceAll("\r", ""), code };
}
