// Most's messaging tools (src/tools/most): offered when (and only when) its token file is
// configured; then its endpoint must be too.
import { resolve } from "node:path";
import { builtinSources } from "../../catalog/builtin.ts";
import { bootError } from "../../result/result.ts";
import { mostTools } from "../../tools/most/index.ts";
import type { Provider } from "./provider.ts";

export const most: Provider = {
  name: "most",
  open(ctx, opened, before) {
    const mostSection = (ctx.config.values.most ?? {}) as { service_token_file?: string; url?: string };
    if (!mostSection.service_token_file) return [...before];
    if (!mostSection.url)
      throw bootError(
        "most.service_token_file (MOST_SERVICE_TOKEN_FILE) is set but Most has no endpoint",
        "set MOST_SERVICE_URL (or most.url in your config) to the Most service's base URL",
      );
    opened.most = { url: mostSection.url, tokenFile: resolve(ctx.workspace, mostSection.service_token_file) };
    return [...before, ...builtinSources(mostTools)];
  },
};
