// Supervision of Las and MCP stdio children for a long-lived process (`serve`, later `session`):
// a child that dies is restarted with bounded exponential backoff (never replaying what was in
// flight), every restart re-lists its tools against this boot's catalog, and what can be served
// now is answered by refusedNow(); onChange fires whenever that set changes.
import type { Connection } from "../mcp/connect.ts";
import type { ListedTool } from "../mcp/session.ts";
import type { Code } from "../result/codes.ts";
import type { Refusal } from "../result/result.ts";
import { liveDigest } from "./digest.ts";
import { catalogNameOf, serverWho, type RemoteSpec } from "./specs.ts";

export interface SupervisorHooks {
  /** The set of servable tools changed (a server went down, came back, or lists another descriptor). */
  onChange(): void;
  /** One line about a child's life (exit, restart, give-up), for stderr. */
  onEvent(line: string): void;
}

/**
 * Restart policy. A child that dies is restarted after `initialMs`, doubling per consecutive
 * failure up to `maxMs`; a child that stayed up `stableMs` starts the count again. After
 * `attempts` restarts in a row fail (died again within `stableMs`, or did not come up) it is
 * left down: its tools are refused `mcp.server_down` until the process restarts.
 */
export interface RestartPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly attempts: number;
  readonly stableMs: number;
}

/** 0.5 s, 1, 2, 4, 8: five restarts within ~16 s, then down. */
export const RESTART_POLICY: RestartPolicy = { initialMs: 500, maxMs: 30_000, attempts: 5, stableMs: 60_000 };

/** What the supervisor needs of RemoteSources (kept narrow so `session` can reuse it). */
export interface Supervised {
  readonly specs: readonly RemoteSpec[];
  /** The tools this boot's catalog took from a server (after include/exclude); undefined when none. */
  listedTools(server: string): readonly ListedTool[] | undefined;
  /** The live connection, connecting (or reconnecting) now when there is none. */
  connection(spec: RemoteSpec): Promise<Connection>;
  /** Forgets a lost connection so the next connection() starts a new child. */
  drop(server: string, conn: Connection): void;
  /** Best-effort journal row for a child's exit. */
  journalExit(spec: RemoteSpec, code: Code, reason: string): void;
}

interface ServerState {
  conn?: Connection;
  startedAt: number;
  /** Consecutive failed lives (deaths within stableMs, failed restarts). */
  failures: number;
  timer?: ReturnType<typeof setTimeout>;
  /** Set while the child is dead and a restart is pending. */
  down?: string;
  /** Set once restarts stopped. */
  gaveUp?: string;
  /** Tools whose restarted descriptor no longer matches the catalog's, by catalog name. */
  changed: Map<string, Refusal>;
}

const catalogName = catalogNameOf;
/** An HTTP server is not toolgate's process: it is reconnected, not restarted. */
const again = (spec: RemoteSpec) => (spec.transport.kind === "http" ? "reconnect" : "restart");

export class Supervisor {
  readonly #state = new Map<string, ServerState>();
  /** Catalog name → the spec that serves it. */
  readonly #owner = new Map<string, RemoteSpec>();
  #stopped = false;
  #signature = "";
  /** Until start() is done, changes only set the baseline the caller then lists from. */
  #started = false;

  constructor(
    private readonly remote: Supervised,
    private readonly hooks: SupervisorHooks,
    private readonly policy: RestartPolicy = RESTART_POLICY,
    private readonly now: () => number = () => Date.now(),
  ) {
    for (const spec of remote.specs) {
      for (const t of remote.listedTools(spec.name) ?? []) this.#owner.set(catalogName(spec, t.name), spec);
    }
  }

