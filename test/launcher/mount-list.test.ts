// The sandbox's mount list replayed as bubblewrap applies it: for every kind of run and every
// working folder one occurs in, what a command can change on the host is exactly what that run
// intends, and the control paths (.git, the config, the lock, the authored tools, the state folder)
// are never among it unless the run says so.
import { describe, expect, test } from "bun:test";
import {
  bind,
  hostWritable,
  mountArgs,
  replay,
  roBind,
  tmpfs,
  writableSet,
  type Mount,
} from "../../src/launcher/mount-list.ts";
import { sandboxFor } from "../../src/launcher/sandbox.ts";
import type { Host } from "../../src/launcher/sandbox-mounts.ts";
import type { WrapContext } from "../../src/launcher/types.ts";

describe("replay", () => {
  const list: Mount[] = [
    roBind("/"),
    tmpfs("/tmp", false),
    bind("/srv/ws"),
    roBind("/srv/ws/.git", true),
    tmpfs("/srv/ws/tools", true),
  ];

  test("the last mount that holds a path decides what the child meets there", () => {
    expect(replay(list, "/etc/passwd")).toEqual({ kind: "host", writable: false, at: "/etc/passwd" });
    expect(replay(list, "/tmp/x")).toEqual({ kind: "own", writable: true });
    expect(replay(list, "/srv/ws/a.txt")).toEqual({ kind: "host", writable: true, at: "/srv/ws/a.txt" });
    expect(replay(list, "/srv/ws/.git/config")).toEqual({ kind: "host", writable: false, at: "/srv/ws/.git/config" });
    expect(replay(list, "/srv/ws/tools/evil")).toEqual({ kind: "own", writable: false });
    // A name that only shares a prefix is not beneath the mount.
    expect(replay(list, "/srv/ws.bak/x")).toEqual({ kind: "host", writable: false, at: "/srv/ws.bak/x" });
    expect(replay([], "/x")).toEqual({ kind: "none" });
  });

  test("a later bind of a parent folder re-opens every read-only path beneath it", () => {
    const reopened = [...list, bind("/srv/ws")];
    expect(hostWritable(list, "/srv/ws/.git/config")).toBe(false);
    expect(hostWritable(reopened, "/srv/ws/.git/config")).toBe(true);
    expect(writableSet(reopened)).toEqual([{ root: "/srv/ws", except: [] }]);
  });

  test("the writable set: each writable bind no later mount covers, less what later mounts close", () => {
    expect(writableSet(list)).toEqual([{ root: "/srv/ws", except: ["/srv/ws/.git", "/srv/ws/tools"] }]);
    // A file masked with /dev/null is read-only, though /dev/null is writable on the host.
    expect(
      hostWritable([bind("/srv/ws"), { kind: "ro-bind", source: "/dev/null", target: "/srv/ws/s" }], "/srv/ws/s"),
    ).toBe(false);
  });

  test("rendered into bwrap's arguments in order", () => {
    expect(mountArgs(list)).toEqual([
      "--ro-bind",
      "/",
      "/",
      "--tmpfs",
      "/tmp",
      "--bind",
      "/srv/ws",
      "/srv/ws",
      "--ro-bind-try",
      "/srv/ws/.git",
      "/srv/ws/.git",
      "--tmpfs",
      "/srv/ws/tools",
      "--remount-ro",
      "/srv/ws/tools",
    ]);
  });
});

describe("every kind of run, replayed", () => {
  const ws = "/srv/ws";
  const state = `${ws}/.toolgate`;
  const scratch = `${state}/scratch`;
  const home = `${state}/home/1-ab`;
  const childState = `${state}/children/c1`;
  const worktree = "/srv/worktrees/c1";
  const copy = `${state}/worktrees/g1`;
  // What exists on this host: the lock and a nested config do not (yet).
  const dirs = new Set([
    "/run",
    "/home",
    "/root",
    ws,
    `${ws}/.git`,
    `${ws}/tools`,
    `${ws}/sub`,
    state,
    scratch,
    home,
    childState,
    worktree,
    copy,
    `${copy}/sub`,
  ]);
  const files = new Set([`${ws}/toolgate.json`, `${ws}/README.md`]);
  const host: Partial<Host> = {
    asRoot: false,
    masks: () => [],
    kind: (p) => (dirs.has(p) ? "dir" : files.has(p) ? "file" : p === "/var/run" ? "link" : null),
    realpath: (p) => p,
    makeDir: () => true,
    removeDir: () => true,
    sockets: () => [],
    canSearch: () => true,
  };
  const boot = (mode: "product" | "bench") =>
    sandboxFor({
      mode,
      workspace: ws,
      stateDir: state,
      scratch,
      network: false,
      host,
      protect: [`${ws}/.git`, `${ws}/toolgate.json`, `${ws}/toolgate.lock`, `${ws}/tools`],
    }).wrapper!;

  // The paths that decide what runs next, and two ordinary ones.
  const control = [
    `${ws}/.git`,
    `${ws}/.git/config`,
    `${ws}/.git/hooks/post-checkout`,
    `${ws}/toolgate.json`,
    `${ws}/toolgate.lock`,
    `${ws}/tools`,
    `${ws}/tools/evil/tool.json`,
    state,
    `${state}/journal.db`,
    `${state}/approvals.db`,
  ];
  const ordinary = [`${ws}/README.md`, `${ws}/sub/toolgate.json`];

  interface Run {
    readonly what: string;
    readonly mode: "product" | "bench";
    readonly ctx: Omit<WrapContext, "cwd" | "env">;
    /** The host folders the run may change, and nothing else. */
    readonly writes: readonly string[];
  }
  const runs: Run[] = [
    { what: "product: bash", mode: "product", ctx: { home }, writes: [ws, scratch, home] },
    { what: "bench: bash", mode: "bench", ctx: { home }, writes: [ws, scratch, home] },
    { what: "product: an authored tool or an MCP server", mode: "product", ctx: {}, writes: [ws, scratch] },
    { what: "a scout child", mode: "product", ctx: { writable: [childState] }, writes: [childState] },
    {
      what: "a write child",
      mode: "product",
      ctx: { writable: [childState, worktree] },
      writes: [childState, worktree],
    },
    { what: "a gate's copy", mode: "product", ctx: { writable: [copy] }, writes: [copy] },
  ];
  const cwds = [ws, `${ws}/sub`, worktree, childState, `${copy}/sub`, "/tmp/elsewhere", "/home/u/proj"];

  describe.each(runs)("$what", (r) => {
    test.each(cwds)("working in %s: the writable set is exactly the intended one", (cwd) => {
      const mounts = boot(r.mode).plan!({ cwd, env: {}, ...r.ctx });
      expect(
        writableSet(mounts)
          .map((w) => w.root)
          .sort(),
      ).toEqual([...r.writes].sort());
      for (const p of control) expect([p, hostWritable(mounts, p)]).toEqual([p, false]);
      // Ordinary files of the checkout: writable where the whole workspace is (a nested config
      // there is written, and refused by discovery instead), never for a run with its own folders.
      const open = r.writes.includes(ws);
      for (const p of ordinary) expect([p, hostWritable(mounts, p)]).toEqual([p, open]);
      // The working folder is there to go to, whatever the view would otherwise hide.
      expect(replay(mounts, cwd).kind).toBe("host");
    });
  });
});
