// The sandbox modes: the bwrap argv, how its own failures are told apart, the boot probe, and —
// where bubblewrap works on this machine — what product and bench really isolate, through the launcher.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BASE_ENV } from "../../src/launcher/env.ts";
import {
  bwrapSandbox,
  bwrapStartFailure,
  probeSandbox,
  sandboxFor,
  sandboxProblem,
} from "../../src/launcher/sandbox.ts";
import type { Host } from "../../src/launcher/sandbox-mounts.ts";
import { facilitiesFor } from "../../src/platform/facilities.ts";
import type { LaunchSpec, Sandbox } from "../../src/launcher/types.ts";
import { tempDir } from "../helpers.ts";
import { env, launcherWith } from "./support.ts";

const launcher = launcherWith();
const probeDir = tempDir("toolgate-probe-");
afterAll(() => probeDir[Symbol.asyncDispose]());
/** Whether bubblewrap works here (installed, namespaces allowed): the isolation tests need it. */
const BWRAP =
  (await probeSandbox(bwrapSandbox({ mode: "product", workspace: probeDir.path, network: false }), probeDir.path)) ===
  null;

test("bubblewrap works on this machine (.ci/run installs it; the sandbox tests need it)", () => {
  expect(BWRAP).toBe(true);
});

describe("the bwrap argv", () => {
  const ws = "/srv/ws";
  // A host where /run, /home and /root are folders and /var/run is a link to /run.
  const dirs = new Set(["/run", "/home", "/root", ws, `${ws}/.git`]);
  const host = (over: Partial<Host> = {}): Partial<Host> => ({
    asRoot: false,
    masks: () => [],
    kind: (p) => (dirs.has(p) ? "dir" : p === "/var/run" ? "link" : null),
    realpath: (p) => p,
    makeDir: (p) => (made.push(p), true),
    removeDir: (p) => (removed.push(p), true),
    sockets: () => [],
    canSearch: () => true,
    ...over,
  });
  const made: string[] = [];
  const removed: string[] = [];
  const fixed = ["--die-with-parent", "--new-session", "--unshare-all"];
  const system = [
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--tmpfs",
    "/run",
    "--tmpfs",
    "/home",
    "--tmpfs",
    "/root",
  ];
  const mounts = [...system, "--bind", ws, ws];
  const wrap = (s: Sandbox, cwd = ws, writable?: string[]) =>
    s.wrap(["echo", "hi"], { cwd, env: {}, ...(writable ? { writable } : {}) });

  test("product without a net grant: every namespace unshared, the network too; no capability; sockets and homes hidden", () => {
    expect(wrap(bwrapSandbox({ mode: "product", workspace: ws, network: false, host: host() }))).toEqual([
      "bwrap",
      ...fixed,
      ...mounts,
      "--seccomp",
      "3",
      "--chdir",
      ws,
      "--",
      "echo",
      "hi",
    ]);
  });

  test("bench, and product for a server that declares the network, share it", () => {
    const shared = ["bwrap", ...fixed, "--share-net", ...mounts, "--seccomp", "3", "--chdir", ws, "--", "echo", "hi"];
    expect(wrap(bwrapSandbox({ mode: "product", workspace: ws, network: true, host: host() }))).toEqual(shared);
    expect(wrap(bwrapSandbox({ mode: "bench", workspace: ws, network: false, host: host() }))).toEqual(shared);
  });

  test("as root: a user namespace, and every file closed to others masked (a folder by an empty read-only tmpfs)", () => {
    const masks = () => [
      { path: "/etc/shadow", dir: false },
      { path: "/etc/ssl/private", dir: true },
      { path: `${ws}/secret`, dir: false }, // the workspace is visible by design
    ];
    const argv = wrap(
      bwrapSandbox({ mode: "product", workspace: ws, network: false, host: host({ asRoot: true, masks }) }),
    );
    expect(argv).toEqual([
      "bwrap",
      ...fixed,
      "--unshare-user",
      ...system,
      "--ro-bind",
      "/dev/null",
      "/etc/shadow",
      "--tmpfs",
      "/etc/ssl/private",
      "--remount-ro",
      "/etc/ssl/private",
      "--bind",
      ws,
      ws,
      "--seccomp",
      "3",
      "--chdir",
      ws,
      "--",
      "echo",
      "hi",
    ]);
  });

  test("as root with a workspace another user owns: the child runs as that owner (setpriv), an ordinary user needing no masks", () => {
    const masks = () => [{ path: "/etc/shadow", dir: false }];
    const h = host({ asRoot: true, masks, owner: (p) => (p === ws ? { uid: 1000, gid: 1001 } : { uid: 0, gid: 0 }) });
    expect(wrap(bwrapSandbox({ mode: "product", workspace: ws, network: false, host: h }))).toEqual([
      "setpriv",
      "--reuid=1000",
      "--regid=1001",
      "--clear-groups",
      "--",
      "bwrap",
      ...fixed,
      ...mounts,
      "--seccomp",
      "3",
      "--chdir",
      ws,
      "--",
      "echo",
      "hi",
    ]);
  });

  test("with the network shared, a resolver file under the hidden /run is bound back", () => {
    const resolv = "/run/systemd/resolve/stub-resolv.conf";
    const h = host({
      kind: (p) => (p === resolv ? "file" : dirs.has(p) ? "dir" : null),
      realpath: (p) => (p === "/etc/resolv.conf" ? resolv : p),
    });
    expect(wrap(bwrapSandbox({ mode: "bench", workspace: ws, network: false, host: h }))).toContain(resolv);
    expect(wrap(bwrapSandbox({ mode: "product", workspace: ws, network: false, host: h }))).not.toContain(resolv);
  });

  test("host sockets the child would see are covered with /dev/null, after every other mount", () => {
    const sockets = [
      "/var/lib/db/db.sock",
      "/run/docker.sock",
      `${ws}/app.sock`,
      "/srv/closed/s.sock",
      "/var/tmp/x.sock",
    ];
    const h = host({
      kind: (p) => (dirs.has(p) || p === "/var/tmp" ? "dir" : p === "/var/run" ? "link" : null),
      sockets: () => sockets,
      canSearch: (p) => !p.startsWith("/srv/closed/"),
    });
    const hidden = [...system.slice(0, -4), "--tmpfs", "/var/tmp", ...system.slice(-4)];
    expect(wrap(bwrapSandbox({ mode: "product", workspace: ws, network: false, host: h }))).toEqual([
      "bwrap",
      ...fixed,
      ...hidden,
      "--bind",
      ws,
      ws,
      // /run and /var/tmp are empty in the sandbox; a folder the child cannot search needs no mask.
      "--ro-bind",
      "/dev/null",
      "/var/lib/db/db.sock",
      "--ro-bind",
      "/dev/null",
      `${ws}/app.sock`,
      "--seccomp",
      "3",
      "--chdir",
      ws,
      "--",
      "echo",
      "hi",
    ]);
  });

  test("control paths: one that exists is bound read-only over itself, a missing one is held by a read-only placeholder", () => {
    const s = bwrapSandbox({
      mode: "product",
      workspace: ws,
      network: false,
      host: host(),
      protect: [`${ws}/.git`, `${ws}/tools`, `${ws}/conf/deep/tools`],
    });
    expect(wrap(s)).toEqual([
      "bwrap",
      ...fixed,
      ...mounts,
      "--ro-bind-try",
      `${ws}/.git`,
      `${ws}/.git`,
      "--tmpfs",
      `${ws}/tools`,
      "--remount-ro",
      `${ws}/tools`,
      // Held at the topmost missing folder: nothing is created under the workspace but that one.
      "--tmpfs",
      `${ws}/conf`,
      "--remount-ro",
      `${ws}/conf`,
      "--seccomp",
      "3",
      "--chdir",
      ws,
      "--",
      "echo",
      "hi",
    ]);
    // toolgate makes the placeholders itself, and removes them when the run is over.
    expect(made.splice(0)).toEqual([`${ws}/tools`, `${ws}/conf`]);
    s.release!();
    expect(removed.splice(0)).toEqual([`${ws}/tools`, `${ws}/conf`]);
  });

  test("a run that names its writable folders gets the workspace read-only (a gate's copy)", () => {
    const s = bwrapSandbox({
      mode: "product",
      workspace: ws,
      network: false,
      host: host(),
      readOnly: [`${ws}/.toolgate`],
      protect: [`${ws}/tools`],
    });
    const copy = `${ws}/.toolgate/worktrees/abc`;
    expect(wrap(s, `${copy}/script`, [copy])).toEqual([
      "bwrap",
      ...fixed,
      ...system,
      "--ro-bind",
      ws,
      ws,
      "--ro-bind-try",
      `${ws}/.toolgate`,
      `${ws}/.toolgate`,
      "--bind",
      copy,
      copy,
      "--seccomp",
      "3",
      "--chdir",
      `${copy}/script`,
      "--",
      "echo",
      "hi",
    ]);
  });

  test("the state folder is bound read-only again; a working folder is never bound writable for being one", () => {
    const s = bwrapSandbox({
      mode: "product",
      workspace: ws,
      network: false,
      readOnly: [`${ws}/.toolgate`],
      host: host(),
    });
    const base = ["bwrap", ...fixed, ...mounts, "--ro-bind-try", `${ws}/.toolgate`, `${ws}/.toolgate`];
    const tail = (cwd: string) => ["--seccomp", "3", "--chdir", cwd, "--", "echo", "hi"];
    expect(wrap(s, `${ws}/sub`)).toEqual([...base, ...tail(`${ws}/sub`)]);
    // In the read-only state folder, or outside the workspace where the system shows it: as it is.
    expect(wrap(s, `${ws}/.toolgate/worktrees/abc`)).toEqual([...base, ...tail(`${ws}/.toolgate/worktrees/abc`)]);
    expect(wrap(s, "/elsewhere")).toEqual([...base, ...tail("/elsewhere")]);
    // One the system view hides (a home, /tmp) is shown read-only, before the workspace's mounts.
    expect(wrap(s, "/home/u/proj")).toEqual([
      "bwrap",
      ...fixed,
      ...system,
      "--ro-bind",
      "/home/u/proj",
      "/home/u/proj",
      "--bind",
      ws,
      ws,
      "--ro-bind-try",
      `${ws}/.toolgate`,
      `${ws}/.toolgate`,
      ...tail("/home/u/proj"),
    ]);
  });

  test("a run's own HOME in the read-only state folder is bound writable", () => {
    const s = bwrapSandbox({
      mode: "product",
      workspace: ws,
      network: false,
      readOnly: [`${ws}/.toolgate`],
      host: host(),
    });
    const home = `${ws}/.toolgate/home/1-ab`;
    expect(s.wrap(["true"], { cwd: ws, env: {}, home })).toEqual([
      "bwrap",
      ...fixed,
      ...mounts,
      "--ro-bind-try",
      `${ws}/.toolgate`,
      `${ws}/.toolgate`,
      "--bind",
      home,
      home,
      "--seccomp",
      "3",
      "--chdir",
      ws,
      "--",
      "true",
    ]);
  });

  test.each([
    ["an execvp ENOENT", 1, "bwrap: execvp nope: No such file or directory\n", "ENOENT"],
    ["an execvp EACCES", 1, "bwrap: execvp ./x: Permission denied\n", "EACCES"],
    ["a namespace refusal", 1, "bwrap: Creating new namespace failed: Operation not permitted\n", "ESANDBOX"],
    ["the program's own exit 1", 1, "oops\n", null],
    ["a program that printed a bwrap-looking line among others", 1, "bwrap: x\nmore\n", null],
    ["another exit code", 2, "bwrap: execvp nope: No such file or directory\n", null],
  ] as const)("start failures: %s", (_name, code, stderr, errno) => {
    expect(bwrapStartFailure(code, stderr)).toBe(errno);
  });
});

