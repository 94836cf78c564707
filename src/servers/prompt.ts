// What the permission prompt for starting an MCP server (or Las) shows besides `run access to
// "bash"`: the server's WHOLE command line (a harmless program name can carry any script in its
// arguments), bounded and escaped as the approval prompt's arguments are, and where it was
// declared, with whether that config is trusted (a repository's own config is not).
import { argumentsBlock } from "../permission/prompt-block.ts";
import type { ConfigFile } from "../config/file.ts";
import type { Effective } from "../config/resolve.ts";
import { escapeControl } from "../result/escape.ts";
import type { TrustedBy } from "../trust/trust.ts";
import type { RemoteSpec } from "./specs.ts";

/** Shell-quoted only where needed, so the line reads as what would be typed. */
export const shellWord = (a: string): string =>
  /^[A-Za-z0-9_/.,:=@%+-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`;

export interface DeclaredIn {
  readonly config: Effective;
  readonly file: ConfigFile | null;
  /** How the config is trusted (null: not trusted). Asked only when a prompt is shown. */
  readonly trustedBy: () => TrustedBy | null;
  readonly stateDir: string;
}

/** Where the spec was declared: `file:line` for mcpServers, the leaf's origin for Las. */
export function declaredAt(spec: RemoteSpec, d: DeclaredIn): string {
  if (spec.kind === "las") {
    const origin = d.config.leaves.get("las.command")?.origin ?? "default";
    return origin.startsWith("file:") ? origin.slice(5) : origin;
  }
  if (d.file === null) return "(no config file)";
  const line = d.file.lineOf(["mcpServers", spec.name]);
  return `${d.file.path}${line ? `:${line}` : ""}`;
}

function trustWords(spec: RemoteSpec, d: DeclaredIn): string {
  const origin = spec.kind === "las" ? (d.config.leaves.get("las.command")?.origin ?? "default") : "file:";
  if (!origin.startsWith("file:")) return "your own setting";
  const by = d.trustedBy();
  return by === null
    ? "NOT trusted: it came with the workspace (`toolgate trust` records it once reviewed)"
    : `trusted (${by === "record" ? "by `toolgate trust`" : by === "flag" ? "given with --config" : by === "user-env" ? "your $TOOLGATE_CONFIG" : "by TOOLGATE_TRUST"})`;
}

export function serverDetail(spec: RemoteSpec, d: DeclaredIn): string {
  const who = spec.kind === "las" ? "Las" : `MCP server "${escapeControl(spec.name)}"`;
  const what =
    spec.transport.kind === "stdio"
      ? `┠─ To start ${who}, in ${escapeControl(spec.transport.cwd)}.\n${argumentsBlock(spec.transport.argv.map(shellWord).join(" "), d.stateDir, "Command line")}`
      : `┠─ To connect ${who}.\n${argumentsBlock(spec.transport.url, d.stateDir, "URL")}`;
  return `${what}┠─ Declared in ${escapeControl(declaredAt(spec, d))}, ${trustWords(spec, d)}.\n`;
}
