// Remote sources (Las and configured MCP servers) as catalog sources. Listing goes through a
// cache in the state folder keyed by the declarations' fingerprint; on a miss only the servers
// the boot names are discovered (all for `tools`, the owner of the tool for a call, none for a
// built-in), so a call of another tool spawns nothing. Connecting is an effect: its permissions
// pass before anything is spawned or dialled, and a stdio child runs in the boot's sandbox; what
// one connect does once they passed is dial.ts.
// supervise() (serve) keeps the children for the process's lifetime: src/servers/supervisor.ts.
import type { ToolSource } from "../catalog/catalog.ts";
import type { Connection, Declared, Target } from "../mcp/connect.ts";
import type { ListedTool } from "../mcp/session.ts";
import type { Check, Need } from "../permission/types.ts";
import type { Refusal } from "../result/result.ts";
import type { RemoteDeps } from "./deps.ts";
import { mayOwnUnlisted, whyUnlisted } from "./boot.ts";
import type { AuthWiring, WiringInput } from "./auth.ts";
import { remoteToolSource } from "./call.ts";
import { listRemote, type ServerStatus } from "./list.ts";
import { ClientDeclared } from "./client-declared.ts";
import { dial } from "./dial.ts";
import { endConnections } from "./ending.ts";
import { ConnectionPool } from "./pool.ts";
import { secretValues, serverWho, type RemoteSpec } from "./specs.ts";
import { stdioTarget } from "./target.ts";
import type { RestartPolicy, Supervisor, SupervisorHooks } from "./supervisor.ts";

export { CACHE_NAME, fingerprint } from "./cache.ts";
export type { ServerStatus } from "./list.ts";
export type { RemoteDeps } from "./deps.ts";

export class RemoteSources {
  readonly #connections = new Map<string, Promise<Connection>>();
  /** Connections that declare what one kind of client declared (serve --expose): client-declared.ts. */
  readonly #declaring = new ClientDeclared((spec, declared) => this.#connect(spec, declared));
  readonly #fresh = new Set<string>();
  /** A connect refused by a permission this boot (the flag that would grant it), by server. */
  readonly #refusals = new Map<string, Refusal>();
  #status: ServerStatus[] = [];
  /** The tools the catalog took from each server (after include/exclude), for the supervisor's re-checks. */
  readonly #listed = new Map<string, readonly ListedTool[]>();
  /** Servers whose start passed the permission stage this process: a restart does not ask again. */
  readonly #approved = new Set<string>();
  /** `server\0kind\0value` of start needs granted in this process (checkStart) → the value granted. */
  readonly #granted = new Map<string, string>();
  #supervisor: Supervisor | undefined;
  #closing = false;
  /** Each server's secrets as a live list: OAuth tokens join it when read or saved (auth.ts). */
  readonly #secrets = new Map<string, string[]>();
  /** Each HTTP server's OAuth wiring, made on its first connect. */
  readonly #auth = new Map<string, AuthWiring>();

  constructor(private readonly deps: RemoteDeps) {}

  get status(): readonly ServerStatus[] {
    return this.#status;
  }