describe("the boot's sandbox", () => {
  test("off has no wrapper and says so; product and bench name what they isolate", () => {
    const paths = { workspace: "/w", stateDir: "/w/.toolgate", scratch: "/w/.toolgate/scratch" };
    expect(sandboxFor({ mode: "off", ...paths, network: false })).toEqual({
      mode: "off",
      wrapper: undefined,
      summary: "off (the scrubbed environment only: no isolation)",
    });
    const product = sandboxFor({ mode: "product", ...paths, network: false });
    expect(product.summary).toBe(
      "product (bubblewrap: read-only system, writable workspace, private /tmp, new PID namespace, no network)",
    );
    // The probe's wrapper creates nothing (the run's wrapper makes a missing scratch folder).
    expect(product.probe?.wrap(["true"], { cwd: "/w", env: {} }).join(" ")).toContain(
      "--bind /w /w --ro-bind-try /w/.toolgate /w/.toolgate --bind-try /w/.toolgate/scratch /w/.toolgate/scratch --seccomp 3 --chdir /w -- true",
    );
    expect(
      sandboxFor({ mode: "bench", workspace: "/w", stateDir: "/s", scratch: "/s/scratch", network: false }).summary,
    ).toContain("network shared");
  });

  test("where the platform has no bubblewrap, product and bench are never a wrapper of less (the boot refuses them first)", () => {
    const paths = {
      workspace: "/w",
      stateDir: "/w/.toolgate",
      scratch: "/w/.toolgate/scratch",
      network: false,
      platform: facilitiesFor("darwin", "arm64"),
    };
    expect(() => sandboxFor({ mode: "product", ...paths })).toThrow(
      'the sandbox mode "product" needs bubblewrap, which darwin does not have',
    );
    expect(() => sandboxFor({ mode: "bench", ...paths })).toThrow("needs bubblewrap");
    expect(sandboxFor({ mode: "off", ...paths }).wrapper).toBeUndefined();
  });

  test("a missing bwrap is a reason, not a quieter run; off needs no probe", async () => {
    await using dir = tempDir();
    const missing = bwrapSandbox({
      mode: "product",
      workspace: dir.path,
      network: false,
      program: "no-such-bwrap-for-toolgate",
    });
    expect(await probeSandbox(missing, dir.path)).toBe(
      `bubblewrap (bwrap) is not installed: not found on the child's PATH (${BASE_ENV.PATH})`,
    );
    expect(
      await sandboxProblem(
        sandboxFor({ mode: "off", workspace: dir.path, stateDir: dir.path, scratch: dir.path, network: false }),
        dir.path,
      ),
    ).toBeNull();
    // The probe writes nothing: a boot that fails leaves no state behind.
    expect(existsSync(join(dir.path, "artifacts"))).toBe(false);
  });

  test("a host socket removed between the wrap and bwrap's mount: the launch wraps again once, and the run happens", async () => {
    await using dir = tempDir();
    // Stands in for bwrap: the first time, the failure bwrap gives when the socket it was to cover is gone.
    const script = join(dir.path, "fake-bwrap");
    const sock = "/var/lib/toolgate-gone.sock";
    writeFileSync(
      script,
      `#!/bin/sh\nif [ ! -e "${dir.path}/tried" ]; then : > "${dir.path}/tried"; echo "bwrap: Can't create file at ${sock}: Read-only file system" >&2; exit 1; fi\nwhile [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n`,
      { mode: 0o755 },
    );
    let listed = [sock];
    const sockets = () => {
      const now = listed;
      listed = [];
      return now;
    };
    const s = bwrapSandbox({
      mode: "product",
      workspace: dir.path,
      network: false,
      program: script,
      seccomp: false,
      host: { sockets, canSearch: () => true },
    });
    const r = await launcher.launch({
      argv: ["/bin/echo", "ran"],
      env: env(),
      cwd: dir.path,
      deadlineMs: 10_000,
      artifactsDir: join(dir.path, "a"),
      sandbox: s,
    });
    expect(r.ok ? r.value : r.refusal).toMatchObject({ ended: "exited", code: 0, stdout: { tail: "ran\n" } });
    // Any other set-up failure is reported, not retried.
    expect(s.vanished!("bwrap: Can't create file at /elsewhere.sock: Read-only file system")).toBe(false);
    expect(s.vanished!("bwrap: Creating new namespace failed: Operation not permitted")).toBe(false);
  });

  test("a wrapper that fails to set up is named with its message", async () => {
    await using dir = tempDir();
    // Stands in for bwrap refusing namespaces: one "bwrap: ..." line and exit 1.
    const script = join(dir.path, "fake-bwrap");
    writeFileSync(
      script,
      "#!/bin/sh\necho 'bwrap: Creating new namespace failed: Operation not permitted' >&2\nexit 1\n",
      { mode: 0o755 },
    );
    const broken = bwrapSandbox({ mode: "bench", workspace: dir.path, network: false, program: script });
    expect(await probeSandbox(broken, dir.path)).toBe(
      "bubblewrap could not set up the bench sandbox: bwrap: Creating new namespace failed: Operation not permitted",
    );
  });
});

