// A net grant is for toolgate's own requests, never the product sandbox's
// network; host Unix sockets are out of reach wherever they lie. The attacker is a sandboxed
// `bash` call through dist/toolgate given `--allow-net` (bare, and one exact host:port): it must
// reach neither a loopback HTTP server, nor a pathname socket in /var/tmp or /var/lib, nor an
// abstract socket. Run inside a network namespace holding only loopback, as root and as nobody.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { inLoopbackNamespace } from "../http/netns.ts";
import { productWorkspace } from "./product-workspace.ts";
import { BIN, json, run, runUnprivileged, chownToNobody, tempDir, type RunResult } from "../helpers.ts";

const tag = `toolgate-net-${process.pid}`;
const PLACES = { vartmp: `/var/tmp/${tag}`, varlib: `/var/lib/${tag}` } as const;
const ABSTRACT = `${tag}-abstract`;

/** One perl line that prints ESCAPE:<name> only when connect(2) to the socket worked. */
const connect = (name: string, peer: string) =>
  `perl -MIO::Socket::UNIX -e '$s = IO::Socket::UNIX->new(Peer => "${peer}") and print "ESCAPE:${name}\\n"' 2>/dev/null`;

function attack(port: number): string {
  return [
    `(exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && grep -q pong <&3 && echo ESCAPE:http) 2>/dev/null`,
    ...Object.entries(PLACES).map(([name, dir]) => connect(name, `${dir}/host.sock`)),
    connect("abstract", `\\0${ABSTRACT}`),
    "echo ran",
  ].join("\n");
}

const WHO = ["root", "nobody"] as const;

inLoopbackNamespace(import.meta.path, () => {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("pong") });
  const listeners: { stop(force?: boolean): void }[] = [];

  beforeAll(() => {
    if (!existsSync(BIN))
      throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
    for (const dir of Object.values(PLACES)) {
      mkdirSync(dir, { recursive: true, mode: 0o755 });
      chmodSync(dir, 0o755);
      listeners.push(Bun.listen({ unix: join(dir, "host.sock"), socket: { data() {} } }));
      chmodSync(join(dir, "host.sock"), 0o777);
    }
    listeners.push(Bun.listen({ unix: `\0${ABSTRACT}`, socket: { data() {} } }));
  });

  afterAll(() => {
    server.stop(true);
    for (const l of listeners) l.stop(true);
    for (const dir of Object.values(PLACES)) rmSync(dir, { recursive: true, force: true });
  });

  /** The attack outside any sandbox, as `who`: every way in works (else the test proves nothing). */
  async function onHost(who: (typeof WHO)[number]): Promise<string> {
    const drop = who === "root" ? [] : ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
    // Not spawnSync: the loopback server answers from this process's event loop.
    const p = Bun.spawn([...drop, "/bin/bash", "-c", attack(server.port!)], { cwd: "/", stdout: "pipe" });
    return await new Response(p.stdout).text();
  }

  async function call(who: (typeof WHO)[number], path: string, net: string): Promise<RunResult> {
    const args = [
      "call",
      "bash",
      JSON.stringify({ command: attack(server.port!) }),
      "--allow-run=bash",
      "--approve",
      "bash",
      net,
    ];
    if (who === "root") return run(args, { cwd: productWorkspace(path), env: { HOME: path } });
    chmodSync(path, 0o755);
    const ws = productWorkspace(path);
    chownToNobody(ws);
    return runUnprivileged(args, { cwd: ws });
  }

  describe("a net grant does not open the product sandbox", () => {
    test.each(WHO)(
      "as %s: the loopback server, /var/tmp and /var/lib sockets and the abstract socket are reachable on the host",
      async (who) => {
        expect((await onHost(who)).split("\n").filter(Boolean)).toEqual([
          "ESCAPE:http",
          "ESCAPE:vartmp",
          "ESCAPE:varlib",
          "ESCAPE:abstract",
          "ran",
        ]);
      },
    );

    for (const who of WHO) {
      test.each(["--allow-net", "--allow-net=127.0.0.1:PORT"])(
        `as ${who}, with %s: none of them is reachable from a sandboxed bash`,
        async (flag) => {
          await using dir = tempDir();
          const r = await call(who, dir.path, flag.replace("PORT", String(server.port!)));
          const out = json(r);
          expect(out).toMatchObject({ status: "success", payload: { sandbox: "product", exitCode: 0 } });
          expect(out.payload.stdout.tail).toBe("ran\n");
        },
      );
    }
  });
});