  /** Starts Las and `required` servers now (or watches the ones the boot already started). */
  async start(): Promise<void> {
    const eager = this.remote.specs.filter(
      (s) => (s.kind === "las" || s.required) && this.remote.listedTools(s.name) !== undefined,
    );
    await Promise.all(
      eager.map(async (spec) => {
        try {
          await this.remote.connection(spec);
        } catch (e) {
          if (this.#stopped) return;
          // A permission refused is not a death: retrying cannot lift it. Its calls are refused as in `call`.
          if ((e as { transient?: boolean }).transient === true) {
            this.hooks.onEvent((e as Error).message);
            return;
          }
          // Not up at start: the same path as a death (backoff, then down), never a crash of the server.
          const st = this.#of(spec.name);
          st.failures += 1;
          this.#fail(spec, `could not be started: ${(e as Error).message}`);
        }
      }),
    );
    this.#notify();
    this.#started = true;
  }

  /** Called for every connection made while supervised (first start, restart, lazy start). */
  connected(spec: RemoteSpec, conn: Connection): void {
    if (this.#stopped) return;
    const st = this.#of(spec.name);
    const restarted = st.down !== undefined;
    st.conn = conn;
    st.startedAt = this.now();
    delete st.down;
    st.changed = this.#compare(spec, conn.tools);
    if (restarted) {
      const changed = st.changed.size > 0 ? `; withheld as changed: ${[...st.changed.keys()].join(", ")}` : "";
      this.hooks.onEvent(
        `${serverWho(spec)} ${again(spec)}ed${conn.child ? ` (pid ${conn.child.pid})` : ""}${changed}`,
      );
    }
    void conn.lost?.then((why) => this.#died(spec, conn, why));
    this.#notify();
  }

  /** Why `name` cannot be served right now (server down or restarting, descriptor changed), or undefined. */
  refusedNow(name: string): Refusal | undefined {
    const spec = this.#owner.get(name);
    const st = spec && this.#state.get(spec.name);
    if (!spec || !st) return undefined;
    if (st.gaveUp !== undefined) {
      return {
        code: "mcp.server_down",
        message:
          `${name}: ${serverWho(spec)} is down and no longer ${again(spec)}ed (${st.gaveUp}); restart ` +
          `toolgate once it is fixed`,
      };
    }
    if (st.down !== undefined) {
      return {
        code: "mcp.restarting",
        message: `${name}: ${serverWho(spec)} ${st.down} and is being ${again(spec)}ed; try again shortly`,
      };
    }
    return st.changed.get(name);
  }

  /** Stops restarting (timers cancelled); the caller then shuts the children down. */
  stop(): void {
    this.#stopped = true;
    for (const st of this.#state.values()) {
      if (st.timer) clearTimeout(st.timer);
      delete st.timer;
      // No restart is coming: a call now is refused by the shutdown itself, not told to retry.
      delete st.down;
    }
  }

  #of(name: string): ServerState {
    let st = this.#state.get(name);
    if (!st) {
      st = { startedAt: this.now(), failures: 0, changed: new Map() };
      this.#state.set(name, st);
    }
    return st;
  }

  /** The catalog's tools of this server that the live listing no longer matches. */
  #compare(spec: RemoteSpec, live: readonly ListedTool[]): Map<string, Refusal> {
    const out = new Map<string, Refusal>();
    for (const t of this.remote.listedTools(spec.name) ?? []) {
      const now = live.find((l) => l.name === t.name);
      if (now && liveDigest(spec, now) === liveDigest(spec, t)) continue;
      const name = catalogName(spec, t.name);
      out.set(name, {
        code: "descriptor_changed",
        message:
          `${name} from ${spec.origin} ${now ? "changed its descriptor" : "is no longer listed"} since ` +
          `${serverWho(spec)} was ${again(spec)}ed; it is withheld until toolgate restarts and the change is ` +
          `reviewed (\`toolgate tools --refresh\`, then \`toolgate tools --lock\`)`,
        details: { catalog: liveDigest(spec, t), ...(now ? { current: liveDigest(spec, now) } : {}) },
      });
    }
    return out;
  }

  #died(spec: RemoteSpec, conn: Connection, why: string): void {
    const st = this.#state.get(spec.name);
    if (this.#stopped || !st || st.conn !== conn) return;
    delete st.conn;
    this.remote.drop(spec.name, conn);
    // The leader is gone or deaf; whatever is left of its tree is ended now.
    void conn.close(0).catch(() => {});
    st.failures = this.now() - st.startedAt >= this.policy.stableMs ? 1 : st.failures + 1;
    this.#fail(spec, why);
  }

  /** After a death or a failed start: schedule the next restart, or give up past the bound. */
  #fail(spec: RemoteSpec, why: string): void {
    const st = this.#of(spec.name);
    if (st.failures > this.policy.attempts) {
      delete st.down;
      st.gaveUp = `${why}; ${this.policy.attempts} ${again(spec)}s in a row failed`;
      this.hooks.onEvent(
        `${serverWho(spec)} ${why}; not ${again(spec)}ed again (${this.policy.attempts} ${again(spec)}s in a ` +
          `row failed); its tools are refused until toolgate restarts`,
      );
      this.remote.journalExit(spec, "mcp.server_down", st.gaveUp);
      this.#notify();
      return;
    }
    const delay = Math.min(this.policy.initialMs * 2 ** (st.failures - 1), this.policy.maxMs);
    st.down = why;
    this.hooks.onEvent(
      `${serverWho(spec)} ${why}; ${again(spec)}ing in ${delay / 1000} s (${again(spec)} ${st.failures} of at ` +
        `most ${this.policy.attempts})`,
    );
    this.remote.journalExit(spec, "mcp.exited", why);
    this.#notify();
    st.timer = setTimeout(() => void this.#restart(spec), delay);
  }

  async #restart(spec: RemoteSpec): Promise<void> {
    const st = this.#of(spec.name);
    delete st.timer;
    if (this.#stopped) return;
    try {
      await this.remote.connection(spec);
    } catch (e) {
      if (this.#stopped) return;
      st.failures += 1;
      this.#fail(spec, `did not come back: ${(e as Error).message}`);
    }
  }

  /** onChange when what is refused (which tools, and why) changed since the last call. */
  #notify(): void {
    if (this.#stopped) return;
    const refused = [...this.#owner.keys()].map((n) => `${n} ${this.refusedNow(n)?.code ?? ""}`).join("\n");
    if (refused === this.#signature) return;
    this.#signature = refused;
    if (this.#started) this.hooks.onChange();
  }
}
