// The boot's trust stage: an untrusted config that would widen anything fails the boot (exit 5)
// naming each key, its file and line, and the command that trusts it. Whether the config is
// trusted is asked lazily: a config that only narrows costs no trust lookup.
import type { ConfigFile } from "../config/file.ts";
import { bootError } from "../result/result.ts";
import { widenings, type RuleInput, type Widening } from "./rule.ts";
import { trustOf, type Trust, type TrustInput, type TrustedBy } from "./trust.ts";

export interface TrustVerdict {
  /** How the config is trusted (null: untrusted, or no file). Computed on first read. */
  readonly trustedBy: TrustedBy | null;
  /** Whether the trust covers this authored tool's manifest as it is now (false when untrusted). */
  covers(name: string, digest: string): boolean;
}

export function trustGate(rule: RuleInput, input: TrustInput): TrustVerdict {
  const found = widenings(rule);
  const file = rule.file;
  let memo: Trust | null | undefined;
  const trust = () => (memo === undefined ? (memo = file ? trustOf(file, input) : null) : memo);
  const verdict: TrustVerdict = {
    get trustedBy() {
      return trust()?.by ?? null;
    },
    covers(name, digest) {
      const tools = trust()?.tools;
      return tools === "all" || (tools !== undefined && Object.hasOwn(tools, name) && tools[name] === digest);
    },
  };
  if (found.length === 0 || verdict.trustedBy !== null) return verdict;
  throw file ? untrusted(file, found) : checkoutLinks(found);
}

const where = (file: ConfigFile, w: Widening) => {
  const line = w.path ? file.lineOf(w.path) : undefined;
  return `${file.path}${line ? `:${line}` : ""}`;
};

// One line: the error printer escapes control characters, newlines included.
function untrusted(file: ConfigFile, found: readonly Widening[]) {
  const list = found.map((w) => `${where(file, w)}: ${w.key}: ${w.why}`).join("; ");
  return bootError(
    `${file.path} is not trusted, and it would widen what toolgate may do (a config found in the workspace ` +
      `may only narrow until you trust it): ${list}`,
    `review the file, then run \`toolgate trust ${file.path}\` (any later edit needs trusting again); ` +
      "in CI set TOOLGATE_TRUST to what `toolgate trust --print` shows, or pass your own file with --config FILE",
  );
}

function checkoutLinks(found: readonly Widening[]) {
  const list = found.map((w) => `${w.key}: ${w.why}`).join("; ");
  return bootError(
    `the checkout would widen what toolgate may do: ${list}`,
    "remove the symlink, or choose the folder yourself in a config passed with --config FILE",
  );
}
