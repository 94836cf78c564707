// What a client of `toolgate serve` is offered: the catalog narrowed by the profile (a caller's rule
// narrows it further), less what is refused now and, for an unattended child, what would need an
// approval nobody gave; each tool under its served name. With --expose, only that server's tools,
// in its order, each as it listed it, and named as it names them.
import { effectivePolicy, preApproved } from "../approval/approval.ts";
import type { Descriptor } from "../catalog/catalog.ts";
import type { Declared } from "../mcp/connect.ts";
import type { ListedTool } from "../mcp/session.ts";
import { escapeControl } from "../result/escape.ts";
import type { Refusal } from "../result/result.ts";
import type { Booted } from "../runtime/boot.ts";
import type { Profile } from "../runtime/invoke.ts";
import type { ServedCaller } from "./caller.ts";
import type { ServedNames } from "./names.ts";
import { renderTool, type ServedTool } from "./render.ts";
import { mcpServerOf } from "../catalog/origin.ts";

/**
 * `--expose SERVER`: only that server's tools, under its own names, as it listed them.
 * `declaring`: the names it lists on a connection that declares `declared` (what one client
 * declared), or undefined when the shared connection declares just that.
 */
export interface Exposed {
  readonly server: string;
  readonly listed: () => readonly ListedTool[] | undefined;
  readonly declaring?: (declared: Declared) => Promise<readonly string[] | undefined>;
}

export interface ServedDeps {
  readonly booted: Pick<Booted, "catalog" | "refused" | "config">;
  readonly profile: Profile & { readonly name: string };
  /** No human behind this session (--child): approval-required tools not covered by --approve are withheld. */
  readonly child: boolean;
  /** Names from --approve (or "all"). */
  readonly approved: ReadonlySet<string>;
  readonly names: ServedNames;
  /** Tools refused right now by a supervised source (a changed descriptor after a restart), by name. */
  readonly refusedNow?: (name: string) => Refusal | undefined;
  readonly exposed?: Exposed;
  /** One line for the operator (stderr). */
  readonly operator: (line: string) => void;
}

export type Listed = ServedTool | Record<string, unknown>;

export class ServedList {
  constructor(readonly deps: ServedDeps) {}

  /** Whether a tool is offered to a client now: in its profile, not refused, and approvable here. */
  #offered(d: Descriptor, caller: ServedCaller | undefined): boolean {
    const { booted, exposed } = this.deps;
    if (exposed && mcpServerOf(d.origin) !== exposed.server) return false;
    if (!(caller?.profile ?? this.deps.profile).offers(d.name)) return false;
    if (booted.refused.has(d.name) || this.deps.refusedNow?.(d.name)) return false;
    if (
      this.deps.child &&
      !preApproved(d, {
        approved: caller?.approved ?? this.deps.approved,
        overrides: booted.config.values.approval ?? {},
      })
    )
      return false;
    return true;
  }

  /**
   * The served list (for `caller`, narrowed by its rule), in catalog order; with --expose, each tool exactly as its
   * server listed it.
   */
  tools(caller?: ServedCaller): Listed[] {
    const { booted } = this.deps;
    const overrides = booted.config.values.approval ?? {};
    const offered = booted.catalog.descriptors.filter((d) => this.#offered(d, caller));
    const exposed = this.deps.exposed;
    if (exposed) {
      // In the server's own order, each as it listed it.
      const byRaw = new Map(offered.map((d) => [booted.catalog.entries.get(d.name)?.rawName ?? d.name, d]));
      return (exposed.listed() ?? []).flatMap((t) => {
        const d = byRaw.get(t.name);
        return d
          ? [
              {
                ...(t.extra ?? {}),
                name: t.name,
                description: t.description ?? d.description,
                inputSchema: d.inputSchema,
              },
            ]
          : [];
      });
    }
    return offered.map((d) =>
      renderTool(d, this.deps.names.toServed.get(d.name) ?? d.name, effectivePolicy(d, overrides)),
    );
  }

  /**
   * With --expose, what its server lists to a client that declared what this one did: one without
   * sampling is not shown a tool that would ask for it (the calls go on that kind of connection too).
   * A listing that fails shows the catalog's, and the operator hears why.
   */
  async toolsFor(declared: () => Declared, caller?: ServedCaller): Promise<Listed[]> {
    const all = this.tools(caller);
    const declaring = this.deps.exposed?.declaring;
    if (!declaring) return all;
    try {
      const names = await declaring(declared());
      return names ? all.filter((t) => names.includes(String(t.name))) : all;
    } catch (e) {
      this.deps.operator(
        `toolgate: MCP server "${escapeControl(this.deps.exposed!.server)}": its tools for what this client ` +
          `declared could not be listed (${escapeControl((e as Error).message)}); the catalog's are shown`,
      );
      return all;
    }
  }

  /** The catalog name behind a served tool name. */
  fromServed(served: string): string {
    const exposed = this.deps.exposed;
    if (exposed) {
      const e = [...this.deps.booted.catalog.entries.values()].find(
        (x) => mcpServerOf(x.origin) === exposed.server && x.rawName === served,
      );
      return e?.name ?? served;
    }
    return this.deps.names.fromServed.get(served) ?? served;
  }
}
