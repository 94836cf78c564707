// Built-in tools (src/tools/index.ts): this binary's own, always offered.
import { builtinSources } from "../../catalog/builtin.ts";
import { builtinTools } from "../../tools/index.ts";
import type { Provider } from "./provider.ts";

export const builtins: Provider = {
  name: "builtin",
  open: (_ctx, _opened, before) => [...before, ...builtinSources(builtinTools)],
};
