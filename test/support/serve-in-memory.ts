// `toolgate serve` in this process, for the protocol tests that need no process of their own: the
// command's own start (src/cli/serve-start.ts: the boot, the checks, the served parts, supervision)
// with the SDK's Client on the other end of the SDK's InMemoryTransport instead of stdio. What only
// the binary shows (stdout kept the protocol's, exit codes, signals, stdin EOF) stays with the
// end-to-end tests against dist/toolgate (test/serve/client.ts); this tier is faster.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { scanFlags, type Args } from "../../src/cli/flags.ts";
import serveCommand from "../../src/cli/serve.ts";
import { startServe, type Started } from "../../src/cli/serve-start.ts";
import type { ServeOptions } from "../serve/client.ts";

export interface InMemoryServed extends AsyncDisposable {
  readonly client: Client;
  /** The served parts (hub, served list, tool caller) and the boot behind them. */
  readonly started: Started;
  /** The operator's lines so far (what the binary writes to stderr about calls and servers), one a line. */
  stderr(): string;
  /** The client leaves; calls in flight get the grace; every child ends and the journal closes. */
  close(): Promise<void>;
}

/** Serves `args` (serve's flags, as on the command line) in process to a new SDK Client; `o` as for the binary. */
export async function serveInMemory(
  args: readonly string[],
  o: ServeOptions & { readonly graceMs?: number },
): Promise<InMemoryServed> {
  mkdirSync(o.home, { recursive: true });
  const env = { PATH: "/usr/bin:/bin", HOME: o.home, XDG_STATE_HOME: join(o.home, "state"), ...o.env };
  // Read with serve's own declaration, as the entry point does.
  const flags = scanFlags(args, (serveCommand.args ?? {}) as Args);
  const ctx = { argv: args, flags, cwd: o.cwd, env, stdoutIsTTY: false, readStdin: async () => "" };
  let lines = "";
  const started = await startServe(ctx, flags, { operator: (line) => void (lines += `${line}\n`) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const capabilities = { ...(o.elicit ? { elicitation: { form: {} } } : {}), ...(o.sample ? { sampling: {} } : {}) };
  const client = new Client({ name: "toolgate-test", version: "1.0.0" }, { capabilities });
  if (o.elicit) client.setRequestHandler(ElicitRequestSchema, (req) => o.elicit!(req));
  if (o.sample) client.setRequestHandler(CreateMessageRequestSchema, (req) => o.sample!(req));
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      await client.close();
      await started.hub.drain(o.graceMs ?? 10_000);
      await started.hub.close();
      await started.close();
    })());
  try {
    await started.hub.connect(serverSide, { sessionApprovals: false });
    await client.connect(clientSide);
  } catch (e) {
    await close();
    throw e;
  }
  return { client, started, stderr: () => lines, close, [Symbol.asyncDispose]: close };
}
