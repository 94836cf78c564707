// The product sandbox holds when toolgate runs as root (and as nobody): the
// attacker is a sandboxed `bash` call through dist/toolgate. No capability, no remount, no
// unmounting a protected bind, no write to .git, the config, the lock, the state folder or a
// not-yet-existing tools/ folder, no /etc/shadow, no host socket under /run, no home folder.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { productWorkspace } from "./product-workspace.ts";
import { BIN, chownToNobody, json, run, runUnprivileged, tempDir } from "../helpers.ts";
import { waitFor } from "../support/wait.ts";

const asRoot = process.getuid?.() === 0;
const tag = `toolgate-sec-${process.pid}`;
// A host listener under /run and a home folder with a secret: both must be invisible inside.
const socketDir = `/run/${tag}`;
const socketPath = join(socketDir, "host.sock");
const homeDir = `/home/${tag}`;
let listener: ReturnType<typeof Bun.listen> | undefined;
// An abstract Unix socket has no path to hide: only the network namespace keeps it out of reach.
const abstractName = `\0${tag}-abstract`;
let abstractListener: ReturnType<typeof Bun.listen> | undefined;
/** Connects to the abstract socket with this test's own bun (not under /root or /home, so visible inside). */
const CONNECT_ABSTRACT = `${process.execPath} -e 'Bun.connect({ unix: "\\0${tag}-abstract", socket: { open() { console.log("ESCAPE:abstract"); process.exit(0); }, data() {} } }).catch(() => process.exit(0))'`;

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
  if (!asRoot) throw new Error("these tests run as root (CI does): they prove what root's sandbox hides");
  mkdirSync(socketDir, { recursive: true, mode: 0o755 });
  listener = Bun.listen({ unix: socketPath, socket: { data() {} } });
  chmodSync(socketPath, 0o777);
  abstractListener = Bun.listen({ unix: abstractName, socket: { data() {} } });
  mkdirSync(homeDir, { recursive: true, mode: 0o755 });
  writeFileSync(join(homeDir, "secret.txt"), "home secret\n", { mode: 0o644 });
});

afterAll(() => {
  listener?.stop(true);
  abstractListener?.stop(true);
  rmSync(socketDir, { recursive: true, force: true });
  rmSync(homeDir, { recursive: true, force: true });
});

/** Each line prints a marker only when the attack worked (or, for listings, what it saw). */
const ATTACK = [
  "grep '^CapEff' /proc/self/status",
  "mount -o remount,rw / 2>/dev/null && echo ESCAPE:remount",
  "umount .git 2>/dev/null && echo ESCAPE:umount-git",
  "umount .toolgate 2>/dev/null && echo ESCAPE:umount-state",
  "echo '[core]' >> .git/config 2>/dev/null && echo ESCAPE:git-config",
  "echo '{}' > toolgate.json 2>/dev/null && echo ESCAPE:config",
  "echo planted > .toolgate/planted 2>/dev/null && echo ESCAPE:state",
  `mkdir -p tools/x 2>/dev/null && echo '{"command":["true"]}' > tools/x/tool.json 2>/dev/null && echo ESCAPE:tools`,
  "echo '{}' > toolgate.lock 2>/dev/null && echo ESCAPE:lock",
  "cat /etc/shadow 2>/dev/null | grep -q '^root:' && echo ESCAPE:shadow",
  `test -e ${socketPath} && echo ESCAPE:socket`,
  CONNECT_ABSTRACT,
  "echo home=$(ls -A /home | tr '\\n' ' ')",
  "echo root=$(ls -A /root 2>/dev/null | tr '\\n' ' ')",
  "echo ran",
].join("\n");

/** The whole tree owned by nobody (65534). */
const ARGS = ["call", "bash", JSON.stringify({ command: ATTACK }), "--allow-run=bash", "--approve", "bash"];

function checkHeld(ws: string, r: { code: number; stdout: string; stderr: string }, gitConfig: string) {
  expect(r.stderr).toBe("");
  const out = json(r);
  expect(out).toMatchObject({ status: "success", payload: { sandbox: "product", exitCode: 0 } });
  const tail: string = out.payload.stdout.tail;
  expect(tail).toContain("ran");
  expect(tail).toMatch(/^CapEff:\s+0000000000000000$/m);
  expect(tail.split("\n").filter((l) => l.startsWith("ESCAPE:"))).toEqual([]);
  expect(tail).toMatch(/^home=\s*$/m);
  expect(tail).toMatch(/^root=\s*$/m);
  // And on the host: nothing changed, nothing planted, no placeholder left behind.
  expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(gitConfig);
  expect(readFileSync(join(ws, "toolgate.json"), "utf8")).toBe('{"sandbox":"product"}\n');
  expect(existsSync(join(ws, ".toolgate", "planted"))).toBe(false);
  expect(readdirSync(ws).sort()).toEqual([".git", ".toolgate", "toolgate.json"]);
}

