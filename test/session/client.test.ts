import { describe, expect, test } from "bun:test";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findSocket } from "../../src/session/client.ts";
import { tempDir } from "../helpers.ts";

describe("session client", () => {
  test("finds the socket from --workspace or the current folder upwards (never from a named config's folder), and only a socket", async () => {
    await using dir = tempDir();
    const ws = join(dir.path, "ws");
    mkdirSync(join(ws, ".toolgate"), { recursive: true });
    mkdirSync(join(ws, "sub", "deeper"), { recursive: true });
    const sock = join(ws, ".toolgate", "session.sock");
    expect(findSocket([], join(ws, "sub"))).toBeNull();
    writeFileSync(sock, "a file, not a socket");
    expect(findSocket([], ws)).toBeNull();
    const server = Bun.listen({ unix: join(dir.path, "s.sock"), socket: { data: () => undefined } });
    try {
      // A real socket where the session puts it.
      const real = join(dir.path, "s.sock");
      expect(findSocket(["--workspace", dir.path], "/")).toBeNull();
      renameSync(real, sock);
      expect(findSocket([], join(ws, "sub", "deeper"))).toBe(sock);
      expect(findSocket(["--workspace=sub"], ws)).toBe(sock);
      // --config chooses a config, never the workspace: the session is looked for where toolgate runs.
      expect(findSocket(["--config", join(ws, "toolgate.json")], "/")).toBeNull();
      expect(findSocket(["--config", "/elsewhere/toolgate.json"], join(ws, "sub"))).toBe(sock);
      expect(findSocket([], dir.path)).toBeNull();
    } finally {
      server.stop(true);
    }
  });
});
