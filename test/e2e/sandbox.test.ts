// The sandbox modes end to end against dist/toolgate: the mode stated by `tools`, `config` and
// `call --verbose`; product isolating the file system and the network, bench sharing the network;
// and a mode that cannot be had failing the boot (exit 5) instead of running quieter.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BASE_ENV } from "../../src/launcher/env.ts";
import { bwrapSandbox, probeSandbox } from "../../src/launcher/sandbox.ts";
import { BIN, json, run, tempDir, type RunResult } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

const probeDir = tempDir("toolgate-probe-");
afterAll(() => probeDir[Symbol.asyncDispose]());
/** Whether bubblewrap works on this machine (installed, user namespaces allowed). */
const BWRAP =
  (await probeSandbox(bwrapSandbox({ mode: "product", workspace: probeDir.path, network: false }), probeDir.path)) ===
  null;

const GRANT = ["--allow-run=bash", "--approve", "bash"];

function workspace(mode: string) {
  const dir = tempDir();
  writeFileSync(join(dir.path, "toolgate.json"), JSON.stringify({ sandbox: mode }));
  return dir;
}

/** Runs the binary under an outer bwrap that takes something away from it (all else shared). */
async function runWithout(outer: string[], args: string[], cwd: string): Promise<RunResult> {
  const proc = Bun.spawn(["bwrap", "--dev-bind", "/", "/", ...outer, "--", BIN, ...args], {
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: cwd, CI: "true" },
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

/** Every bwrap the child's fixed PATH would find, replaced by /dev/null (exec fails). */
const maskBwrap = () =>
  [
    ...new Set(
      BASE_ENV.PATH!.split(":")
        .map((d) => join(d, "bwrap"))
        .filter((p) => existsSync(p))
        .map((p) => realpathSync(p)),
    ),
  ].flatMap((p) => ["--ro-bind", "/dev/null", p]);

describe("the mode is stated", () => {
  test("tools: on stderr when the listing is NDJSON (stdout stays one descriptor per line)", async () => {
    await using dir = tempDir();
    const r = await run(["tools", "--json"], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("toolgate: sandbox: off (the scrubbed environment only: no isolation)");
    const names = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).name);
    expect(names).toEqual(expect.arrayContaining(["bash", "dev_check", "scratch_read"]));
  });

  test("config: the sandbox leaf with its origin", async () => {
    await using dir = workspace("bench");
    const r = await run(["config", "--json"], { cwd: dir.path });
    expect(json(r).sandbox).toEqual({ value: "bench", origin: `file:${join(dir.path, "toolgate.json")}:1` });
    expect(json(r)["bash.max_timeout_secs"]).toEqual({ value: 600, origin: "default" });
  });

  test("tools in product mode: probed, then stated", async () => {
    await using dir = workspace("product");
    const r = await run(["tools", "--json"], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      "toolgate: sandbox: product (bubblewrap: read-only system, writable workspace, private /tmp, new PID namespace, no network)",
    );
  });
});

describe("what product and bench isolate (bubblewrap works here)", () => {
  // Not under /tmp or /var/tmp: the sandbox has its own (empty) ones.
  const outside = mkdtempSync("/var/lib/toolgate-outside-");
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("pong") });
  afterAll(() => {
    server.stop(true);
    rmSync(outside, { recursive: true, force: true });
  });
  const fetchLoopback = {
    command: `exec 3<>/dev/tcp/127.0.0.1/${server.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`,
  };

  test("product: the workspace is writable, the rest of the system is not", async () => {
    await using dir = workspace("product");
    const target = join(outside, "escaped.txt");
    const r = await run(
      ["call", "bash", JSON.stringify({ command: `echo in > inside.txt; echo out > ${target}` }), ...GRANT],
      { cwd: dir.path },
    );
    expect([r.code, json(r).error_code]).toEqual([1, "bash.exit"]);
    expect(json(r).details.stderr.tail).toContain("Read-only file system");
    expect(json(r).details.sandbox).toBe("product");
    expect(readFileSync(join(dir.path, "inside.txt"), "utf8")).toBe("in\n");
    expect(existsSync(target)).toBe(false);
  });

  test.each([
    ["product cannot reach a loopback server", "product", [], false],
    // A net grant is for toolgate's own requests, never the sandbox's network.
    ["product with a net grant still cannot", "product", [`--allow-net=127.0.0.1:${0}`, "--allow-net"], false],
    ["bench can", "bench", [], true],
  ] as const)("%s", async (_name, mode, net: readonly string[], reached) => {
    await using dir = workspace(mode);
    const flags = net.map((f) => f.replace(":0", `:${server.port}`));
    const r = await run(["call", "bash", JSON.stringify(fetchLoopback), ...GRANT, ...flags], { cwd: dir.path });
    const out = json(r);
    if (reached) {
      expect(r.code).toBe(0);
      expect(out.payload.stdout.tail.endsWith("pong")).toBe(true);
    } else {
      expect([r.code, out.error_code]).toEqual([1, "bash.exit"]);
      expect(out.details.stdout.tail).toBe("");
    }
  });
});

describe("a mode that cannot be had fails the boot (exit 5), never a quieter run", () => {
  test("bwrap missing: call bash and tools fail with the reason; nothing runs, nothing is written", async () => {
    await using dir = workspace("product");
    const args = ["call", "bash", JSON.stringify({ command: "touch ran.txt" }), ...GRANT];
    const r = BWRAP ? await runWithout(maskBwrap(), args, dir.path) : await run(args, { cwd: dir.path });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain('the sandbox mode "product" cannot be had: bubblewrap');
    expect(r.stderr).toContain("apt-get install -y bubblewrap");
    expect(existsSync(join(dir.path, "ran.txt"))).toBe(false);
    expect(existsSync(join(dir.path, ".toolgate"))).toBe(false);
    const tools = BWRAP
      ? await runWithout(maskBwrap(), ["tools", "--json"], dir.path)
      : await run(["tools", "--json"], { cwd: dir.path });
    expect([tools.code, tools.stdout]).toEqual([5, ""]);
  });

  test("a call that never sandboxes is not held up by the probe", async () => {
    await using dir = workspace("bench");
    writeFileSync(join(dir.path, "a.txt"), "a\n");
    const args = ["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"];
    const r = BWRAP ? await runWithout(maskBwrap(), args, dir.path) : await run(args, { cwd: dir.path });
    expect([r.code, json(r).status]).toEqual([0, "success"]);
  });

  test("namespaces refused: the boot fails naming bwrap's reason", async () => {
    await using dir = workspace("bench");
    const args = ["call", "bash", JSON.stringify({ command: "touch ran.txt" }), ...GRANT];
    const r = await runWithout(["--unshare-user", "--uid", "1000", "--disable-userns"], args, dir.path);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(
      'the sandbox mode "bench" cannot be had: bubblewrap could not set up the bench sandbox: bwrap: ',
    );
    expect(existsSync(join(dir.path, "ran.txt"))).toBe(false);
  });
});
