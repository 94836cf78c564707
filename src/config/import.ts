// Other clients' MCP config files, read into toolgate's mcpServers block (`toolgate config
// import`): VS Code, Cursor, Claude Code and Desktop, Codex (TOML), Zed, Windsurf, Gemini CLI,
// Roo, Cline. Pure: the parsed document in, the entries taken and every key skipped (with why) out.

export interface Imported {
  readonly format: string;
  readonly servers: Record<string, Record<string, unknown>>;
  /** Dotted keys as written in the source, each with why it was not taken. */
  readonly skipped: { readonly key: string; readonly why: string }[];
  /** Notes on what was changed on the way (VS Code inputs, Codex token variables). */
  readonly notes: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
const isStringMap = (v: unknown): v is Record<string, string> =>
  isObj(v) && Object.values(v).every((x) => typeof x === "string");

const WHY = {
  approval: "toolgate asks for approval itself; a client's auto-approve list does not loosen it",
  trust: "never honoured: trust in a server does not skip toolgate's approval",
  watch: "toolgate restarts a server when it exits, not when files change",
  client: "a setting of that client, not of the server",
  type: "not a value of the right type",
  unknown: "no toolgate key means this",
};

/** Reads a parsed document (TOML for `.toml`, else JSON with comments) as the client that wrote it. */
export function importClientConfig(
  doc: unknown,
  isToml: boolean,
): { ok: true; value: Imported } | { ok: false; problem: string } {
  if (!isObj(doc)) return { ok: false, problem: "the file is not an object" };
  const skipped: Imported["skipped"] = [];
  const notes: string[] = [];
  const servers: Imported["servers"] = {};
  const containers = isToml ? ["mcp_servers"] : ["mcpServers", "servers", "context_servers"];
  const found = containers.filter((c) => isObj(doc[c]));
  if (found.length === 0)
    return {
      ok: false,
      problem: `no MCP servers found: expected ${containers.map((c) => `"${c}"`).join(" or ")} at the top level`,
    };
  for (const k of Object.keys(doc))
    if (!found.includes(k) && !(k === "inputs" && found.includes("servers")))
      skipped.push({ key: k, why: "not an MCP server list (the rest of the file is ignored)" });
  const format = isToml
    ? "codex"
    : found.includes("servers")
      ? "vscode"
      : found.includes("context_servers")
        ? "zed"
        : "mcpServers";
  const inputs = found.includes("servers") ? vscodeInputs(doc.inputs, notes) : new Map<string, string>();
  for (const c of found) {
    for (const [name, raw] of Object.entries(doc[c] as Obj)) {
      if (!isObj(raw)) {
        skipped.push({ key: `${c}.${name}`, why: "not an object" });
        continue;
      }
      const entry = isToml
        ? codexEntry(raw, `${c}.${name}`, skipped, notes)
        : jsonEntry(raw, `${c}.${name}`, skipped, c === "context_servers");
      if (isObj(entry.env) && "PATH" in entry.env)
        notes.push(
          `${c}.${name}.env.PATH: kept; it replaces the fixed PATH the server is found and run on, which ` +
            `toolgate honours only in a config you pass with --config or trust (\`toolgate trust\`); an ` +
            `untrusted one is refused naming the key`,
        );
      servers[name] = inputs.size ? replaceInputs(entry, inputs) : entry;
    }
  }
  return { ok: true, value: { format, servers, skipped, notes } };
}

/** The keys of one JSON client's entry: kept as they are, renamed, or skipped with why. */
function jsonEntry(raw: Obj, at: string, skipped: Imported["skipped"], zed: boolean): Obj {
  const out: Obj = {};
  const skip = (k: string, why: string) => skipped.push({ key: `${at}.${k}`, why });
  for (const [k, v] of Object.entries(raw)) {
    switch (k) {
      case "command":
        // Zed's older shape: "command": { "path", "args", "env" }.
        if (zed && isObj(v)) {
          if (typeof v.path === "string") out.command = v.path;
          if (isStrings(v.args)) out.args = v.args;
          if (isStringMap(v.env)) out.env = v.env;
          for (const kk of Object.keys(v))
            if (!["path", "args", "env"].includes(kk)) skip(`command.${kk}`, WHY.unknown);
        } else if (typeof v === "string") out.command = v;
        else skip(k, WHY.type);
        break;
      case "args":
      case "includeTools":
      case "excludeTools":
        if (!isStrings(v)) skip(k, WHY.type);
        else out[k === "includeTools" ? "include" : k === "excludeTools" ? "exclude" : k] = v;
        break;
      case "env":
      case "headers":
        if (isStringMap(v)) out[k] = v;
        else skip(k, WHY.type);
        break;
      case "cwd":
      case "url":
      case "envFile":
        if (typeof v === "string") out[k] = v;
        else skip(k, WHY.type);
        break;
      case "serverUrl": // Windsurf
        if (typeof v === "string") out.url = v;
        else skip(k, WHY.type);
        break;
      case "httpUrl": // Gemini CLI: Streamable HTTP
        if (typeof v === "string") Object.assign(out, { type: "http", url: v });
        else skip(k, WHY.type);
        break;
      case "type":
      case "transportType": {
        // Cline writes transportType
        const t =
          typeof v === "string"
            ? (
                {
                  stdio: "stdio",
                  http: "http",
                  "streamable-http": "http",
                  streamableHttp: "http",
                  sse: "sse",
                } as Record<string, string>
              )[v]
            : undefined;
        if (t) out.type = t;
        else skip(k, `${JSON.stringify(v)} is not a transport toolgate knows (stdio, http, sse)`);
        break;
      }
      case "disabled":
        if (typeof v === "boolean") out.disabled = v;
        else skip(k, WHY.type);
        break;
      case "autoApprove":
      case "alwaysAllow":
        skip(k, WHY.approval);
        break;
      case "trust":
        skip(k, WHY.trust);
        break;
      case "watchPaths":
        skip(k, WHY.watch);
        break;
      case "timeout":
        skip(k, "clients disagree on its unit (seconds, milliseconds): set timeout_secs");
        break;
      default:
        skip(k, WHY.unknown);
    }
  }
  return out;
}

/** Codex's `[mcp_servers.NAME]`: its names for the same things, token variables as headers. */
function codexEntry(raw: Obj, at: string, skipped: Imported["skipped"], notes: string[]): Obj {
  const out: Obj = {};
  const skip = (k: string, why: string) => skipped.push({ key: `${at}.${k}`, why });
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    const str = typeof v === "string";
    if ((k === "command" || k === "cwd" || k === "url") && str) out[k] = v;
    else if (k === "args" && isStrings(v)) out.args = v;
    else if (k === "env" && isStringMap(v)) out.env = v;
    else if (k === "env_vars" && isStrings(v)) out.inherit_env = v;
    else if (k === "enabled_tools" && isStrings(v)) out.include = v;
    else if (k === "disabled_tools" && isStrings(v)) out.exclude = v;
    else if (k === "enabled" && typeof v === "boolean") out.disabled = !v;
    else if (k === "startup_timeout_sec" && typeof v === "number" && v > 0) out.connect_timeout_secs = v;
    else if (k === "tool_timeout_sec" && typeof v === "number" && v > 0) out.timeout_secs = v;
    else if (k === "http_headers" && isStringMap(v)) Object.assign(headers, v);
    else if (k === "env_http_headers" && isStringMap(v))
      for (const [h, name] of Object.entries(v)) headers[h] = `\${${name}}`;
    else if (k === "bearer_token_env_var" && str) {
      headers.Authorization = `Bearer \${${v}}`;
      notes.push(`${at}.bearer_token_env_var: sent as "Authorization: Bearer \${${v}}" (needs --allow-env=${v})`);
    } else
      skip(
        k,
        [
          "command",
          "cwd",
          "url",
          "args",
          "env",
          "env_vars",
          "enabled_tools",
          "disabled_tools",
          "enabled",
          "startup_timeout_sec",
          "tool_timeout_sec",
          "http_headers",
          "env_http_headers",
          "bearer_token_env_var",
        ].includes(k)
          ? WHY.type
          : WHY.unknown,
      );
  }
  if (Object.keys(headers).length) out.headers = headers;
  if (out.url !== undefined && out.command === undefined) out.type = "http";
  return out;
}

