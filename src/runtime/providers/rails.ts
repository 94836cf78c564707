// HTTP rails (src/tools/rails): a rail is offered only with its endpoint and credential from the
// environment; required (--require-rails, the config's rails.require), a missing one fails the boot.
import { builtinSources } from "../../catalog/builtin.ts";
import { bootError } from "../../result/result.ts";
import { railTools } from "../../tools/rails/index.ts";
import { missingRails, RAIL_ROUTES, railEndpoints } from "../../tools/rails/rails.ts";
import type { Provider } from "./provider.ts";

export const rails: Provider = {
  name: "rails",
  open(ctx, opened, before) {
    const { input, config } = ctx;
    opened.rails = railEndpoints(input.env);
    const railsSection = (config.values.rails ?? {}) as { require?: boolean; required?: boolean };
    if (input.requireRails || railsSection.require === true || railsSection.required === true) {
      const missing = missingRails(input.env);
      if (missing.length > 0) {
        const vars = [...new Set(missing.flatMap((m) => m.missing))];
        throw bootError(
          `rails are required (${input.requireRails ? "--require-rails" : "the config's rails.require"}) but ` +
            `${missing.map((m) => m.rail).join(", ")} cannot be offered: ${vars.join(", ")} ` +
            `${vars.length === 1 ? "is" : "are"} not set`,
          `set ${vars.join(" and ")} in the environment, or drop --require-rails`,
        );
      }
    }
    return [
      ...before,
      ...builtinSources(railTools.filter((t) => opened.rails[RAIL_ROUTES[t.name]!.group] !== undefined)),
    ];
  },
};
