// The second floor for scripts/bench-serve.ts: the SDK's high-level McpServer over
// stdio answering one `echo` tool registered with a zod input schema, nothing else. The bench
// compiles it with toolgate's build flags, like bench-serve-floor.ts (the low-level Server).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "floor", version: "1.0.0" });
server.registerTool("echo", { description: "Echo the text back", inputSchema: { text: z.string() } }, ({ text }) => ({
  content: [{ type: "text", text }],
}));
await server.connect(new StdioServerTransport());