/** VS Code's `inputs` (asked for by the editor): each becomes an environment variable to set. */
function vscodeInputs(raw: unknown, notes: string[]): Map<string, string> {
  const map = new Map<string, string>();
  if (!Array.isArray(raw)) return map;
  for (const i of raw) {
    if (!isObj(i) || typeof i.id !== "string") continue;
    const name = i.id
      .replace(/[^A-Za-z0-9]+/g, "_")
      .replace(/^(\d)/, "_$1")
      .toUpperCase();
    map.set(i.id, name);
    notes.push(
      `input "${i.id}"${typeof i.description === "string" ? ` (${i.description})` : ""}: read from the ` +
        `environment as \${${name}} (set ${name}; it needs --allow-env=${name})`,
    );
  }
  return map;
}

/** `${input:ID}` in any string of an entry becomes `${NAME}` (a prompt at import would write the secret down). */
function replaceInputs(entry: Obj, inputs: Map<string, string>): Obj {
  const swap = (s: string) =>
    s.replace(/\$\{input:([^}]+)\}/g, (m, id: string) => (inputs.has(id) ? `\${${inputs.get(id)}}` : m));
  const walk = (v: unknown): unknown =>
    typeof v === "string"
      ? swap(v)
      : Array.isArray(v)
        ? v.map(walk)
        : isObj(v)
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
          : v;
  return walk(entry) as Obj;
}
