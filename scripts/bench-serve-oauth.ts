// `serve --http --oauth-issuer` against `serve --http --token-file` (run on demand, not in `bun test`):
// what a call costs more when its access token is verified. A minimal issuer runs in this process on
// loopback (RFC 8414 metadata and a JWKS, ES256 by default as the test provider signs; BENCH_ALG=RS256
// for RSA), and this process mints the token (the verification is measured, not the issuer).
//   1. Per round, each case in turn (the order alternating): dist/toolgate serve --http 127.0.0.1:0
//      started, a session opened with raw fetch (no SDK client: its own cost stays out of both), 50
//      warm-up calls, then BENCH_CALLS (default 1,000) sequential tools/call of `plan`; p50 and p99
//      per call. BENCH_ROUNDS rounds (default 7); per case the median of the rounds' p50 and p99,
//      and the difference as the median of the rounds' own differences (the same minute of the
//      machine), with their spread (min..max over rounds). Target: at most 100 µs (p50).
//   2. The floor, in this process: jose's jwtVerify with the key already imported, the same token
//      and options (what a request whose token is not remembered pays); then serve's own door
//      (src/serve/oauth: a token verified once is remembered, its clock checks, the caller
//      admitted) with the same token. Medians of 7 batches.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, generateKeyPair, jwtVerify, SignJWT } from "jose";
import { loadavg, median } from "./bench-lib.ts";
import { callerRules } from "../src/serve/oauth/callers.ts";
import { KeySet } from "../src/serve/oauth/keys.ts";
import { gate } from "../src/serve/oauth/gate.ts";
import { ALGORITHMS, LEEWAY_SECS, verifier } from "../src/serve/oauth/verify.ts";
import { issuerOnly } from "../src/serve/http-options.ts";
import { resolveProfile } from "../src/serve/profiles.ts";

const root = join(import.meta.dir, "..");
const bin = process.env.BENCH_BIN ?? join(root, "dist", "toolgate");
const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WARMUP = 50;
const ALG = process.env.BENCH_ALG ?? "ES256";
const work = mkdtempSync(join(tmpdir(), "toolgate-bench-serve-oauth-"));

const pct = (xs: readonly number[], f: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * f))]!;
const us = (x: number) => `${x.toFixed(0)} µs`;

// The issuer: its metadata and its key set, nothing else.
const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
const jwk = { ...(await exportJWK(publicKey)), kid: "bench-1", alg: ALG, use: "sig" };
let jwksFetches = 0;
const idp: Bun.Server<undefined> = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req): Response {
    const path = new URL(req.url).pathname;
    if (path === "/.well-known/oauth-authorization-server")
      return Response.json({ issuer, jwks_uri: `${issuer}/jwks` });
    if (path === "/jwks") return (jwksFetches++, Response.json({ keys: [jwk] }));
    return new Response("not found", { status: 404 });
  },
});
const issuer: string = `http://127.0.0.1:${idp.port}`;
/** An access token for `resource`, as an identity provider issues one (RFC 9068). */
const mint = (resource: string) => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: "alice", client_id: "team-app", scope: "mcp:tools", groups: ["readers"] })
    .setProtectedHeader({ alg: ALG, kid: jwk.kid, typ: "at+jwt" })
    .setIssuer(issuer)
    .setAudience(resource)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(privateKey);
};

interface Served {
  readonly url: string;
  readonly token: string;
  stop(): Promise<void>;
}

