// The boot's trust stage: an untrusted config that would widen anything fails the boot (exit 5)
// naming each key, its file and line, and the command that trusts it. Whether the config is
// trusted is asked lazily: a config that only narrows costs no trust lookup.
import type { ConfigFile } from "../config/file.ts";
import { bootError } from "../result/result.ts";
import { widenings, type RuleInput, type Widening } from "./rule.ts";
import { trustedBy, type TrustInput, type TrustedBy } from "./trust.ts";

export interface TrustVerdict {
  /** How the config is trusted (null: untrusted, or no file). Computed on first read. */
  readonly trustedBy: TrustedBy | null;
}

export function trustGate(rule: RuleInput, input: TrustInput): TrustVerdict {
  const found = widenings(rule);
  const file = rule.file;
  let memo: TrustedBy | null | undefined;
  const verdict = {
    get trustedBy() {
      if (memo === undefined) memo = file ? trustedBy(file, input) : null;
      return memo;
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
    `${file.path} is not trusted, and it would widen what toolgate may do (a config found in the workspace may only narrow until you trust it): ${list}`,
    `review the file, then run \`toolgate trust ${file.path}\` (any later edit needs trusting again); ` +
      "in CI set TOOLGATE_TRUST to what `toolgate trust --print` shows, or pass your own file with --config FILE",
  );
}

function checkoutLinks(found: readonly Widening[]) {
  const list = found.map((w) => `${w.key}: ${w.why}`).join("; ");
  return bootError(`the checkout would widen what toolgate may do: ${list}`, "remove the symlink, or choose the folder yourself in a config passed with --config FILE");
}
