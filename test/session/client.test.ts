import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findSocket } from "../../src/session/client.ts";
import { sessionsFolder, socketFor } from "../../src/session/where.ts";
import { tempDir } from "../helpers.ts";

describe("session client", () => {
  test("looks only in the user's sessions folder: the socket of --workspace or the current folder (never a named config's folder), or a folder above", async () => {
    await using dir = tempDir();
    const ws = join(dir.path, "ws");
    mkdirSync(join(ws, "sub", "deeper"), { recursive: true });
    const env = { XDG_RUNTIME_DIR: join(dir.path, "run") };
    const folder = sessionsFolder(env)!;
    expect(folder).toBe(join(dir.path, "run", "toolgate", "sessions"));
    expect(sessionsFolder({ HOME: "/home/u" })).toBe("/home/u/.local/state/toolgate/sessions");
    expect(sessionsFolder({ HOME: "/home/u", XDG_STATE_HOME: "/s" })).toBe("/s/toolgate/sessions");
    expect(sessionsFolder({ HOME: "relative" })).toBeNull();
    // No folder yet: nothing to find.
    expect(findSocket([], ws, env)).toBeNull();
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const sock = socketFor(folder, ws);
    writeFileSync(sock, "a file, not a socket");
    expect(findSocket([], ws, env)).toBeNull();
    // A socket where an old session listened, in the workspace: never looked at.
    mkdirSync(join(ws, ".toolgate"));
    const server = Bun.listen({ unix: join(ws, ".toolgate", "session.sock"), socket: { data: () => undefined } });
    try {
      expect(findSocket([], ws, env)).toBeNull();
      renameSync(join(ws, ".toolgate", "session.sock"), sock);
      expect(findSocket([], ws, env)).toBe(sock);
      expect(findSocket([], join(ws, "sub", "deeper"), env)).toBe(sock);
      expect(findSocket(["--workspace=sub"], ws, env)).toBe(sock);
      // --config chooses a config, never the workspace: the session is looked for where toolgate runs.
      expect(findSocket(["--config", join(ws, "toolgate.json")], "/", env)).toBeNull();
      expect(findSocket(["--config", "/elsewhere/toolgate.json"], join(ws, "sub"), env)).toBe(sock);
      expect(findSocket([], dir.path, env)).toBeNull();
      // Through a link to the workspace: the same real path, the same socket.
      symlinkSync(ws, join(dir.path, "link"));
      expect(findSocket([], join(dir.path, "link", "sub"), env)).toBe(sock);
      // A folder others may enter, or a link in its place, is not trusted with sessions.
      chmodSync(folder, 0o755);
      expect(findSocket([], ws, env)).toBeNull();
      chmodSync(folder, 0o700);
      renameSync(folder, join(dir.path, "elsewhere"));
      symlinkSync(join(dir.path, "elsewhere"), folder);
      expect(findSocket([], ws, env)).toBeNull();
      rmSync(folder);
      renameSync(join(dir.path, "elsewhere"), folder);
      expect(findSocket([], ws, env)).toBe(sock);
      // The toolgate folder above it must not be writable by others either.
      chmodSync(join(dir.path, "run", "toolgate"), 0o777);
      expect(findSocket([], ws, env)).toBeNull();
    } finally {
      server.stop(true);
    }
  });
});
