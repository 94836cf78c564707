// Session benchmark (on demand, not in `bun test`), all in one run (issue 12, Speed): 100 sequential
// `toolgate call everything__echo` from a bash loop cold, with a session, and through mcporter's
// keep-alive daemon, against 100 runs of a compiled hello-world (the floor for 100 processes); then
// 100 forwarded `call file_read` against 100 cold ones, and the session's RSS with server-everything.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const bin = join(root, "dist", "toolgate");
const N = Number(process.env.BENCH_CALLS ?? 100);
const work = mkdtempSync(join(tmpdir(), "toolgate-bench-session-"));
const node = Bun.which("node") ?? "/usr/bin/node";
const everything = join(root, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const mcporter = join(root, "node_modules", "mcporter", "dist", "cli.js");
// The user's state folder (where a session's socket lives) outside the workspace, as a session requires.
const user = mkdtempSync(join(tmpdir(), "toolgate-bench-user-"));
const env = { PATH: "/usr/bin:/bin", HOME: work, XDG_STATE_HOME: join(user, "state"), CI: "true" };
const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Wall time of one bash loop running `cmd` N times (its output checked once, then discarded). */
function loop(name: string, cmd: string[], expect: string): number {
  const once = Bun.spawnSync(["bash", "-c", cmd.map(q).join(" ")], { cwd: work, env });
  const out = once.stdout.toString();
  if (!out.includes(expect)) throw new Error(`${name}: unexpected output ${out} ${once.stderr.toString()}`);
  const t0 = performance.now();
  const r = Bun.spawnSync(["bash", "-c", `for i in $(seq ${N}); do ${cmd.map(q).join(" ")} >/dev/null || exit 1; done`], { cwd: work, env });
  const ms = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${name}: the loop failed: ${r.stderr.toString()}`);
  return ms;
}

const sh = (args: string[]) => {
  const r = Bun.spawnSync(args, { cwd: work, env });
  if (r.exitCode !== 0) throw new Error(`${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
};

try {
  writeFileSync(join(work, "hello.ts"), 'process.stdout.write("hello\\n");\n');
  sh([process.execPath, "build", "--compile", "--minify", "--bytecode", "--format=esm", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", join(work, "hello.ts"), "--outfile", join(work, "hello")]);
  writeFileSync(join(work, "README.md"), "# bench\n\nsome text\n".repeat(20));
  writeFileSync(join(work, "toolgate.json"), JSON.stringify({ mcpServers: { everything: { command: node, args: [everything, "stdio"] } } }));
  mkdirSync(join(work, "config"));
  writeFileSync(join(work, "config", "mcporter.json"), JSON.stringify({ mcpServers: { everything: { command: node, args: [everything, "stdio"], lifecycle: "keep-alive" } } }));
  const echo = [bin, "call", "everything__echo", '{"message":"hi"}', "--allow-run", "--approve", "all"];
  const read = [bin, "call", "file_read", '{"path":"README.md"}', "--allow-read", "--approve", "file_read"];
  sh([bin, "tools", "--allow-run"]); // the catalog cache: every loop below starts from it
  const results: Record<string, number> = {};
  results.floor = loop("floor", [join(work, "hello")], "hello");
  results.cold_echo = loop("cold", [...echo, "--no-session"], "Echo: hi");
  results.cold_file_read = loop("cold file_read", [...read, "--no-session"], '"status":"success"');
  const mcp = [process.execPath, mcporter, "call", "everything.echo", "message=hi"];
  sh([process.execPath, mcporter, "daemon", "start"]);
  results.mcporter_daemon_echo = loop("mcporter", mcp, "Echo: hi");
  const daemonStatus = sh([process.execPath, mcporter, "daemon", "status"]);
  sh([process.execPath, mcporter, "daemon", "stop"]);
  sh([bin, "session", "start", "--idle-secs", "300"]);
  try {
    results.session_echo = loop("session", echo, "Echo: hi");
    results.session_file_read = loop("session file_read", read, '"status":"success"');
    const st = JSON.parse(sh([bin, "session", "status", "--json"]));
    const proc = readFileSync(`/proc/${st.pid}/status`, "utf8");
    const kb = (k: string) => Number(proc.match(new RegExp(`${k}:\\s+(\\d+)`))?.[1] ?? 0);
    results.session_rss_mb = Math.round(kb("VmRSS") / 102.4) / 10;
    results.session_peak_rss_mb = Math.round(kb("VmHWM") / 102.4) / 10;
    results.session_calls = st.calls;
    results.session_servers = st.servers.length;
  } finally {
    sh([bin, "session", "stop"]);
  }
  const f = (ms: number) => `${(ms / 1000).toFixed(2)} s (${(ms / N).toFixed(1)} ms/call)`;
  console.log(`${N} sequential calls from a bash loop, one run (${new Date().toISOString()}, load ${readFileSync("/proc/loadavg", "utf8").trim()})`);
  console.log(`floor: compiled hello-world           ${f(results.floor!)}`);
  console.log(`cold: toolgate call everything__echo  ${f(results.cold_echo!)}`);
  console.log(`mcporter keep-alive daemon (bun)      ${f(results.mcporter_daemon_echo!)}`);
  console.log(`session: toolgate call everything__echo ${f(results.session_echo!)}  (${(results.cold_echo! / results.session_echo!).toFixed(1)}x faster than cold, ${(results.mcporter_daemon_echo! / results.session_echo!).toFixed(1)}x than mcporter)`);
  console.log(`cold: call file_read                  ${f(results.cold_file_read!)}`);
  console.log(`session: call file_read               ${f(results.session_file_read!)}`);
  console.log(`session RSS with server-everything: ${results.session_rss_mb} MB now, ${results.session_peak_rss_mb} MB peak (toolgate's own process; ${results.session_servers} server alive, ${results.session_calls} calls served)`);
  console.log(`mcporter daemon status: ${daemonStatus.trim().split("\n").join(" | ")}`);
  console.log(JSON.stringify(results));
} finally {
  rmSync(work, { recursive: true, force: true });
  rmSync(user, { recursive: true, force: true });
}