describe("what the sandbox isolates (bubblewrap works here)", () => {
  // Not under /tmp or /var/tmp: the sandbox has its own (empty) ones.
  const outsideRoot = mkdtempSync("/var/lib/toolgate-outside-");
  afterAll(() => rmSync(outsideRoot, { recursive: true, force: true }));

  /** `script` for /bin/sh -c, or a whole argv. */
  async function inSandbox(
    ws: string,
    mode: "product" | "bench",
    script: string | string[],
    extra: Partial<LaunchSpec> & { network?: boolean } = {},
  ) {
    const sandbox = sandboxFor({
      mode,
      workspace: ws,
      stateDir: join(ws, ".toolgate"),
      scratch: join(ws, ".toolgate", "scratch"),
      network: extra.network ?? false,
    }).wrapper!;
    const argv = typeof script === "string" ? ["/bin/sh", "-c", script] : script;
    const r = await launcher.launch({
      argv,
      env: env({ parent: { AWS_SECRET_ACCESS_KEY: "x".repeat(20) } }),
      cwd: ws,
      deadlineMs: 10_000,
      artifactsDir: join(ws, ".toolgate", "artifacts"),
      sandbox,
      ...extra,
    });
    if (!r.ok) throw new Error(`${r.refusal.code}: ${r.refusal.message}`);
    return r.value;
  }

  test("product: the workspace is writable, nothing outside it is, and the state folder is read-only", async () => {
    await using ws = tempDir();
    mkdirSync(join(ws.path, ".toolgate"));
    const outside = join(outsideRoot, "escaped.txt");
    const v = await inSandbox(
      ws.path,
      "product",
      `echo in > inside.txt; echo out > ${outside}; echo x > .toolgate/forged; touch /usr/forged; true`,
    );
    expect(readFileSync(join(ws.path, "inside.txt"), "utf8")).toBe("in\n");
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(join(ws.path, ".toolgate", "forged"))).toBe(false);
    expect(v.stderr.tail.match(/Read-only file system/g)?.length).toBe(3);
  });

  test("product: the scratch folder inside the read-only state folder stays writable (made at the first run)", async () => {
    await using ws = tempDir();
    mkdirSync(join(ws.path, ".toolgate"));
    const v = await inSandbox(ws.path, "product", "echo note > .toolgate/scratch/n.txt && echo ok");
    expect(v.stdout.tail).toBe("ok\n");
    expect(readFileSync(join(ws.path, ".toolgate", "scratch", "n.txt"), "utf8")).toBe("note\n");
  });

  test("product: /tmp is private and the PID namespace is new", async () => {
    await using ws = tempDir();
    const hostFile = mkdtempSync("/tmp/toolgate-host-");
    try {
      const v = await inSandbox(ws.path, "product", `ls -d ${hostFile} 2>/dev/null || echo hidden; echo pid $$`);
      expect(v.stdout.tail).toBe("hidden\npid 2\n");
    } finally {
      rmSync(hostFile, { recursive: true, force: true });
    }
  });

  test("the environment inside is exactly the scrubbed one, plus the PWD bwrap always sets", async () => {
    await using ws = tempDir();
    const v = await inSandbox(ws.path, "product", ["/usr/bin/env", "-0"]);
    const vars = Object.fromEntries(
      v.stdout.tail
        .split("\0")
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
    );
    expect(vars).toEqual({ ...BASE_ENV, PWD: ws.path });
  });

  describe("the network", () => {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("pong") });
    afterAll(() => server.stop(true));
    const fetchScript = `exec 3<>/dev/tcp/127.0.0.1/${server.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;

    test.each([
      ["product without a net grant cannot reach a loopback server", "product", false, false],
      ["product for a server that declares the network can", "product", true, true],
      ["bench can", "bench", false, true],
    ] as const)("%s", async (_name, mode, network, reached) => {
      await using ws = tempDir();
      const v = await inSandbox(ws.path, mode, ["/bin/bash", "-c", fetchScript], { network });
      expect(v.stdout.tail.endsWith("pong")).toBe(reached);
      expect(v).toMatchObject({ ended: "exited", code: reached ? 0 : 1 });
    });
  });

  test("a program missing inside the sandbox is a spawn failure, not the program's exit", async () => {
    await using ws = tempDir();
    const sandbox = sandboxFor({
      mode: "product",
      workspace: ws.path,
      stateDir: join(ws.path, ".toolgate"),
      scratch: join(ws.path, ".toolgate", "scratch"),
      network: false,
    }).wrapper!;
    const r = await launcher.launch({
      argv: ["no-such-program-for-toolgate"],
      env: env(),
      cwd: ws.path,
      deadlineMs: 10_000,
      artifactsDir: join(ws.path, "a"),
      sandbox,
    });
    expect(r.ok ? null : r.refusal).toMatchObject({
      code: "launch.spawn_failed",
      details: { errno: "ENOENT", program: "no-such-program-for-toolgate" },
    });
  });
});
