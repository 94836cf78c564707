// The relayed methods on one client's SDK Server (relay.ts does the work): each declared capability
// gets its handlers, a relayed error keeps the upstream server's JSON-RPC code, and logging/setLevel
// is kept for this client and forwarded upstream.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Relay, RelayClient, Relayed } from "./relay.ts";

type Types = typeof import("@modelcontextprotocol/sdk/types.js");

export function relayHandlers(server: Server, types: Types, relay: Relay, client: RelayClient): void {
  const answer = (r: Relayed) => {
    if (r.ok) return r.result as never;
    throw Object.assign(new types.McpError(r.code, r.message, r.data), { message: r.message });
  };
  const caps = relay.capabilities();
  if (caps.resources) {
    server.setRequestHandler(types.ListResourcesRequestSchema, async (req, extra) => answer(await relay.listResources(req.params?.cursor, extra.signal)));
    server.setRequestHandler(types.ListResourceTemplatesRequestSchema, async (req, extra) => answer(await relay.listTemplates(req.params?.cursor, extra.signal)));
    server.setRequestHandler(types.ReadResourceRequestSchema, async (req, extra) => answer(await relay.read(req.params, extra.signal)));
    server.setRequestHandler(types.SubscribeRequestSchema, async (req, extra) => answer(await relay.subscribe(client, req.params, extra.signal)));
    server.setRequestHandler(types.UnsubscribeRequestSchema, async (req, extra) => answer(await relay.unsubscribe(client, req.params.uri, extra.signal)));
  }
  if (caps.prompts) {
    server.setRequestHandler(types.ListPromptsRequestSchema, async (req, extra) => answer(await relay.listPrompts(req.params?.cursor, extra.signal)));
    server.setRequestHandler(types.GetPromptRequestSchema, async (req, extra) => answer(await relay.getPrompt(req.params, extra.signal)));
  }
  if (caps.completions) server.setRequestHandler(types.CompleteRequestSchema, async (req, extra) => answer(await relay.complete(req.params, extra.signal)));
  server.setRequestHandler(types.SetLevelRequestSchema, async (req, extra) => {
    await relay.setLevel(client, req.params.level, extra.signal);
    return {};
  });
}
