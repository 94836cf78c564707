// The relayed methods on one client's SDK Server (relay.ts does the work): each declared capability
// gets its handlers, a relayed error keeps the upstream server's JSON-RPC code, and logging/setLevel
// is kept for this client and forwarded upstream. Every relayed request is this client's: what its
// server logs while answering it comes to this client, on the request's own stream, before the answer.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Declared } from "../mcp/connect.ts";
import type { Asking, Relay, RelayClient, Relayed, RelayPeer } from "./relay.ts";

type Types = typeof import("@modelcontextprotocol/sdk/types.js");
type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** `upstream` (serve --expose): what the server is to be told this client can take, read per request. */
export function relayHandlers(
  server: Server,
  types: Types,
  relay: Relay,
  client: RelayClient,
  upstream?: () => Declared,
): void {
  const answer = (r: Relayed) => {
    if (r.ok) return r.result as never;
    throw Object.assign(new types.McpError(r.code, r.message, r.data), { message: r.message });
  };
  /** Runs `work` as this client's request, its server's log lines sent before it returns (the protocol's order). */
  const asked = async <T>(extra: Extra, work: (asking: Asking) => Promise<T>): Promise<T> => {
    const sent: Promise<void>[] = [];
    const declared = upstream?.();
    const peer: RelayPeer = (who) => ({
      owner: client,
      ...(declared ? { upstream: declared } : {}),
      log: (params) => {
        const shown = relay.logFor(client, who.server, params);
        if (shown)
          sent.push(
            extra.sendNotification({ method: "notifications/message", params: shown } as never).catch(() => {}),
          );
      },
    });
    try {
      return await work({ signal: extra.signal, peer });
    } finally {
      if (sent.length > 0) await Promise.allSettled(sent);
    }
  };
  const relayed = async (extra: Extra, work: (asking: Asking) => Promise<Relayed>) => answer(await asked(extra, work));
  const caps = relay.capabilities();
  if (caps.resources) {
    server.setRequestHandler(types.ListResourcesRequestSchema, (req, extra) =>
      relayed(extra, (a) => relay.listResources(req.params?.cursor, a)),
    );
    server.setRequestHandler(types.ListResourceTemplatesRequestSchema, (req, extra) =>
      relayed(extra, (a) => relay.listTemplates(req.params?.cursor, a)),
    );
    server.setRequestHandler(types.ReadResourceRequestSchema, (req, extra) =>
      relayed(extra, (a) => relay.read(req.params, a)),
    );
    server.setRequestHandler(types.SubscribeRequestSchema, (req, extra) =>
      relayed(extra, (a) => relay.subscribe(client, req.params, a)),
    );
    server.setRequestHandler(types.UnsubscribeRequestSchema, (req, extra) =>
      relayed(extra, (a) => relay.unsubscribe(client, req.params.uri, a)),
    );
  }
  if (caps.prompts) {
    server.setRequestHandler(types.ListPromptsRequestSchema, (req, extra) =>
      relayed(extra, (a) => relay.listPrompts(req.params?.cursor, a)),
    );
    server.setRequestHandler(types.GetPromptRequestSchema, (req, extra) =>
      relayed(extra, (a) => relay.getPrompt(req.params, a)),
    );
  }
  if (caps.completions)
    server.setRequestHandler(types.CompleteRequestSchema, (req, extra) =>
      relayed(extra, (a) => relay.complete(req.params, a)),
    );
  server.setRequestHandler(types.SetLevelRequestSchema, async (req, extra) => {
    await asked(extra, (a) => relay.setLevel(client, req.params.level, a));
    return {};
  });
}