describe("the product sandbox against a hostile bash call", () => {
  test("as root: no capability, no remount, protected binds stay, control files and secrets out of reach", async () => {
    await using dir = tempDir();
    const ws = productWorkspace(dir.path);
    const gitConfig = readFileSync(join(ws, ".git", "config"), "utf8");
    // The host really has what must be hidden (else the test proves nothing).
    expect(readdirSync("/home")).toContain(tag);
    expect(readFileSync("/etc/shadow", "utf8")).toMatch(/^root:/m);
    expect(Bun.spawnSync(["/bin/bash", "-c", CONNECT_ABSTRACT]).stdout.toString()).toBe("ESCAPE:abstract\n");
    const r = await run(ARGS, { cwd: ws, env: { HOME: dir.path } });
    checkHeld(ws, r, gitConfig);
  });

  test("a workspace under /home stays visible and writable; the rest of /home is not there", async () => {
    const home = `/home/${tag}-ws`;
    mkdirSync(home, { recursive: true, mode: 0o755 });
    try {
      const ws = productWorkspace(home);
      const command = `echo made > made.txt && cat made.txt; echo home=$(ls -A /home | tr '\\n' ' '); ls /home/${tag} 2>&1 | head -1`;
      const r = await run(["call", "bash", JSON.stringify({ command }), "--allow-run=bash", "--approve", "bash"], {
        cwd: ws,
        env: { HOME: ws },
      });
      const tail: string = json(r).payload.stdout.tail;
      expect(tail.split("\n").slice(0, 2)).toEqual(["made", `home=${tag}-ws`]);
      expect(tail).not.toContain("secret.txt");
      expect(readFileSync(join(ws, "made.txt"), "utf8")).toBe("made\n");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("as root over a workspace another user owns: the command runs as that owner, writes it, and the attacks still fail", async () => {
    await using dir = tempDir();
    chmodSync(dir.path, 0o755);
    const ws = productWorkspace(dir.path);
    chownToNobody(ws);
    const gitConfig = readFileSync(join(ws, ".git", "config"), "utf8");
    const command = `echo made > made.txt && echo wrote; id -u\n${ATTACK}`;
    const r = await run(["call", "bash", JSON.stringify({ command }), "--allow-run=bash", "--approve", "bash"], {
      cwd: ws,
      env: { HOME: dir.path },
    });
    const tail: string = json(r).payload.stdout.tail;
    expect(tail.split("\n").slice(0, 2)).toEqual(["wrote", "65534"]);
    expect(readFileSync(join(ws, "made.txt"), "utf8")).toBe("made\n");
    rmSync(join(ws, "made.txt"));
    checkHeld(ws, r, gitConfig);
  });

  test("as nobody (setpriv): the same attacks fail", async () => {
    await using dir = tempDir();
    chmodSync(dir.path, 0o755);
    const ws = productWorkspace(dir.path);
    chownToNobody(ws);
    const gitConfig = readFileSync(join(ws, ".git", "config"), "utf8");
    const r = await runUnprivileged(ARGS, { cwd: ws });
    checkHeld(ws, r, gitConfig);
  });
});

test("while a sandboxed command runs, its placeholders do not break a concurrent call in the same workspace", async () => {
  await using dir = tempDir();
  const ws = productWorkspace(dir.path);
  writeFileSync(join(ws, "a.txt"), "a\n");
  const marker = join(ws, "started");
  // The sandboxed command holds the placeholders (no lock, no tools/ yet) until it is told to stop.
  const command = "touch started; for i in $(seq 1000); do [ -e stop ] && break; sleep 0.01; done";
  const long = run(["call", "bash", JSON.stringify({ command }), "--allow-run=bash", "--approve", "bash"], {
    cwd: ws,
    env: { HOME: dir.path },
  });
  await waitFor("the sandboxed command to start", () => existsSync(marker));
  expect(existsSync(join(ws, "toolgate.lock"))).toBe(true); // the placeholder, on the host
  const r = await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"], {
    cwd: ws,
    env: { HOME: dir.path },
  });
  writeFileSync(join(ws, "stop"), "");
  expect([r.code, r.stderr]).toEqual([0, ""]);
  expect(json(r).payload.content).toBe("1\ta");
  expect(json(await long)).toMatchObject({ status: "success" });
  expect(existsSync(join(ws, "toolgate.lock"))).toBe(false);
});
