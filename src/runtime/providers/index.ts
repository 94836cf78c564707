// The tool sources, in the order the catalog is built: each provider adds its own to those before
// it. To add a tool source, write one provider (provider.ts) in this folder and put it in this list:
// providers are the only modules that import tool sources (test/architecture.test.ts).
import type { ToolSource } from "../../catalog/catalog.ts";
import { authored } from "./authored.ts";
import { builtins } from "./builtins.ts";
import { delegation } from "./delegation.ts";
import { most } from "./most.ts";
import { rails } from "./rails.ts";
import { servers } from "./servers.ts";
import type { BootContext, Opened, Provider } from "./provider.ts";

export type { BootContext, Opened, Provider } from "./provider.ts";

/**
 * Built-ins and what only the environment or config adds to them first; servers next; authored tools last (they are
 * checked against all).
 */
export const PROVIDERS: readonly Provider[] = [builtins, rails, most, delegation, servers, authored];

/** Every provider's tools for this boot, and what they opened; a failure leaves no server behind. */
export async function provide(ctx: BootContext): Promise<{ sources: ToolSource[]; opened: Opened }> {
  const opened: Opened = { rails: {}, most: undefined, remote: undefined, servers: [] };
  let sources: ToolSource[] = [];
  try {
    for (const p of PROVIDERS) sources = await p.open(ctx, opened, sources);
  } catch (e) {
    // A boot that fails after servers were started leaves none of them behind.
    await opened.remote?.shutdown();
    throw e;
  }
  return { sources, opened };
}
