// Another client's MCP config named with --config or $TOOLGATE_CONFIG, read as it is (no import
// step): its servers become toolgate's mcpServers, everything else of the file is left out.
import { basename } from "node:path";
import { importClientConfig, type Imported } from "./import.ts";

/** The file names other clients give their MCP config (a `.toml` is Codex's). */
const CLIENT_FILE_NAMES = new Set([
  "mcp.json", // VS Code .vscode/mcp.json, Cursor ~/.cursor/mcp.json
  ".mcp.json", // Claude Code, Cursor project
  "claude_desktop_config.json",
  "settings.json", // Zed, Gemini CLI
  "mcp_config.json", // Windsurf
  "cline_mcp_settings.json",
  "mcp_settings.json", // Roo
]);

/** Whether a file the user named is another client's: by its name, or by a server list only they write. */
export function isClientFile(path: string, parsed: () => unknown): boolean {
  const name = basename(path);
  if (/\.toml$/i.test(name) || CLIENT_FILE_NAMES.has(name)) return true;
  if (name === "toolgate.json") return false;
  const doc = parsed();
  return (
    typeof doc === "object" && doc !== null && !Array.isArray(doc) && ("servers" in doc || "context_servers" in doc)
  );
}

export type ClientRead =
  | { ok: true; data: Record<string, unknown>; imported: Imported }
  | { ok: false; problem: string };

/** The parsed document (TOML for `.toml`) as toolgate config data: `{ mcpServers }` and nothing else. */
export function readClientFile(path: string, text: string, parseJsonc: (text: string) => unknown): ClientRead {
  const isToml = /\.toml$/i.test(path);
  let doc: unknown;
  try {
    doc = isToml ? Bun.TOML.parse(text) : parseJsonc(text);
  } catch (e) {
    return { ok: false, problem: `not ${isToml ? "TOML" : "JSON"} (${(e as Error).message})` };
  }
  const r = importClientConfig(doc, isToml);
  if (!r.ok) return r;
  return { ok: true, data: { mcpServers: r.value.servers }, imported: r.value };
}

/** One stderr line: which client's file this was read as, and each key left out (why: `config import`). */
export function clientFileNote(path: string, imported: Imported): string {
  const n = Object.keys(imported.servers).length;
  const head = `${path}: read as another client's MCP config (${imported.format}: ${n} server${n === 1 ? "" : "s"})`;
  if (imported.skipped.length === 0) return head;
  return (
    `${head}; left out: ${imported.skipped.map((s) => s.key).join(", ")} (\`toolgate config import ` +
    `${path}\` says why)`
  );
}
