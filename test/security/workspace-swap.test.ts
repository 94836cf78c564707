// The workspace swapped for a link mid-process: serve resolves the workspace's real
// path once and holds the folder by descriptor. Before, every call resolved the workspace again,
// so a workspace renamed away with a link to another folder put in its place made that folder
// the workspace: file_read returned its files (an outside secret through `--allow-read`). Now
// each file tool refuses (path.changed) and touches nothing there; the folder put back works again.
// Through dist/toolgate serve, as root and as nobody.
import { beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { BIN, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

const SECRET = "SECRET-BEYOND-THE-SWAP-5d1e";
const WHO = ["root", "nobody"] as const;

/** serve over raw newline JSON-RPC: one request at a time, each answered before the next. */
function serveAs(argv: readonly string[], cwd: string, home: string) {
  const p = Bun.spawn([...argv, "serve", "--allow-read", "--allow-write", "--approve", "all"], {
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: home, CI: "true" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = p.stdout.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  let id = 0;
  const request = async (method: string, params: object): Promise<any> => {
    const mine = ++id;
    p.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: mine, method, params })}\n`);
    p.stdin.flush();
    for (;;) {
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        const m = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (m.id === mine) return m;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`serve ended: ${await new Response(p.stderr).text()}`);
      buf += decoder.decode(value);
    }
  };
  const call = async (name: string, args: object): Promise<{ text: string; isError: boolean }> => {
    const m = await request("tools/call", { name, arguments: args });
    return { text: m.result.content[0].text as string, isError: m.result.isError === true };
  };
  return { request, call, close: async () => (p.stdin.end(), await p.exited) };
}

describe("the workspace swapped for a link while serve runs", () => {
  test.each(WHO)("as %s: every file tool refuses it and nothing beyond the link is read or written", async (who) => {
    await using dir = tempDir();
    await using bin = tempDir("toolgate-bin-");
    const ws = join(dir.path, "ws");
    const outside = join(dir.path, "outside");
    const home = join(dir.path, "home");
    for (const d of [ws, outside, home]) mkdirSync(d);
    writeFileSync(join(ws, "README.md"), "# the workspace\n");
    writeFileSync(join(outside, "README.md"), `${SECRET}\n`);
    writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
    let argv = [BIN];
    if (who === "nobody") {
      chmodSync(bin.path, 0o755);
      copyFileSync(BIN, join(bin.path, "toolgate"));
      chmodSync(join(bin.path, "toolgate"), 0o755);
      chmodSync(dir.path, 0o755);
      for (const d of [ws, outside, home]) chownSync(d, 65534, 65534);
      for (const f of ["README.md", "secret.txt"]) chownSync(join(outside, f), 65534, 65534);
      chownSync(join(ws, "README.md"), 65534, 65534);
      argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", join(bin.path, "toolgate")];
    }
    const served = serveAs(argv, ws, home);
    try {
      await served.request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "attack", version: "1" },
      });
      const before = await served.call("file_read", { path: "README.md" });
      expect(before.isError).toBe(false);
      expect(before.text).toContain("the workspace");

      // The attack: the workspace renamed away, a link to another folder in its place.
      renameSync(ws, `${ws}.moved`);
      symlinkSync(outside, ws);
      const attempts: [string, object][] = [
        ["file_read", { path: "secret.txt" }],
        ["file_read", { path: "README.md" }],
        ["file_find", { pattern: "**/*" }],
        ["file_search", { pattern: SECRET }],
        ["file_write", { path: "planted.txt", content: "planted\n" }],
        // With the digest of the file beyond the link: the edit would apply were it reached.
        [
          "file_edit",
          {
            path: "README.md",
            digest: `sha256:${createHash("sha256").update(`${SECRET}\n`).digest("hex")}`,
            old_string: SECRET,
            new_string: "edited",
          },
        ],
      ];
      for (const [tool, args] of attempts) {
        const r = await served.call(tool, args);
        expect({ tool, isError: r.isError, leaked: r.text.includes(SECRET) }).toEqual({
          tool,
          isError: true,
          leaked: false,
        });
        expect(JSON.parse(r.text).error_code).toBe("path.changed");
      }
      expect(readdirSync(outside).sort()).toEqual(["README.md", "secret.txt"]);

      // The folder put back where it was: the same folder, so calls work again.
      rmSync(ws);
      renameSync(`${ws}.moved`, ws);
      const back = await served.call("file_read", { path: "README.md" });
      expect({ isError: back.isError, workspace: back.text.includes("the workspace") }).toEqual({
        isError: false,
        workspace: true,
      });
    } finally {
      await served.close();
    }
  });
});
