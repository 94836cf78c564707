// The floor for scripts/bench-serve.ts: a bare MCP server, the SDK's low-level Server over stdio
// answering one `echo` tool, nothing else. The bench compiles it with toolgate's build flags.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "floor", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: "echo",
      description: "Echo the text back",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, (req) => ({
  content: [{ type: "text", text: String(req.params.arguments?.text ?? "") }],
}));
await server.connect(new StdioServerTransport());
