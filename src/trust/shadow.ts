// A config found in a subfolder hides every toolgate.json above it (the search stops at the
// nearest), so a file the model or a clone put in `sub/` would silently drop the root config's
// sandbox, denies and approvals when toolgate runs from `sub/`. An untrusted nearer config that
// shadows another one up to the repository root fails the boot (exit 5); a trusted one is noted.
// So does an untrusted one inside a workspace toolgate has used: a command run there could have
// written it (control files protected where discovery would find them).
import { lstatSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { CONFIG_NAME, repositoryRoot, type ConfigFile } from "../config/file.ts";
import { bootError } from "../result/result.ts";

/**
 * The nearest toolgate.json above `file`'s folder, up to the repository root; null when none (or outside a
 * repository).
 */
export function shadowedConfig(configPath: string): string | null {
  const own = dirname(configPath);
  const top = repositoryRoot(own);
  if (top === null || own === top) return null;
  for (let dir = dirname(own); ; dir = dirname(dir)) {
    const candidate = join(dir, CONFIG_NAME);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // none here: go on up
    }
    if (dir === top || dirname(dir) === dir) return null;
  }
}

/**
 * The nearest folder above the config's own holding toolgate's state folder (`.toolgate`, a real
 * folder): a workspace toolgate has run commands in, any of which (a sandboxed one included: the
 * sandbox cannot keep a name free at every depth) could have written this config. Looked for up to
 * `/`, past any `.git`, which such a command can make as well.
 */
export function usedWorkspaceAbove(configPath: string): string | null {
  for (let dir = dirname(dirname(configPath)); ; dir = dirname(dir)) {
    try {
      const st = lstatSync(join(dir, STATE_NAME));
      if (st.isDirectory()) return dir;
    } catch {
      // none here: go on up
    }
    if (dirname(dir) === dir) return null;
  }
}

/** The state folder's default name: the mark of a workspace toolgate has used. */
const STATE_NAME = ".toolgate";

/**
 * Only configs found by the search shadow (--config and $TOOLGATE_CONFIG are chosen by name).
 * `trusted` is asked only when a shadowed file exists. Throws exit 5 when untrusted; returns the
 * note to show when trusted, else null.
 */
export function shadowGate(file: ConfigFile | null, trusted: () => boolean): string | null {
  if (file === null || file.via !== "search") return null;
  const above = shadowedConfig(file.path);
  if (above === null) {
    const used = usedWorkspaceAbove(file.path);
    if (used === null || trusted()) return null;
    throw bootError(
      `${file.path} is not trusted, and it lies inside ${used}, a workspace toolgate has run commands in ` +
        `(${join(used, STATE_NAME)}): a command run there could have written it, and run from here it would ` +
        `replace the config you use there, so toolgate will not use it`,
      `review it and run \`toolgate trust ${file.path}\`, pass the one you mean with --config FILE, run ` +
        `toolgate from ${used}, or remove ${file.path}`,
    );
  }
  if (trusted())
    return `using ${file.path}, which hides ${above} further up the repository (the nearest config is used, not merged)`;
  throw bootError(
    `${file.path} is not trusted, and it hides ${above} further up the repository: the nearest config ` +
      `replaces that one whole (its sandbox, denies and approvals), so toolgate will not use it`,
    `pass the one you mean with --config FILE, review it and run \`toolgate trust ${file.path}\`, or ` +
      `remove ${file.path}`,
  );
}
