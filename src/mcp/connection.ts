// What connecting to one MCP server takes and gives (connect.ts for a stdio child, connect-http.ts
// for Streamable HTTP and legacy SSE): types only, so both sides share them without a circle.
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { PolicyFetchFn } from "../http/client.ts";
import type { LaterRequest } from "../http/later.ts";
import type { ChildEnv } from "../launcher/env.ts";
import type { RunningServer } from "../launcher/server.ts";
import type { Redactor, Sandbox } from "../launcher/types.ts";
import type { ReapOrder } from "../launcher/reaper.ts";
import type { ListedTool, McpSession } from "./session.ts";

export type { Declared } from "./peer.ts";

export type Target =
  | {
      readonly kind: "stdio";
      readonly name: string;
      readonly argv: readonly string[];
      readonly env: ChildEnv;
      readonly cwd: string;
      readonly sandbox?: Sandbox;
    }
  /** `sse`: the legacy HTTP+SSE transport (a GET stream, POSTs to the endpoint it names), for `type: "sse"` servers. */
  | {
      readonly kind: "http";
      readonly name: string;
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly fetch?: PolicyFetch;
      readonly sse?: boolean;
      readonly authProvider?: OAuthClientProvider;
    };

/**
 * The HTTP adapter's fetch (src/http): every request of the transport goes through the URL policy.
 * `later` packs a request for the detached reaper to send under the same policy (src/http/later.ts).
 */
export type PolicyFetch = PolicyFetchFn;

export interface Connection {
  readonly session: McpSession;
  readonly tools: readonly ListedTool[];
  /** The child, for stdio (its pid and stderr); absent for HTTP. */
  readonly child?: RunningServer;
  /**
   * Resolves with why the connection is gone, as a phrase after the server's name ("exited with
   * status 3", "was killed by a signal", "closed its stdout"; HTTP: "cannot be reached (...)", "no
   * longer knows this session (HTTP 404)"), whoever closed it. A supervisor watches it.
   */
  readonly lost?: Promise<string>;
  /** Closes the session; for a child, the shutdown (stdin closed, grace, kill). */
  close(graceMs: number): Promise<void>;
  /** For an unsandboxed child: the same shutdown, left to the reaper (RunningServer.handOff). */
  handOff?(graceMs: number): ReapOrder | null;
  /**
   * HTTP: the DELETE that ends the server's session, packed for the reaper (null when there is
   * nothing to end); close() then ends only this side.
   */
  endLater?(): Promise<LaterRequest | null>;
}

export interface ConnectOptions {
  readonly pin: boolean;
  readonly connectTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly version: string;
  readonly redactor: (secrets: readonly string[]) => Redactor;
  readonly onNoise?: (server: string, line: string) => void;
  /** Declare sampling (serve relays it to a client that supports it). */
  readonly sampling?: boolean;
  /**
   * false: declare no elicitation (serve --expose for a client that declared none); toolgate answers every other
   * server's.
   */
  readonly elicitation?: boolean;
}
