// The warm session's socket is no way out of the sandbox. The attacker
// is a raw session client (perl, speaking the wire by hand) run from a `product`-sandboxed `bash`
// call, as root and as nobody: it tries trust, a file write, a remembered approval, a fetch and a
// config import through the session. None may happen; the socket is not even in its view. A peer
// in another namespace is refused, argv other than call/tools is refused by the session itself,
// an "A" over the socket is not remembered, and a socket planted in the workspace is never used.
// The whole file runs in a network namespace holding only loopback (the fetch's page is there).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { inLoopbackNamespace } from "../http/netns.ts";
import { productWorkspace } from "./product-workspace.ts";
import { BIN, chownToNobody, json, type RunResult, tempDir } from "../helpers.ts";
import { waitFor } from "../support/wait.ts";
import { makeStateFolder } from "../../src/state/folder.ts";

type Role = "root" | "nobody";
const NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"];
let binDir = "";
const binOf = (role: Role) => (role === "root" ? BIN : join(binDir, "toolgate"));
const as = (role: Role, argv: string[]) => (role === "root" ? argv : [...NOBODY, ...argv]);

/** Runs dist/toolgate as `role` (nobody: a world-readable copy, through setpriv). */
async function tg(role: Role, args: string[], cwd: string, env: Record<string, string>): Promise<RunResult> {
  const proc = Bun.spawn(as(role, [binOf(role), ...args]), {
    cwd,
    env: { PATH: "/usr/bin:/bin", CI: "true", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/** Prints SEEN for a socket it finds, ANSWER for every line a session sends; answers a question with "A". */
const ATTACK_PL = `use strict; use IO::Socket::UNIX; $| = 1;
my ($reqfile, @paths) = @ARGV;
open(my $fh, '<', $reqfile) or die "requests: $!"; my @reqs = grep { /\\S/ } <$fh>; close $fh;
my %done;
for my $p (@paths) {
  next if $done{$p}++;
  print "SEEN $p\\n" if -S $p;
  for my $r (@reqs) {
    my $s = IO::Socket::UNIX->new(Peer => $p);
    if (!$s) { print "NOCONNECT $p\\n"; next; }
    print $s $r;
    eval {
      local $SIG{ALRM} = sub { die "timeout\\n" };
      alarm 30;
      while (my $line = <$s>) {
        print "ANSWER $line";
        print $s "{\\"t\\":\\"answer\\",\\"a\\":\\"A\\"}\\n" if $line =~ /"t":"q"/;
        print $s "{\\"t\\":\\"stdin\\",\\"d\\":\\"\\"}\\n" if $line =~ /"t":"i"/;
      }
      alarm 0;
    };
    close $s;
  }
}
print "DONE\\n";
`;

interface Setup extends AsyncDisposable {
  ws: string;
  home: string;
  runtime: string;
  env: Record<string, string>;
  socket: string;
  hits: () => number;
  port: number;
  requests: string;
  version: string;
  calls: () => Promise<number>;
}

/**
 * A product workspace, a home under /tmp (out of the sandbox's view) holding another client's
 * config with a canary token, a runtime folder under /srv (in its view unless toolgate hides it), a loopback page counting its requests, and a session started there as `role`.
 */
async function setup(role: Role): Promise<Setup> {
  const dir = tempDir();
  chmodSync(dir.path, 0o755);
  const ws = productWorkspace(dir.path);
  const home = join(dir.path, "home");
  mkdirSync(home);
  writeFileSync(
    join(home, "claude_desktop_config.json"),
    JSON.stringify({ mcpServers: { x: { command: "echo", env: { TOKEN: "IMPORT-CANARY" } } } }),
  );
  const runtime = mkdtempSync("/srv/toolgate-run-");
  let hits = 0;
  const page = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => (
      hits++,
      new Response("<html><body><p>FETCHED-CANARY</p></body></html>", { headers: { "content-type": "text/html" } })
    ),
  });
  if (role === "nobody") {
    chownToNobody(ws);
    chownToNobody(home);
    chownSync(runtime, 65534, 65534);
  }
  writeFileSync(join(ws, "attack.pl"), ATTACK_PL);
  const env = { HOME: home, XDG_RUNTIME_DIR: runtime };
  const started = await tg(role, ["session", "start", "--idle-secs", "300"], ws, env);
  expect({ code: started.code, stderr: started.stderr }).toEqual({
    code: 0,
    stderr: expect.stringContaining("session started"),
  });
  const status = json(await tg(role, ["session", "status", "--json"], ws, env));
  const VERSION: string = status.version;
  const url = `http://127.0.0.1:${page.port}/`;
  const request = (argv: string[], prompt = false) =>
    JSON.stringify({ t: "call", v: VERSION, argv, cwd: ws, env: {}, tty: false, prompt });
  const requests = join(ws, "requests.ndjson");
  writeFileSync(
    requests,
    `${[
      request(["trust"]),
      request([
        "call",
        "file_write",
        '{"path":"via-session.txt","content":"x"}',
        "--allow-write",
        "--approve",
        "file_write",
      ]),
      request(["call", "file_read", '{"path":"toolgate.json"}', "--allow-read"], true),
      request([
        "call",
        "web_extract",
        JSON.stringify({ url }),
        `--allow-net=127.0.0.1:${page.port}`,
        "--approve",
        "web_extract",
      ]),
      request(["config", "import", join(home, "claude_desktop_config.json"), "--config", join(ws, "imported.json")]),
    ].join("\n")}\n`,
  );
  if (role === "nobody") chownToNobody(ws);
  return {
    ws,
    home,
    runtime,
    env,
    socket: status.socket,
    hits: () => hits,
    port: page.port!,
    requests,
    version: VERSION,
    calls: async () => json(await tg(role, ["session", "status", "--json"], ws, env)).calls,
    [Symbol.asyncDispose]: async () => {
      await tg(role, ["session", "stop"], ws, env);
      page.stop(true);
      rmSync(runtime, { recursive: true, force: true });
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** Nothing the requests ask for happened on the host. */
function nothingHappened(s: Setup): void {
  const state = join(s.home, ".local", "state", "toolgate");
  expect({
    trust: existsSync(join(state, "trust")),
    approvals: existsSync(join(state, "approvals.db")),
    written: existsSync(join(s.ws, "via-session.txt")),
    imported: existsSync(join(s.ws, "imported.json")),
    fetched: s.hits(),
  }).toEqual({ trust: false, approvals: false, written: false, imported: false, fetched: 0 });
}

const answers = (out: string) =>
  out
    .split("\n")
    .filter((l) => l.startsWith("ANSWER "))
    .map((l) => JSON.parse(l.slice(7)));

inLoopbackNamespace(import.meta.path, () => {
  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
    if (process.getuid?.() !== 0)
      throw new Error("these tests run as root (CI does): they run the attacker as root and as nobody");
    binDir = mkdtempSync("/tmp/toolgate-bin-");
    chmodSync(binDir, 0o755);
    copyFileSync(BIN, join(binDir, "toolgate"));
    chmodSync(join(binDir, "toolgate"), 0o755);
  });
  afterAll(() => rmSync(binDir, { recursive: true, force: true }));

  describe.each(["root", "nobody"] as const)("as %s", (role) => {
    test("a raw session client in a product-sandboxed bash call: no socket in view, no trust, write, approval, fetch or import", async () => {
      await using s = await setup(role);
      const paths = [join(s.ws, ".toolgate", "session.sock"), s.socket];
      const command = [
        `echo "runtime=$(ls -A ${s.runtime}/toolgate 2>&1 | tr '\\n' ' ')"`,
        `perl attack.pl requests.ndjson ${paths.join(" ")} $(find ${s.runtime} ${s.home} ${s.ws} -type s 2>/dev/null)`,
      ].join("\n");
      const args = ["call", "bash", JSON.stringify({ command }), "--allow-run=bash", "--approve", "bash"];
      // Forwarded to the session (which runs the sandbox), then cold.
      for (const extra of [[], ["--no-session"]]) {
        const r = await tg(role, [...args, ...extra], s.ws, s.env);
        const out = json(r);
        expect(out).toMatchObject({ status: "success", payload: { sandbox: "product", exitCode: 0 } });
        const tail: string = out.payload.stdout.tail;
        expect(tail).toContain("DONE");
        expect(tail.split("\n").filter((l) => /^(ANSWER|SEEN) /.test(l))).toEqual([]);
        // Empty (hidden by toolgate), or not there at all (as root, a folder closed to others is masked whole).
        expect(tail).toMatch(/^runtime=(\s*|ls: cannot access .*: No such file or directory\s*)$/m);
        expect(tail).not.toContain("CANARY");
      }
      nothingHappened(s);
      expect(await s.calls()).toBe(1); // the forwarded bash call, and nothing else
      // The session's socket really is there on the host (else the test proves nothing), outside the workspace.
      expect(s.socket.startsWith(`${join(s.runtime, "toolgate", "sessions")}/`)).toBe(true);
    });

    test("a peer in another namespace that reaches the socket is refused before its request is read", async () => {
      await using s = await setup(role);
      const perl = ["perl", join(s.ws, "attack.pl"), s.requests, s.socket];
      const others =
        role === "root"
          ? [
              ["unshare", "-n"],
              ["unshare", "-U"],
            ]
          : [
              ["unshare", "-U"],
              ["unshare", "-rn"],
            ];
      for (const ns of others) {
        const p = Bun.spawnSync(as(role, [...ns, ...perl]), {
          cwd: s.ws,
          env: { PATH: "/usr/bin:/bin" },
          timeout: 60_000,
        });
        const got = answers(p.stdout.toString());
        expect({ ns, got }).toEqual({
          ns,
          got: Array.from({ length: 5 }, () => ({
            t: "c",
            why: expect.stringMatching(
              /^the session serves only processes in its own namespaces; this one is in another (net|user) namespace/,
            ),
          })),
        });
      }
      nothingHappened(s);
      expect(await s.calls()).toBe(0);
    });
  });

  test("the session itself runs only call and tools: any other argv is refused, saying so, and nothing runs", async () => {
    await using s = await setup("root");
    const request = (argv: string[]) =>
      JSON.stringify({ t: "call", v: s.version, argv, cwd: s.ws, env: {}, tty: false });
    const refused = [
      ["trust"],
      ["config", "import", join(s.home, "claude_desktop_config.json"), "--config", join(s.ws, "imported.json")],
      ["session", "stop"],
      ["log"],
      ["tasks", "list"],
      ["call", "file_read", "--help"],
      ["--version"],
    ];
    writeFileSync(s.requests, `${refused.map(request).join("\n")}\n`);
    const p = Bun.spawnSync(["perl", join(s.ws, "attack.pl"), s.requests, s.socket], {
      cwd: s.ws,
      env: { PATH: "/usr/bin:/bin" },
      timeout: 60_000,
    });
    const got = answers(p.stdout.toString());
    expect(got.filter((a) => a.t === "x")).toEqual(refused.map(() => ({ t: "x", code: 2 })));
    const said = got.filter((a) => a.t === "e").map((a) => a.d.split("\n")[0]);
    expect(said).toEqual([
      'toolgate: a session runs only call and tools, not "trust": nothing was run',
      'toolgate: a session runs only call and tools, not "config": nothing was run',
      'toolgate: a session runs only call and tools, not "session": nothing was run',
      'toolgate: a session runs only call and tools, not "log": nothing was run',
      'toolgate: a session runs only call and tools, not "tasks": nothing was run',
      "toolgate: a session runs only call and tools, not --help: nothing was run",
      "toolgate: a session runs only call and tools, not no command: nothing was run",
    ]);
    expect(got.filter((a) => a.t === "o")).toEqual([]);
    nothingHappened(s);
    // Still running: "session stop" over the socket as argv stopped nothing.
    expect((await tg("root", ["session", "status", "--json"], s.ws, s.env)).code).toBe(0);
  });

  test('"A" over the socket is no answer: yes or no for this call only, nothing remembered', async () => {
    await using s = await setup("root");
    const ask = JSON.stringify({
      t: "call",
      v: s.version,
      argv: ["call", "file_read", '{"path":"toolgate.json"}', "--allow-read"],
      cwd: s.ws,
      env: {},
      tty: false,
      prompt: true,
    });
    writeFileSync(s.requests, `${ask}\n`);
    const p = Bun.spawnSync(["perl", join(s.ws, "attack.pl"), s.requests, s.socket], {
      cwd: s.ws,
      env: { PATH: "/usr/bin:/bin" },
      timeout: 60_000,
    });
    const got = answers(p.stdout.toString());
    const q = got.find((a) => a.t === "q")?.q;
    expect(q.answers).toEqual(["y", "Y", "n", "N"]);
    expect(q.text).toContain("Approve? [y/n] (y = yes, this call; n = no) > ");
    expect(got.at(-1)).toEqual({ t: "x", code: 4 });
    // A permission asked over the socket: "A" (every read, for this call) is not taken either.
    const perm = JSON.stringify({
      t: "call",
      v: s.version,
      argv: ["call", "file_read", '{"path":"toolgate.json"}', "--approve", "file_read"],
      cwd: s.ws,
      env: {},
      tty: false,
      prompt: true,
    });
    writeFileSync(s.requests, `${perm}\n`);
    const p2 = answers(
      Bun.spawnSync(["perl", join(s.ws, "attack.pl"), s.requests, s.socket], {
        cwd: s.ws,
        env: { PATH: "/usr/bin:/bin" },
        timeout: 60_000,
      }).stdout.toString(),
    );
    const pq = p2.find((a) => a.t === "q")?.q;
    expect({
      answers: pq?.answers,
      asks: pq?.text.includes("Allow? [y/n] (y = yes, allow this call; n = no, deny) > "),
    }).toEqual({ answers: ["y", "Y", "n", "N"], asks: true });
    expect(p2.at(-1)).toEqual({ t: "x", code: 4 });
    nothingHappened(s);
    // The next call is not approved by anything remembered.
    const next = await tg("root", ["call", "file_read", '{"path":"toolgate.json"}', "--allow-read"], s.ws, s.env);
    expect({ code: next.code, error: json(next).error_code }).toEqual({ code: 4, error: "approval.required" });
  });

  test("a socket planted in the workspace (where sessions used to listen) is never talked to", async () => {
    await using dir = tempDir();
    const ws = productWorkspace(dir.path);
    const home = join(dir.path, "home");
    mkdirSync(join(ws, "sub", ".toolgate"), { recursive: true });
    makeStateFolder(join(ws, ".toolgate")); // the workspace's state folder, as toolgate made it (an unmarked one is refused)
    writeFileSync(join(ws, "sub", "a.txt"), "hello\n");
    let connections = 0;
    // Were it asked, it would say "done" at once: a call that trusted it would print nothing.
    const fake = {
      open: () => void connections++,
      data: (sock: { write(d: string): number; end(): void }) => (sock.write('{"t":"x","code":0}\n'), sock.end()),
    };
    const planted = [join(ws, ".toolgate", "session.sock"), join(ws, "sub", ".toolgate", "session.sock")].map((unix) =>
      Bun.listen({ unix, socket: fake }),
    );
    try {
      for (const cwd of [ws, join(ws, "sub")]) {
        const r = await tg(
          "root",
          ["call", "file_read", '{"path":"sub/a.txt"}', "--allow-read", "--approve", "file_read", "-v"],
          cwd,
          { HOME: home },
        );
        expect({ code: r.code, content: json(r).payload?.content }).toEqual({ code: 0, content: "1\thello" });
        expect(r.stderr).not.toContain("session");
      }
      expect(connections).toBe(0);
    } finally {
      for (const l of planted) l.stop(true);
    }
  });

  test("a socket in the sessions folder whose listener is another user is not trusted: the call runs cold and sends it nothing", async () => {
    await using s = await setup("root");
    await using other = tempDir("toolgate-other-");
    chmodSync(other.path, 0o777);
    const sock = join(other.path, "fake.sock");
    // A listener running as nobody that records whether anything reached it.
    const got = join(other.path, "got");
    const script = join(other.path, "listen.pl");
    writeFileSync(
      script,
      `use IO::Socket::UNIX; my $l = IO::Socket::UNIX->new(Local => "${sock}", Listen => 5) or die; chmod 0666, "${sock}"; open(my $r, '>', "${other.path}/ready"); close $r;
while (my $c = $l->accept) { my $n = sysread($c, my $buf, 4096); open(my $o, '>>', "${got}"); print $o "conn ", ($n // 0), "\\n"; close $o; close $c; }\n`,
    );
    chmodSync(script, 0o644);
    const listener = Bun.spawn([...NOBODY, "perl", script], { stdout: "ignore", stderr: "ignore" });
    try {
      await waitFor("the listener", () => existsSync(join(other.path, "ready")));
      // Put where this workspace's session listens, owned by this user: only its peer credentials tell.
      await tg("root", ["session", "stop"], s.ws, s.env);
      await waitFor("the session's socket to go", () => !existsSync(s.socket));
      renameSync(sock, s.socket);
      chownSync(s.socket, 0, 0);
      chmodSync(s.socket, 0o600);
      const r = await tg(
        "root",
        ["call", "file_read", '{"path":"toolgate.json"}', "--allow-read", "--approve", "file_read", "-v"],
        s.ws,
        s.env,
      );
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        "toolgate: session: the session's socket is served by uid 65534, not by this user (uid 0); running cold",
      );
      // It connected (that is how the uid is read) but sent nothing.
      await waitFor("the listener's note of the connection", () => existsSync(got));
      expect(Bun.file(got).size === 0 ? "" : await Bun.file(got).text()).toBe("conn 0\n");
    } finally {
      listener.kill("SIGKILL");
    }
  });
});
