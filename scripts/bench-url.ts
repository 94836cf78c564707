// URL policy benchmark (on demand, not in `bun test`).
// Part 1: the policy's check of 10,000 URLs in one process, names pinned (no DNS, no network):
//   parse + scheme/userinfo/host rules + the pin's answers judged; median µs per URL (target < 20).
// Part 2: web_extract of a 1 MB HTML page from a loopback server through dist/toolgate, against
//   `curl -s` of the same page to /dev/null, and toolgate's cold start (`call plan`), medians; the
//   target is web_extract within 1.5x of (curl + cold start). Run as root it re-runs itself in a
//   network namespace holding only loopback, so nothing can leave the machine.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { checkUrl, judgeAnswers, type Reach } from "../src/http/policy.ts";

const root = join(import.meta.dir, "..");
if (!Object.keys(networkInterfaces()).every((n) => n === "lo") && process.getuid?.() === 0) {
  const r = Bun.spawnSync(
    ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$1"', process.execPath, import.meta.path],
    { stdout: "inherit", stderr: "inherit" },
  );
  process.exit(r.exitCode ?? 1);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// Part 1
const pins = new Map<string, string[]>();
const urls: string[] = [];
const shapes = [
  (i: number) => `https://site${i}.example/path/${i}?q=${i}#f`,
  (i: number) => `http://api${i}.test:8080/v1/items/${i}`,
  (i: number) => `http://${(i % 200) + 20}.${i % 250}.${(i * 7) % 250}.${(i * 13) % 250}/x`,
  (i: number) => `http://0x7f.${i % 250}/`,
  (i: number) => `http://[2606:4700::${(i % 65535).toString(16)}]/`,
  (i: number) => `http://user:pw@host${i}.test/`,
  (i: number) => `ftp://host${i}.test/`,
  (i: number) => `http://[::ffff:10.0.${i % 250}.1]/`,
  (i: number) => `https://xn--nxasmq6b${i}.com/`,
  (i: number) => `http://${2130706433 + (i % 1000)}/`,
];
for (let i = 0; i < 10_000; i++) {
  const u = shapes[i % shapes.length]!(i);
  urls.push(u);
}
for (const u of urls) {
  try {
    const p = new URL(u);
    const port = p.port || (p.protocol === "https:" ? "443" : "80");
    pins.set(`${p.hostname}:${port}`, [`93.184.${(urls.length + p.hostname.length) % 250}.34`]);
  } catch {}
}
const reach: Reach = { exact: new Set(), pinned: new Set(pins.keys()) };
const check = (u: string) => {
  const c = checkUrl(u, reach);
  if (!c.ok || c.value.literal !== null) return c.ok;
  return judgeAnswers(c.value.host, c.value.port, pins.get(`${c.value.host}:${c.value.port}`) ?? [], reach, true).ok;
};
for (const u of urls.slice(0, 2000)) check(u); // warm the JIT
const per: number[] = [];
let allowed = 0;
const t0 = performance.now();
for (const u of urls) {
  const s = performance.now();
  if (check(u)) allowed++;
  per.push((performance.now() - s) * 1000);
}
const total = performance.now() - t0;
console.log(
  `URL policy: 10,000 URLs (${allowed} allowed), median ${median(per).toFixed(2)} µs per URL, p99 ${[...per].sort((a, b) => a - b)[9899]!.toFixed(2)} µs, total ${total.toFixed(1)} ms`,
);

// Part 2
const bin = join(root, "dist", "toolgate");
const runs = Number(process.env.BENCH_RUNS ?? 15);
const fixture = readFileSync(join(root, "test", "fixtures", "web", "idle-python-docs.html"), "utf8");
const body = fixture
  .replace(
    "</body>",
    `${fixture.slice(fixture.indexOf("<body"), fixture.indexOf("</body>")).repeat(Math.ceil((1 << 20) / fixture.length))}</body>`,
  )
  .slice(0, 1 << 20);
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () => new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } }),
});
const work = mkdtempSync(join(tmpdir(), "toolgate-bench-url-"));
const env = { PATH: "/usr/bin:/bin", HOME: work, XDG_STATE_HOME: join(work, "state"), CI: "true" };
const timed = async (cmd: string[]) => {
  const s = performance.now();
  const p = Bun.spawn(cmd, { cwd: work, env, stdout: "ignore", stderr: "ignore" });
  const code = await p.exited;
  if (code !== 0) throw new Error(`${cmd.slice(0, 3).join(" ")} exited ${code}`);
  return performance.now() - s;
};
const site = `page.test:${server.port}`;
const extract = [
  bin,
  "call",
  "web_extract",
  JSON.stringify({ url: `http://${site}/page` }),
  "--resolve",
  `${site}:127.0.0.1`,
  `--allow-net=${site}`,
  "--approve",
  "web_extract",
];
const curl = Bun.which("curl");
const cold = [bin, "call", "plan", "{}"];
const samples = { extract: [] as number[], curl: [] as number[], cold: [] as number[] };
try {
  for (let i = 0; i < runs; i++) {
    samples.extract.push(await timed(extract));
    samples.cold.push(await timed(cold));
    if (curl) samples.curl.push(await timed([curl, "-s", "-o", "/dev/null", `http://127.0.0.1:${server.port}/page`]));
  }
  const [e, c, k] = [median(samples.extract), median(samples.cold), curl ? median(samples.curl) : NaN];
  console.log(
    `web_extract of a ${(body.length / 1e6).toFixed(2)} MB page: median ${e.toFixed(1)} ms over ${runs} runs; toolgate cold start (call plan) ${c.toFixed(1)} ms`,
  );
  if (curl)
    console.log(
      `curl -s of the same page: median ${k.toFixed(1)} ms; web_extract / (curl + cold start) = ${(e / (k + c)).toFixed(2)} (target <= 1.5)`,
    );
  else console.log("curl is not installed: no curl comparison");
} finally {
  server.stop(true);
  rmSync(work, { recursive: true, force: true });
}
