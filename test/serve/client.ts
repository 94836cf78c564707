// The SDK's own Client driving dist/toolgate serve over stdio: a real MCP client nobody here wrote.
// The child's stderr is collected; HOME and the user state live outside the workspace.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, run } from "../helpers.ts";

export interface Served extends AsyncDisposable {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** The serve process's pid. */
  readonly pid: number;
  stderr(): string;
  close(): Promise<void>;
}

export interface ServeOptions {
  readonly cwd: string;
  /** HOME (and the user state under it): outside the workspace. */
  readonly home: string;
  readonly env?: Record<string, string>;
  /** Declares elicitation and answers each request with this. */
  readonly elicit?: (req: ElicitRequest) => ElicitResult | Promise<ElicitResult>;
  /** Declares sampling and answers each request with this. */
  readonly sample?: (req: CreateMessageRequest) => CreateMessageResult | Promise<CreateMessageResult>;
}

export async function serve(args: readonly string[], o: ServeOptions): Promise<Served> {
  mkdirSync(o.home, { recursive: true });
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["serve", ...args],
    cwd: o.cwd,
    env: { PATH: "/usr/bin:/bin", HOME: o.home, XDG_STATE_HOME: join(o.home, "state"), ...o.env },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => void (err += d.toString()));
  const capabilities = { ...(o.elicit ? { elicitation: { form: {} } } : {}), ...(o.sample ? { sampling: {} } : {}) };
  const client = new Client({ name: "toolgate-test", version: "1.0.0" }, { capabilities });
  if (o.elicit) client.setRequestHandler(ElicitRequestSchema, (req) => o.elicit!(req));
  if (o.sample) client.setRequestHandler(CreateMessageRequestSchema, (req) => o.sample!(req));
  try {
    await client.connect(transport);
  } catch (e) {
    throw new Error(`serve did not start: ${(e as Error).message}; stderr: ${err}`);
  }
  const close = () => client.close();
  return { client, transport, pid: transport.pid!, stderr: () => err, close, [Symbol.asyncDispose]: close };
}

/** The JSON text of a call's first content item, parsed. */
export const textJson = (r: object): any => JSON.parse((r as { content: { text: string }[] }).content[0]!.text);

/** A workspace holding a.txt, and a HOME beside it (never inside), under `root`. */
export function site(root: string): { ws: string; home: string } {
  const ws = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(ws);
  mkdirSync(home);
  writeFileSync(join(ws, "a.txt"), "alpha\n");
  return { ws, home };
}

/** The finished journal rows of a workspace, oldest first. */
export const journal = async (ws: string, home: string): Promise<any[]> =>
  (await run(["log", "--json"], { cwd: ws, env: { HOME: home } })).stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((r) => r.event === "tool_finished");
