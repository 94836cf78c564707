// `toolgate log --html FILE` through dist/toolgate: one self-contained page of the journal (no
// outside asset, a policy that forbids any), loaded in headless Chromium (Debian's package): it
// renders every row with its outcome, denials marked, and nothing a row holds becomes markup or
// script (an argument preview holding `</script><img onerror>`); the console stays clean.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, run, tempDir } from "../helpers.ts";

const CHROMIUM = "/usr/bin/chromium";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
  if (!existsSync(CHROMIUM)) throw new Error("chromium is missing: npm test installs it (apt-get install -y chromium)");
});

async function headless(args: string[], profile: string) {
  const p = Bun.spawn(
    [
      CHROMIUM,
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--disable-sync",
      `--user-data-dir=${profile}`,
      "--enable-logging=stderr",
      "--v=0",
      ...args,
    ],
    { stdout: "pipe", stderr: "pipe", stdin: "ignore" },
  );
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err };
}

describe("log --html", () => {
  test("a page of the journal that loads on its own: every row, its outcome, nothing of a row read as markup", async () => {
    await using d = tempDir();
    writeFileSync(join(d.path, "a.txt"), "hi\n");
    const env = { CI: "true" };
    await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"], {
      cwd: d.path,
      env,
    });
    await run(["call", "file_read", '{"path":"a.txt"}', "--approve", "file_read"], { cwd: d.path, env });
    await run(["call", "plan", JSON.stringify({ op: "</script><img src=x onerror=alert(1)>" })], { cwd: d.path, env });
    const r = await run(["log", "--html", "run.html"], { cwd: d.path, env });
    expect([r.code, r.stdout.trim()]).toEqual([0, `wrote ${join(d.path, "run.html")} (3 calls)`]);
    const page = readFileSync(join(d.path, "run.html"), "utf8");
    expect(page).toContain("default-src 'none'");
    expect(page).not.toMatch(/\b(src|href)=["']?https?:/);
    expect(page).not.toContain("<img");
    const { out, err } = await headless(["--dump-dom", `file://${join(d.path, "run.html")}`], join(d.path, "profile"));
    const rows = [...out.matchAll(/<tr class="([a-z]+)" data-id="\d+">/g)].map((m) => m[1]);
    expect(rows).toEqual(["success", "denied", "failed"]);
    expect(out).toContain("3 of 3 calls");
    expect(out).not.toContain("<img");
    expect(out).toContain("onerror=alert(1)&gt;");
    // Chromium logs a page's console messages and errors as CONSOLE lines: none.
    expect(err.split("\n").filter((l) => /CONSOLE|Uncaught|Refused to/.test(l))).toEqual([]);
  }, 60_000);

  test("a file that cannot be written is a usage error, and nothing is left behind", async () => {
    await using d = tempDir();
    const r = await run(["log", "--html", join(d.path, "missing", "run.html")], { cwd: d.path, env: { CI: "true" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("cannot be written (ENOENT)");
  });
});
