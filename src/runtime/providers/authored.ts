// Authored tools (the config's authored-tools folder, runtime/authored.ts): the last source in.
// They may not collide with a built-in, Las or a required server (a boot failure); an optional
// server that collides with anything, or lists a bad name, is withheld instead (servers/boot.ts).
import { withholdBadServers } from "../../servers/boot.ts";
import { authoredTools } from "../authored.ts";
import type { Provider } from "./provider.ts";
import { optionalOrigins } from "./servers.ts";

export const authored: Provider = {
  name: "authored",
  async open(ctx, opened, before) {
    const optional = optionalOrigins(opened);
    const fromServers = new Set(opened.servers.map((s) => s.origin));
    const remoteTools = before.filter((t) => fromServers.has(t.origin));
    const others = before.filter((t) => !fromServers.has(t.origin));
    const own = await authoredTools(
      ctx.authored,
      [...others, ...remoteTools.filter((t) => !optional.has(t.origin))],
      ctx.input.env,
      ctx.trust,
    );
    const { keep, withheld } = withholdBadServers(remoteTools, opened.servers, [...others, ...own]);
    for (const w of withheld) opened.remote?.withhold(w.server, w.reason);
    return [...others, ...keep, ...own];
  },
};