/** dist/toolgate serve --http 127.0.0.1:0 ...args, until it says where it serves. */
async function serve(
  args: readonly string[],
  env: Record<string, string>,
  ws: string,
  token: (url: string) => Promise<string>,
): Promise<Served> {
  const proc = Bun.spawn([bin, "serve", "--http", "127.0.0.1:0", ...args], {
    cwd: ws,
    env,
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  let err = "";
  const decoder = new TextDecoder();
  const reader = proc.stderr.getReader();
  const address = /serving MCP at (http:\/\/\S+)\n/;
  while (!address.test(err)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`serve ${args.join(" ")} did not start (exit ${await proc.exited}): ${err}`);
    err += decoder.decode(value, { stream: true });
  }
  void (async () => {
    while (!(await reader.read()).done);
  })();
  const url = address.exec(err)![1]!;
  return {
    url,
    token: await token(url),
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** One MCP session over raw fetch: initialize, then requests answered as JSON or one SSE event. */
async function session(url: string, token: string) {
  let next = 1;
  let id: string | null = null;
  const headers = () => ({
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    Authorization: `Bearer ${token}`,
    ...(id ? { "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18" } : {}),
  });
  const post = async (body: object) => {
    const r = await fetch(url, { method: "POST", headers: headers(), body: JSON.stringify(body) });
    const text = await r.text();
    if (!r.ok) throw new Error(`${r.status}: ${text}`);
    id ??= r.headers.get("mcp-session-id");
    if (text === "") return undefined;
    const data = r.headers.get("content-type")?.startsWith("text/event-stream")
      ? text
          .split("\n")
          .find((l) => l.startsWith("data: "))!
          .slice(6)
      : text;
    const m = JSON.parse(data);
    if (m.error) throw new Error(JSON.stringify(m.error));
    return m.result;
  };
  await post({
    jsonrpc: "2.0",
    id: next++,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  });
  await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    call: async (name: string, args: object) => {
      const r = await post({ jsonrpc: "2.0", id: next++, method: "tools/call", params: { name, arguments: args } });
      if (r.isError) throw new Error(`${name}: ${JSON.stringify(r)}`);
    },
    end: () => fetch(url, { method: "DELETE", headers: headers() }).then((r) => r.body?.cancel()),
  };
}

try {
  const ws = join(work, "ws");
  const home = join(work, "home");
  mkdirSync(ws, { recursive: true });
  mkdirSync(home, { recursive: true });
  const env = { PATH: "/usr/bin:/bin", HOME: home, XDG_STATE_HOME: join(home, "state"), CI: "true" };
  const tokenFile = join(work, "token");
  const staticToken = "bench-static-token-0123456789abcdef";
  writeFileSync(tokenFile, `${staticToken}\n`);
  chmodSync(tokenFile, 0o600);
  const cases = [
    { name: "static token", args: ["--token-file", tokenFile], token: async () => staticToken },
    { name: "oauth", args: ["--oauth-issuer", issuer], token: mint },
  ];
  const perRound = new Map<string, { p50: number; p99: number }[]>(cases.map((c) => [c.name, []]));
  let lastToken = "";
  let lastResource = "";
  console.log(
    `1. ${CALLS} sequential tools/call plan over serve --http (after ${WARMUP} warm-up calls), ${rounds} rounds, ${ALG} tokens (µs per call):`,
  );
  for (let r = 0; r < rounds; r++) {
    const line: string[] = [];
    for (const c of r % 2 === 0 ? cases : [...cases].reverse()) {
      const s = await serve(c.args, env, ws, c.token);
      if (c.name === "oauth") [lastToken, lastResource] = [s.token, s.url];
      const mcp = await session(s.url, s.token);
      for (let i = 0; i < WARMUP; i++) await mcp.call("plan", {});
      const lat: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now();
        await mcp.call("plan", {});
        lat.push((performance.now() - t) * 1000);
      }
      await mcp.end();
      await s.stop();
      const x = { p50: pct(lat, 0.5), p99: pct(lat, 0.99) };
      perRound.get(c.name)!.push(x);
      line.push(`${c.name} p50 ${x.p50.toFixed(0)} p99 ${x.p99.toFixed(0)}`);
    }
    console.log(`   round ${r + 1}, load ${loadavg().split(" ")[0]}: ${line.join(", ")}`);
  }
  const report: Record<string, unknown> = { alg: ALG, calls: CALLS, rounds };
  for (const c of cases) {
    const xs = perRound.get(c.name)!;
    console.log(
      `   ${c.name.padEnd(14)} p50 ${us(median(xs.map((x) => x.p50))).padStart(7)}  p99 ${us(median(xs.map((x) => x.p99))).padStart(7)}  (p50 of the rounds ${us(Math.min(...xs.map((x) => x.p50)))}..${us(Math.max(...xs.map((x) => x.p50)))})`,
    );
    report[c.name] = {
      p50_us: +median(xs.map((x) => x.p50)).toFixed(0),
      p99_us: +median(xs.map((x) => x.p99)).toFixed(0),
    };
  }
  const diffs = perRound.get("oauth")!.map((x, i) => x.p50 - perRound.get("static token")![i]!.p50);
  const diff = median(diffs);
  console.log(
    `   oauth over static token: ${diff >= 0 ? "+" : ""}${us(diff)} p50 (median of the rounds' own differences; ${us(Math.min(...diffs))}..${us(Math.max(...diffs))}) (target at most +100 µs); key set fetched ${jwksFetches} times (once per start)`,
  );
  report.oauth_over_static_p50_us = {
    median: +diff.toFixed(0),
    min: +Math.min(...diffs).toFixed(0),
    max: +Math.max(...diffs).toFixed(0),
  };

  // 2. The floor: the verification alone, in this process.
  const perCall = async (f: () => Promise<unknown>, n = 2000) => {
    for (let i = 0; i < 200; i++) await f();
    const xs: number[] = [];
    for (let b = 0; b < 7; b++) {
      const t = performance.now();
      for (let i = 0; i < n; i++) await f();
      xs.push(((performance.now() - t) * 1000) / n);
    }
    return median(xs);
  };
  const options = {
    issuer,
    audience: lastResource,
    algorithms: ALGORITHMS,
    clockTolerance: LEEWAY_SECS,
    requiredClaims: ["exp", "iss", "aud"],
  };
  const keys = new KeySet({
    url: `${issuer}/jwks`,
    get: async (u) => {
      const r = await fetch(u);
      return { status: r.status, json: await r.json() };
    },
    now: Date.now,
    log: () => {},
  });
  if ((await keys.load()) !== null) throw new Error("the key set did not load");
  const verify = verifier({ issuer, audience: lastResource, keys, groupsClaim: "groups", now: Date.now });
  const full = resolveProfile(undefined, undefined);
  if (!full.ok) throw new Error("no full profile");
  const admit = callerRules(undefined, { profile: full.value, approved: new Set() });
  if (!admit.ok) throw new Error("no admission");
  const door = gate({
    settings: issuerOnly(issuer),
    resource: lastResource,
    endpoint: "/mcp",
    verify,
    admit: admit.value,
    log: () => {},
  });
  const floor = {
    jwt_verify_us: await perCall(() => jwtVerify(lastToken, publicKey, options)),
    key_set_verify_us: await perCall(async () => {
      const v = await verify(lastToken);
      if (!v.ok) throw new Error(v.description);
    }),
    door_us: await perCall(async () => {
      const a = await door.check(`Bearer ${lastToken}`);
      if (!a.ok) throw new Error(a.denied.message);
    }),
  };
  console.log(
    `2. in process, per token (median of 7 batches): jose's jwtVerify with the key imported ${us(floor.jwt_verify_us)}; serve's verifier, the token remembered ${us(floor.key_set_verify_us)}; serve's whole door (verify, scopes, the caller admitted) ${us(floor.door_us)}`,
  );
  console.log(
    `   the call's difference less the door: ${us(diff - floor.door_us)} (what the OAuth path costs past the verification)`,
  );
  report.floor_us = Object.fromEntries(Object.entries(floor).map(([k, v]) => [k, +v.toFixed(1)]));
  console.log(JSON.stringify(report));
} finally {
  idp.stop(true);
  rmSync(work, { recursive: true, force: true });
}
