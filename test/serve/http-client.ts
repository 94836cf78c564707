// dist/toolgate serve --http as a real process (stdin closed: it must not stop it), its address and
// generated token read from stderr, and the SDK's Client over StreamableHTTPClientTransport.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BIN } from "../helpers.ts";

export interface HttpServe extends AsyncDisposable {
  readonly url: string;
  /** The generated token (printed once), or null with --no-token / --token-file. */
  readonly token: string | null;
  readonly pid: number;
  stderr(): string;
  /** Resolves once stderr holds `text` (polled, at most 10 s). */
  said(text: string): Promise<void>;
  /** SIGTERM (once), then the exit code. */
  stop(): Promise<number>;
}

/** Starts `toolgate serve --http 127.0.0.1:0 ...args` and waits (bounded) for its address line. */
export async function serveHttp(
  args: readonly string[],
  o: { cwd: string; home: string; env?: Record<string, string> },
): Promise<HttpServe> {
  mkdirSync(o.home, { recursive: true });
  const proc = Bun.spawn([BIN, "serve", ...(args.includes("--http") ? [] : ["--http", "127.0.0.1:0"]), ...args], {
    cwd: o.cwd,
    env: { PATH: "/usr/bin:/bin", HOME: o.home, XDG_STATE_HOME: join(o.home, "state"), ...o.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let err = "";
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  const address = /serving MCP at (http:\/\/\S+)\n/;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((res) => (timer = setTimeout(() => res("late"), 20_000)));
  try {
    while (!address.test(err)) {
      const chunk = await Promise.race([reader.read(), proc.exited.then(() => "exited" as const), late]);
      if (chunk === "exited" || chunk === "late" || chunk.done) {
        proc.kill();
        throw new Error(
          `serve --http did not start (${chunk === "late" ? "no address in 20 s" : `exit ${await proc.exited}`}): ${err}`,
        );
      }
      err += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
  }
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      err += decoder.decode(value, { stream: true });
    }
  })();
  const url = address.exec(err)![1]!;
  const token = /bearer token \(shown once\): (\S+)\n/.exec(err)?.[1] ?? null;
  let signalled = false;
  const stop = async () => {
    if (!signalled && proc.exitCode === null) proc.kill("SIGTERM");
    signalled = true;
    return proc.exited;
  };
  const said = async (text: string) => {
    for (let i = 0; i < 400 && !err.includes(text); i++) await Bun.sleep(25);
    if (!err.includes(text)) throw new Error(`serve never said ${JSON.stringify(text)}: ${err}`);
  };
  return {
    url,
    token,
    pid: proc.pid,
    stderr: () => err,
    said,
    stop,
    [Symbol.asyncDispose]: async () => void (await stop()),
  };
}

export interface HttpClientOptions {
  readonly token?: string | null;
  /** Declares elicitation and answers each request with this. */
  readonly elicit?: (req: ElicitRequest) => ElicitResult | Promise<ElicitResult>;
}

/** The SDK's Client connected to `url`, sending the bearer token when one is given. */
export async function connect(url: string, o: HttpClientOptions = {}): Promise<Client & AsyncDisposable> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: o.token ? { headers: { Authorization: `Bearer ${o.token}` } } : {},
  });
  const client = new Client(
    { name: "toolgate-http-test", version: "1.0.0" },
    { capabilities: o.elicit ? { elicitation: { form: {} } } : {} },
  );
  if (o.elicit) client.setRequestHandler(ElicitRequestSchema, (req) => o.elicit!(req));
  await client.connect(transport);
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/** A JSON-RPC initialize as a raw request (for the status codes the SDK client hides). */
export const initializeBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
export const POST_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

/** Every process below `pid` (from /proc's parent links), for checking nothing is left running. */
export function descendantsOf(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      parent.set(Number(e), Number(readFileSync(`/proc/${e}/stat`, "utf8").split(") ")[1]!.split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const below = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, pp] of parent) if (below.has(pp) && !below.has(p)) below.add(p), out.push(p), (grew = true);
  }
  return out;
}

/** Whether `pid` is running (a zombie waiting for its parent counts as gone). */
export function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z");
  } catch {
    return false;
  }
}
