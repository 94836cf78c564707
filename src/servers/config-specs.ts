// What the config says about remote sources, turned into launchable specs (their shape: specs.ts):
// Las and the `mcpServers` block in the shape MCP clients already use. Pure: the parent environment
// is a parameter. Variables in env, headers, args and url (vars.ts): a parent's is a secret. Apart
// from the shape, which most of src/servers reads: only the boot makes specs.
import { dirname, isAbsolute, relative, resolve } from "node:path";
import type { Effective } from "../config/resolve.ts";
import { lasEnv } from "../mcp/las.ts";
import type { Need } from "../permission/types.ts";
import { BASE_ENV, pathProblem, SECRET_MIN_LENGTH } from "../launcher/env.ts";
import type { Refusal } from "../result/result.ts";
import { formatOrigin } from "../catalog/origin.ts";
import { expandVars, fillVars, parseEnvFile } from "./vars.ts";
import { resolveCommand, type FindOnPath } from "./command.ts";
import type { RemoteSpec } from "./specs.ts";

/** Reads an env file (the world, injected); throws as readFileSync does. */
export type ReadText = (path: string) => string;

const DEFAULT_CONNECT_SECS = 30;

/**
 * The content digests of workspace files a command line names, keyed by path (named-files.ts); injected so this
 * stays pure.
 */
export type NamedFiles = (argv: readonly string[], cwd: string) => Readonly<Record<string, string>>;

/**
 * `allowLocalPaths`: servers named by `--allow-local-paths`. The config's own
 * `boundary.local_paths` reaches here only from a trusted config (the trust gate refuses it otherwise).
 */
