// The user's own toolgate folders (records, tokens, a session's socket) are hidden from the
// sandbox wherever it would see them: the bwrap argv, for each place such a folder can be.
import { describe, expect, test } from "bun:test";
import { bwrapSandbox } from "../../src/launcher/sandbox.ts";
import { hiddenFolders, systemMounts, type Host } from "../../src/launcher/sandbox-mounts.ts";
import { userFolders } from "../../src/trust/paths.ts";

const ws = "/srv/ws";
const dirs = new Set([
  "/run",
  "/var/tmp",
  "/home",
  "/root",
  ws,
  "/var/tmp/x/toolgate",
  "/opt/u/toolgate",
  `${ws}/.local/state/toolgate`,
  "/home/u/.local/state/toolgate",
  "/tmp/s/toolgate",
  "/run/user/0/toolgate",
]);
const host: Host = {
  asRoot: false,
  masks: () => [],
  kind: (p) => (dirs.has(p) ? "dir" : null),
  realpath: (p) => p,
  owner: () => ({ uid: 1000, gid: 1000 }),
  makeDir: () => true,
  removeDir: () => true,
  sockets: () => [],
  canSearch: () => true,
};
const system = systemMounts({ workspace: ws, shareNet: false, host });
const hidden = (folders: string[], cwd = ws) => hiddenFolders(folders, { workspace: ws, cwd, host, system });

describe("the user's toolgate folders in the sandbox", () => {
  test("hidden where the sandbox would see them: in the workspace ($HOME as workspace), or outside the folders it hides whole", () => {
    expect(hidden(["/opt/u/toolgate", `${ws}/.local/state/toolgate`])).toEqual([
      "/opt/u/toolgate",
      `${ws}/.local/state/toolgate`,
    ]);
  });

  test("left alone where they are gone already (/tmp, /run, /var/tmp, a home folder), missing, or holding the workspace", () => {
    expect(
      hidden([
        "/home/u/.local/state/toolgate",
        "/tmp/s/toolgate",
        "/var/tmp/x/toolgate",
        "/run/user/0/toolgate",
        "/var/tmp/missing",
        "/srv",
        "/",
      ]),
    ).toEqual([]);
    // A working folder inside one is left too (hiding it would hide where the command runs).
    expect(hidden(["/opt/u/toolgate"], "/opt/u/toolgate/x")).toEqual([]);
    // One the child cannot reach (root running it as another checkout's owner): bwrap could not mount there.
    const blind = { ...host, canSearch: () => false };
    expect(hiddenFolders(["/opt/u/toolgate"], { workspace: ws, cwd: ws, host: blind, system })).toEqual([]);
    // As root, one in a folder closed to others is masked whole already (no mount point inside it).
    const masks = () => [{ path: "/opt/u", dir: true }];
    const root = { ...host, asRoot: true, masks, owner: () => ({ uid: 0, gid: 0 }) };
    expect(
      hiddenFolders(["/opt/u/toolgate"], {
        workspace: ws,
        cwd: ws,
        host: root,
        system: systemMounts({ workspace: ws, shareNet: false, host: root }),
      }),
    ).toEqual([]);
  });

  test("from the environment: $XDG_RUNTIME_DIR/toolgate and the user state folder, each an empty read-only tmpfs after the workspace's binds", () => {
    const env = { HOME: ws, XDG_RUNTIME_DIR: "/opt/u" };
    expect(userFolders(env)).toEqual([`${ws}/.local/state/toolgate`, "/opt/u/toolgate"]);
    const argv = bwrapSandbox({
      mode: "product",
      workspace: ws,
      network: false,
      host,
      hide: userFolders(env),
      seccomp: false,
    }).wrap(["true"], { cwd: ws, env: {} });
    const tail = argv.slice(argv.indexOf("--bind"));
    expect(tail).toEqual([
      "--bind",
      ws,
      ws,
      "--tmpfs",
      `${ws}/.local/state/toolgate`,
      "--remount-ro",
      `${ws}/.local/state/toolgate`,
      "--tmpfs",
      "/opt/u/toolgate",
      "--remount-ro",
      "/opt/u/toolgate",
      "--chdir",
      ws,
      "--",
      "true",
    ]);
  });
});
