// `bash -lc` ran with HOME unset, so bash read the passwd home's dotfiles (root's
// .profile and .bashrc printed `pyenv: command not found` into every result and added PYENV_ROOT).
// Now HOME is a fresh empty folder of the run's own in the state folder: no dotfile of the user's
// (nor one a previous command left) runs, the folder is writable while the command runs and gone
// after it. Root's own home is replaced in a private mount namespace with dotfiles that print a
// marker, so the real /root is never touched; as nobody (setpriv) and in the product sandbox too.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, runUnprivileged, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
  if (process.getuid?.() !== 0)
    throw new Error("these tests run as root (CI does): they replace root's home in a mount namespace");
});

const DOTFILES = [".profile", ".bash_profile", ".bash_login", ".bashrc"];
/** Dotfiles that would show they ran: a marker on stdout and stderr, and a variable. */
function plant(dir: string, who: string): void {
  for (const f of DOTFILES)
    writeFileSync(join(dir, f), `echo MARKER:${who}${f}; echo MARKER:${who}${f} >&2; export PLANTED=${who}\n`);
}

// What the command reports: its HOME, how full it was, whether a dotfile added its variable, a write there.
const PROBE =
  'echo "home=$HOME"; echo "entries=$(ls -A "$HOME" | wc -l)"; echo "planted=${PLANTED:-none}"; echo cached > "$HOME/cache" && echo writable; echo "echo MARKER:left" > "$HOME/.profile"';
const GRANT = ["--allow-run=bash", "--approve", "bash"];

/** dist/toolgate as root with /root replaced by a tmpfs holding marker dotfiles; HOME is `home`. */
async function callAsRoot(ws: string, home: string) {
  const script = `mount -t tmpfs tmpfs /root && for f in ${DOTFILES.join(" ")}; do printf 'echo MARKER:root$f; echo MARKER:root$f >&2; export PLANTED=root\\n' > /root/$f; done && exec "$TG" call bash "$ARGS" ${GRANT.join(" ")}`;
  const p = Bun.spawn(["unshare", "-m", "bash", "-c", script], {
    cwd: ws,
    env: { PATH: "/usr/bin:/bin", HOME: home, CI: "true", TG: BIN, ARGS: JSON.stringify({ command: PROBE }) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  return { stdout, stderr, code };
}

/** The command's report: HOME a folder of its own under the state folder, empty, writable; nothing planted ran; it is gone after. */
function checkOwnHome(ws: string, r: { code: number; stdout: string; stderr: string }, sandbox: string) {
  expect(r.stderr).toBe("");
  const out = json(r);
  expect(out).toMatchObject({ status: "success", payload: { sandbox, exitCode: 0 } });
  const lines: string[] = out.payload.stdout.tail.split("\n");
  expect(lines[0]).toMatch(new RegExp(`^home=${join(ws, ".toolgate", "home")}/\\d+-[0-9a-f]{32}$`));
  expect(lines.slice(1)).toEqual(["entries=0", "planted=none", "writable", ""]);
  expect(out.payload.stderr.tail).toBe("");
  // Emptied of what the command left there (a .profile for the next run included), kept for the next run.
  const homes = readdirSync(join(ws, ".toolgate", "home"));
  expect(homes.length).toBe(1);
  expect(readdirSync(join(ws, ".toolgate", "home", homes[0]!))).toEqual([]);
}

describe("bash -lc runs with HOME an empty folder of its own", () => {
  test.each(["off", "product"])(
    "as root, sandbox %s: neither root's nor $HOME's dotfiles run; twice, so a left .profile does not either",
    async (mode) => {
      await using dir = tempDir();
      const ws = join(dir.path, "ws");
      const home = join(dir.path, "home");
      mkdirSync(ws);
      mkdirSync(home);
      plant(home, "home");
      writeFileSync(join(ws, "toolgate.json"), JSON.stringify({ sandbox: mode }));
      for (let i = 0; i < 2; i++) checkOwnHome(ws, await callAsRoot(ws, home), mode);
    },
  );

  test.each(["off", "product"])(
    "as nobody, sandbox %s: HOME is the run's own folder, not nobody's passwd home nor $HOME",
    async (mode) => {
      await using dir = tempDir();
      chmodSync(dir.path, 0o755);
      const ws = join(dir.path, "ws");
      mkdirSync(ws);
      writeFileSync(join(ws, "toolgate.json"), JSON.stringify({ sandbox: mode }));
      // runUnprivileged sets HOME to the workspace: dotfiles there must not run either.
      plant(ws, "home");
      for (const f of [ws, ...readdirSync(ws).map((e) => join(ws, e))]) chownSync(f, 65534, 65534);
      checkOwnHome(
        ws,
        await runUnprivileged(["call", "bash", JSON.stringify({ command: PROBE }), ...GRANT], { cwd: ws }),
        mode,
      );
    },
  );
});