export function remoteSpecs(
  config: Effective,
  parent: Readonly<Record<string, string | undefined>>,
  namedFiles: NamedFiles = () => ({}),
  allowLocalPaths: ReadonlySet<string> = new Set(),
  files: { configPath?: string; confined?: boolean; readText?: ReadText; findOnPath?: FindOnPath } = {},
): { ok: true; value: RemoteSpec[] } | { ok: false; refusal: Refusal } {
  const v = config.values;
  const workspace = v.workspace;
  const las = v.las;
  const specs: RemoteSpec[] = [];
  const timeoutMs = las.timeout_secs * 1000;
  const graceMs = las.shutdown_grace_secs * 1000;
  if (las.enabled) {
    const env = lasEnv(las, parent);
    if (!env.ok) return env;
    const entry = isAbsolute(las.entrypoint) ? las.entrypoint : resolve(workspace, las.entrypoint);
    const lasNetwork = las.network === true;
    // SKARBIEC_* taken from the parent are the operator's (maybe secrets): digested by name only.
    const lasEnvRuns = Object.fromEntries(
      Object.entries(env.env).map(([k, val]) => [
        k,
        k.startsWith("SKARBIEC_") && k !== "SKARBIEC_MCP_AGENT_ID" && parent[k] === val ? `\${${k}}` : val,
      ]),
    );
    specs.push({
      name: "las",
      origin: "las",
      kind: "las",
      transport: { kind: "stdio", argv: [las.command, entry], cwd: workspace, values: env.env, secrets: {} },
      runs: { env: lasEnvRuns, files: namedFiles([las.command, entry], workspace) },
      needs: [{ kind: "run", value: las.command }],
      network: lasNetwork,
      pin: true,
      connectTimeoutMs: timeoutMs,
      timeoutMs,
      graceMs,
      required: true,
      requiredSurfaces: las.required_surfaces,
    });
  }
  const servers = v.mcpServers ?? {};
  for (const name of Object.keys(servers).sort()) {
    const s = servers[name]!;
    if (s.disabled === true) continue;
    const common = {
      name,
      origin: formatOrigin({ kind: "mcp", server: name }),
      kind: "mcp" as const,
      pin: false,
      connectTimeoutMs: (s.connect_timeout_secs ?? DEFAULT_CONNECT_SECS) * 1000,
      timeoutMs: (s.timeout_secs ?? las.timeout_secs) * 1000,
      graceMs,
      required: s.required === true,
      network: s.network === true,
      ...(s.include ? { include: s.include } : {}),
      ...(s.exclude ? { exclude: s.exclude } : {}),
      ...(allowLocalPaths.has(name)
        ? { localPathsOff: `--allow-local-paths=${name}` }
        : s.boundary?.local_paths === "allow"
          ? { localPathsOff: `mcpServers.${name}.boundary.local_paths` }
          : {}),
    };
    // Every string of env, headers, args and url, read once: a parent variable is an env need
    // (--allow-env=NAME or a yes at the prompt, never the config) and a secret.
    const needNames: string[] = [];
    const allBound: Record<string, string> = {};
    const bad = (at: (string | number)[], problem: string): { ok: false; refusal: Refusal } => ({
      ok: false,
      refusal: {
        code: "config.invalid",
        message: `mcpServers.${name}.${at.join(".")}: ${problem}`,
        details: { at: ["mcpServers", name, ...at] },
      },
    });
    const read = (raw: string, at: (string | number)[]) => {
      const e = expandVars(raw, { parent, workspace });
      if (!e.ok) return bad(at, e.problem);
      for (const n of e.names) if (!needNames.includes(n)) needNames.push(n);
      Object.assign(allBound, e.bound);
      return e;
    };
    const envNeeds = (): Need[] => needNames.map((n) => ({ kind: "env" as const, value: n }));
    const short = () => Object.entries(allBound).find(([, val]) => val.length < SECRET_MIN_LENGTH)?.[0];
    const isHttp =
      s.type === "http" ||
      s.type === "streamable-http" ||
      s.type === "sse" ||
      (s.url !== undefined && s.command === undefined);
    if (isHttp) {
      if (!s.url)
        return {
          ok: false,
          refusal: { code: "config.invalid", message: `mcpServers.${name}: an HTTP server needs "url"` },
        };
      const u = read(s.url, ["url"]);
      if (!u.ok) return u;
      let url: URL;
      try {
        url = new URL(fillVars(u.template, u.bound));
      } catch {
        return bad(["url"], `${JSON.stringify(s.url)} is not a URL`);
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") return bad(["url"], "only http and https are allowed");
      const port = url.port || (url.protocol === "https:" ? "443" : "80");
      const headers: Record<string, string> = {};
      for (const [k, raw] of Object.entries(s.headers ?? {})) {
        const h = read(raw, ["headers", k]);
        if (!h.ok) return h;
        headers[k] = h.template;
      }
      // OAuth client settings (a trusted config's): ${NAME} in them is a secret like a header's.
      const oauth: Record<string, string> = {};
      const o = s.oauth ?? {};
      for (const k of ["client_secret", "private_key"] as const)
        if (o[k] !== undefined && o.client_id === undefined)
          return bad(["oauth", k], `${k} needs its client_id beside it`);
      if (
        o.grant === "client_credentials" &&
        (o.client_id === undefined || (o.client_secret === undefined && o.private_key === undefined))
      )
        return bad(
          ["oauth", "grant"],
          "client_credentials needs client_id and client_secret or private_key (a pre-registered client)",
        );
      if (o.client_metadata_url !== undefined && !/^https:\/\/[^/]+\/./.test(o.client_metadata_url))
        return bad(
          ["oauth", "client_metadata_url"],
          "must be an https URL with a path (the client ID metadata document)",
        );
      for (const [k, raw] of Object.entries(o)) {
        const o = read(raw, ["oauth", k]);
        if (!o.ok) return o;
        oauth[k] = o.template;
      }
      const tooShort = short();
      specs.push({
        ...common,
        network: true,
        transport: {
          kind: "http",
          url: u.template,
          headers,
          secrets: allBound,
          ...(s.type === "sse" ? { sse: true } : {}),
          ...(s.oauth ? { oauth } : {}),
        },
        needs: [{ kind: "net", value: `${url.hostname}:${port}` }, ...envNeeds()],
        ...(tooShort
          ? { problem: `${tooShort} is shorter than ${SECRET_MIN_LENGTH} characters and could not be redacted` }
          : {}),
      });
      continue;
    }
    if (!s.command)
      return {
        ok: false,
        refusal: {
          code: "config.invalid",
          message: `mcpServers.${name}: give "command" (stdio) or "type": "http" with "url"`,
        },
      };
    const values: Record<string, string> = {};
    const secrets: Record<string, string> = {};
    // envFile: read beside the config; its values are secrets (one too short to redact stays a value).
    if (s.envFile !== undefined) {
      const base = files.configPath ? dirname(files.configPath) : workspace;
      // VS Code writes "${workspaceFolder}/.env": the folder variables only, never the parent's.
      const named = expandVars(s.envFile, { parent: { HOME: parent.HOME }, workspace });
      if (!named.ok) return bad(["envFile"], named.problem);
      const path = resolve(base, named.template);
      const rel = relative(base, path);
      if (files.confined !== false && (rel.startsWith("..") || isAbsolute(rel)))
        return bad(
          ["envFile"],
          `${path} is outside ${base}; a workspace config reads env files only beside it (name it in a config ` +
            `you pass with --config)`,
        );
      let text: string;
      try {
        text = (
          files.readText ??
          (() => {
            throw new Error("no reader");
          })
        )(path);
      } catch (e) {
        return bad(["envFile"], `cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
      const parsed = parseEnvFile(text);
      if (!parsed.ok) return bad(["envFile"], `${path}: ${parsed.problem}`);
      for (const [k, val] of Object.entries(parsed.values))
        (val.length < SECRET_MIN_LENGTH ? values : secrets)[k] = val;
    }
    const runsEnv: Record<string, string> = {};
    // A trusted config's env.PATH replaces the fixed PATH (an untrusted one was refused by the trust gate).
    let serverPath: string | undefined;
    for (const [k, raw] of Object.entries(s.env ?? {})) {
      const e = read(raw, ["env", k]);
      if (!e.ok) return e;
      delete values[k];
      delete secrets[k];
      // As written in digests: the template, never a secret's value.
      runsEnv[k] = e.template;
      if (k === "PATH") {
        const problem = pathProblem(fillVars(e.template, e.bound));
        if (problem) return bad(["env", "PATH"], `PATH ${problem}`);
        serverPath = e.template;
      } else if (e.names.length === 0) values[k] = e.template;
      else secrets[k] = fillVars(e.template, e.bound);
    }
    const args: string[] = [];
    for (const [i, raw] of (s.args ?? []).entries()) {
      const a = read(raw, ["args", i]);
      if (!a.ok) return a;
      args.push(a.template);
    }
    const cwd = s.cwd === undefined ? workspace : isAbsolute(s.cwd) ? s.cwd : resolve(workspace, s.cwd);
    const cmd = resolveCommand(
      s.command,
      cwd,
      parent.PATH,
      BASE_ENV.PATH!,
      files.findOnPath,
      serverPath === undefined ? undefined : fillVars(serverPath, allBound),
    );
    const command = cmd.command;
    const argv = [command, ...args];
    // inherit_env: named parent variables passed through as they are, each an env need.
    const inherit = s.inherit_env ?? [];
    const tooShort = short();
    specs.push({
      ...common,
      transport: {
        kind: "stdio",
        argv,
        cwd,
        values,
        secrets,
        ...(Object.keys(allBound).length ? { bound: allBound } : {}),
        ...(cmd.dir ? { pathDir: cmd.dir } : {}),
        ...(inherit.length ? { inherit } : {}),
        ...(serverPath !== undefined ? { path: serverPath } : {}),
      },
      runs: { env: runsEnv, files: namedFiles(argv, cwd), ...(cmd.real ? { program: cmd.real } : {}) },
      needs: [
        { kind: "run", value: command },
        ...envNeeds(),
        ...inherit.filter((n) => !needNames.includes(n)).map((n) => ({ kind: "env" as const, value: n })),
      ],
      ...(cmd.problem
        ? { problem: cmd.problem }
        : tooShort
          ? {
              problem:
                `${tooShort} is shorter than ${SECRET_MIN_LENGTH} characters and could not be redacted; ` +
                `bind a real secret`,
            }
          : {}),
    });
  }
  return { ok: true, value: specs };
}