  /** Lists every server (cache first), returns their tools as sources, or the boot failure. */
  async load(): Promise<{ ok: true; value: ToolSource[] } | { ok: false; refusal: Refusal }> {
    const r = await listRemote({
      ...this.deps,
      connect: (spec) => this.#connect(spec),
      source: (spec, tool) => remoteToolSource(spec, tool, this),
    });
    this.#status = r.status.map((st) =>
      this.#refusals.has(st.name) ? { ...st, refused: this.#refusals.get(st.name)! } : st,
    );
    if (!r.ok) return r;
    for (const [name, tools] of r.listed) this.#listed.set(name, tools);
    return { ok: true, value: r.sources };
  }

  /** Why `name` is not in the catalog when a configured server would own it (see servers/boot.ts). */
  whyUnlisted(name: string): Refusal | undefined {
    return whyUnlisted(this.deps.specs, this.#status, this.#refusals, name);
  }

  /** Whether `name` may be a tool of a server whose tools this boot did not list (see servers/boot.ts). */
  readonly mayOwnUnlisted = (name: string): boolean => mayOwnUnlisted(this.deps.specs, this.#status, name);

  /** Records that a server's tools are kept out of the catalog, and why (shown by `tools`). */
  withhold(name: string, reason: string): void {
    this.#listed.delete(name);
    this.#status = this.#status.map((st) => (st.name === name ? { ...st, ok: false, tools: 0, withheld: reason } : st));
  }

  /**
   * The live connection for a server, connecting now when this process has none. `declared`
   * (serve --expose): one that declared exactly that at initialize, so the server offers what the
   * client behind it can take (a server may list a sampling tool only to a client with sampling);
   * the shared connection when it declares the same.
   */
  connection(spec: RemoteSpec, declared?: Declared): Promise<Connection> {
    if (declared && !this.declaresAsShared(declared)) return this.#declaring.connection(spec, declared);
    let c = this.#connections.get(spec.name);
    if (!c) {
      c = this.#connect(spec);
      this.#connections.set(spec.name, c);
      c.catch(() => this.#connections.delete(spec.name));
    }
    return c;
  }

  /** Whether the shared connections declare exactly `declared` (elicitation always; sampling under serve). */
  declaresAsShared(declared: Declared): boolean {
    return declared.elicitation && declared.sampling === (this.deps.sampling === true);
  }

  /** Whether `conn` declares what one kind of client declared (its listing is what that client may use). */
  declares(conn: Connection): boolean {
    return this.#declaring.has(conn);
  }

  /**
   * From now on keep the children for this process's lifetime: Las and `required` servers are
   * started now, others on first use; a child that dies is restarted with backoff and re-checked
   * against the catalog (src/servers/supervisor.ts). Resolves once the eager starts were tried.
   */
  async supervise(hooks: SupervisorHooks, policy?: RestartPolicy): Promise<Supervisor> {
    if (this.#supervisor) return this.#supervisor;
    const { Supervisor } = await import("./supervisor.ts");
    const sup = new Supervisor(
      {
        specs: this.deps.specs,
        listedTools: (n) => this.#listed.get(n),
        connection: (s) => this.connection(s),
        drop: (n, conn) => void this.#drop(n, conn),
        journalExit: (s, code, message) => this.#journal(s, { status: "exited", code, message }),
      },
      hooks,
      policy,
      this.deps.now,
    );
    this.#supervisor = sup;
    // Children the boot already started (discovery) are watched from here on.
    for (const [name, p] of [...this.#connections]) {
      const spec = this.deps.specs.find((s) => s.name === name);
      const conn = await p.catch(() => undefined);
      if (spec && conn && this.#connections.get(name) === p) sup.connected(spec, conn);
    }
    await sup.start();
    return sup;
  }

  /** Under supervision: why a catalog tool cannot be served now (see Supervisor.refusedNow); else undefined. */
  refusedNow(name: string): Refusal | undefined {
    return this.#supervisor?.refusedNow(name);
  }

  async #drop(name: string, conn: Connection): Promise<void> {
    const p = this.#connections.get(name);
    if (p && (await p.catch(() => undefined)) === conn && this.#connections.get(name) === p)
      this.#connections.delete(name);
  }

  /** A server's secrets, a list that grows as OAuth tokens are read or saved: views redact it at use. */
  secretsOf(spec: RemoteSpec): string[] {
    let list = this.#secrets.get(spec.name);
    if (!list) this.#secrets.set(spec.name, (list = secretValues(spec)));
    return list;
  }

  /** The tools a server listed (after include/exclude), as it listed them. */
  listedTools(name: string): readonly ListedTool[] | undefined {
    return this.#listed.get(name);
  }

  /** The configured server of this name, if any. */
  spec(name: string): RemoteSpec | undefined {
    return this.deps.specs.find((s) => s.name === name);
  }

  /**
   * Why a server's call or connect failed for want of authorization (`toolgate auth SERVER`),
   * because a host of its authorization flow was not granted, or because it answered 429, if it did.
   */
  authRefusal(spec: RemoteSpec): Refusal | undefined {
    const w = this.#auth.get(spec.name);
    return w?.refusal(spec.name);
  }

  /** Forgets a want of authorization (or a rate limit) seen earlier: a call starts clean. */
  clearAuthNeed(spec: RemoteSpec): void {
    const w = this.#auth.get(spec.name);
    if (w) w.needed = w.refused = w.limited = undefined;
  }

  /**
   * The OAuth wiring of an HTTP server: stored tokens (call, tools, serve), or with `authorize` the
   * interactive flow of `toolgate auth`. Its requests pass the server's net permission first.
   */
  async authWiring(spec: RemoteSpec, authorize?: WiringInput["authorize"]): Promise<AuthWiring> {
    if (spec.transport.kind !== "http") throw new Error(`${spec.name} is not an HTTP server`);
    const { authWiring } = await import("./auth.ts");
    const w = authWiring(spec, {
      userState: this.deps.userState ?? null,
      secrets: this.secretsOf(spec),
      base: this.deps.httpFetch,
      check: (need) => this.checkStart(spec, need),
      ...(authorize ? { authorize } : {}),
      now: this.deps.now,
      version: this.deps.version,
    });
    if (!authorize) this.#auth.set(spec.name, w);
    return w;
  }

  /** Whether the connection was made in this process after the catalog was listed from the cache. */
  isFresh(name: string): boolean {
    return this.#fresh.has(name);
  }

  /**
   * One need of a server's start: granted by a flag or a yes at the prompt that shows its command
   * line (never the config's own grants), and remembered for this process. A call's permission
   * step and the connect share it, so one call asks once, whichever comes first.
   */
  checkStart(spec: RemoteSpec, need: Need): Check | Promise<Check> {
    const key = `${spec.name}\0${need.kind}\0${need.value}`;
    const had = this.#granted.get(key);
    // With the value it was granted as (a program's real path): a background task carries that.
    if (had !== undefined) return { ok: true, value: had };
    const describe = this.deps.describe;
    const r = this.deps.permissions.check(
      need,
      `mcp.connect:${spec.name}`,
      describe ? () => describe(spec) : undefined,
    );
    return r instanceof Promise ? r.then((x) => this.#started(spec, need, key, x)) : this.#started(spec, need, key, r);
  }

  #started(spec: RemoteSpec, need: Need, key: string, r: Check): Check {
    if (r.ok) {
      const value = r.value ?? need.value;
      this.#granted.set(key, value);
      return { ok: true, value };
    }
    const message = `${serverWho(spec)} is not started: ${r.message}`;
    this.#refusals.set(spec.name, {
      code: r.code,
      message,
      ...(r.flag ? { details: { flag: r.flag, flags: [r.flag] } } : {}),
    });
    this.#journal(spec, { status: "refused", code: r.code, message });
    return { ok: false, code: r.code, message, ...(r.flag ? { flag: r.flag } : {}) };
  }

  /** `declared`: a connection the caller keeps (#declaring), declaring that instead of this process's default. */
  async #connect(spec: RemoteSpec, declared?: Declared): Promise<Connection> {
    if (this.#closing) throw new Error("toolgate is shutting down");
    // A restart runs the command line whose start was approved (same spec): it is not asked again.
    const restart = this.#approved.has(spec.name);
    // A server that cannot start at all (its command is on no PATH folder) says so before any grant is asked for.
    if (spec.problem) throw new Error(spec.problem);
    for (const need of restart ? [] : spec.needs) {
      // Awaited only when it asks someone: with its grants known, a call's start spawns at once (begin, call.ts).
      const c = this.checkStart(spec, need);
      const r = c instanceof Promise ? await c : c;
      if (!r.ok) throw Object.assign(new Error(r.message), { transient: true });
    }
    const poolKey = this.deps.pool && !declared ? ConnectionPool.key(spec, this.deps.networkGranted === true) : "";
    const kept = poolKey ? this.deps.pool?.get(poolKey) : undefined;
    if (kept) {
      // Checked like a fresh start (its tools against the catalog), but no second child.
      this.#connections.set(spec.name, Promise.resolve(kept));
      this.#fresh.add(spec.name);
      return kept;
    }
    let target: Target;
    if (spec.transport.kind === "http") {
      // Every HTTP server may answer 401: its OAuth provider uses stored tokens and refreshes them.
      const auth = this.#auth.get(spec.name) ?? (await this.authWiring(spec));
      auth.needed = auth.refused = auth.limited = undefined;
      target = auth.target;
    } else target = stdioTarget(spec, this.deps);
    if (!declared) this.#approved.add(spec.name);
    // Journal before effect: no row, no start.
    this.deps.journal?.(spec, { status: restart && !declared ? "restarted" : "started" });
    // Bound secrets never leave in an error message or a listed descriptor (dial.ts); a connect
    // that failed for want of authorization is this server's refusal from then on.
    const secrets = this.secretsOf(spec);
    const conn = await dial(spec, target, declared, this.deps, secrets, () => {
      const auth = this.authRefusal(spec);
      if (auth) this.#refusals.set(spec.name, auth);
      return auth;
    });
    // A start that finished while shutting down is closed at once: nothing is left running.
    if (this.#closing) {
      await conn.close(0);
      throw new Error("toolgate is shutting down");
    }
    if (declared) return conn;
    this.deps.pool?.keep(poolKey, spec.name, conn);
    this.#connections.set(spec.name, Promise.resolve(conn));
    this.#fresh.add(spec.name);
    this.#supervisor?.connected(spec, conn);
    return conn;
  }

  /** A refusal's row is best effort: the refusal itself already stops the start. */
  #journal(spec: RemoteSpec, outcome: { status: "refused" | "exited"; code: Refusal["code"]; message: string }): void {
    try {
      this.deps.journal?.(spec, outcome);
    } catch {
      // nothing started, so nothing is lost but the record of a refusal
    }
  }

  /**
   * The shutdown of every child this process started: stdin closed, grace, kill. `handOff`
   * (a one-shot process whose result is out): stdin is closed here and the rest is left to a
   * detached reaper, so the caller does not wait out the children (src/launcher/reaper.ts).
   * `"children"`: only the children go to the reaper; an HTTP server's session is ended here.
   */
  async shutdown(opts: { handOff?: boolean | "children" } = {}): Promise<void> {
    // No restart is scheduled or started from here on; one already starting is awaited and closed below.
    this.#closing = true;
    this.#supervisor?.stop();
    const all = [...this.#connections.entries(), ...this.#declaring.takeAll()];
    this.#connections.clear();
    await endConnections(all, {
      specs: this.deps.specs,
      pool: this.deps.pool,
      ...(opts.handOff !== undefined ? { handOff: opts.handOff } : {}),
    });
  }
}
