// toolgate.lock: pins each tool's descriptor digest. A pinned tool whose digest changed is
// refused `descriptor_changed`, a tool missing from an existing lock `descriptor_unpinned`,
// each naming what changed, until `toolgate tools --lock` renews the lock. Pure but for I/O
// at the edges (read/write are separate functions).
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { Refusal } from "../result/result.ts";
import { canonicalJson, sha256Hex } from "./canonical.ts";
import type { Descriptor } from "./catalog.ts";

export const LOCK_NAME = "toolgate.lock";

export interface LockEntry {
  readonly digest: string;
  readonly origin: string;
  readonly effect: string;
  /** sha256 of the canonical input schema, so a refusal can say *what* changed. */
  readonly schema: string;
  /** sha256 of the description (absent in locks written before it was part of the digest). */
  readonly description?: string;
}

export interface Lock {
  readonly version: 1;
  readonly tools: Readonly<Record<string, LockEntry>>;
}

export const lockEntry = (d: Descriptor): LockEntry => ({
  digest: d.digest,
  origin: d.origin,
  effect: d.effect,
  schema: sha256Hex(canonicalJson(d.inputSchema)),
  description: sha256Hex(d.description),
});

/** Stable text: tools sorted by name, two-space JSON, trailing newline. */
export function renderLock(descriptors: readonly Descriptor[]): string {
  const tools: Record<string, LockEntry> = {};
  for (const d of [...descriptors].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)))
    tools[d.name] = lockEntry(d);
  return `${JSON.stringify({ version: 1, tools }, null, 2)}\n`;
}

/** Refusals per tool name for this catalog under `lock` (empty when everything matches). */
export function checkLock(lock: Lock, descriptors: readonly Descriptor[]): Map<string, Refusal> {
  const out = new Map<string, Refusal>();
  const renew = "review the change, then renew the lock with `toolgate tools --lock`";
  for (const d of descriptors) {
    const pinned = lock.tools[d.name];
    if (!pinned) {
      out.set(d.name, {
        code: "descriptor_unpinned",
        message: `${d.name} (${d.origin}) is not in toolgate.lock; ${renew}`,
      });
      continue;
    }
    if (pinned.digest === d.digest) continue;
    const now = lockEntry(d);
    const what: string[] = [];
    if (pinned.origin !== now.origin) what.push(`origin ${pinned.origin} → ${now.origin}`);
    if (pinned.effect !== now.effect) what.push(`effect ${pinned.effect} → ${now.effect}`);
    if (pinned.schema !== now.schema) what.push("input schema changed");
    if (pinned.description !== undefined && pinned.description !== now.description) what.push("description changed");
    // The digest also covers what runs (an authored tool's manifest, command and the workspace files
    // its arguments name; a server's command line, env as written and the files it names, or URL).
    if (what.length === 0)
      what.push(
        pinned.description === undefined
          ? "descriptor changed (or the lock predates the digest covering descriptions and executables)"
          : "what runs changed (manifest, command, a file the command names, or the server's command line, env or URL)",
      );
    out.set(d.name, {
      code: "descriptor_changed",
      message:
        `${d.name}: ${what.join(", ")} (pinned ${pinned.digest.slice(0, 12)}, now ` +
        `${d.digest.slice(0, 12)}); ${renew}`,
      details: { pinned: pinned.digest, current: d.digest },
    });
  }
  return out;
}

/** Reads a lock; null when there is none. A malformed lock is an error the caller reports (exit 5). */
export function readLock(path: string): Lock | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    // A folder of that name is what a product sandbox holds a missing lock with while it runs.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EISDIR") return null;
    throw new Error(`${path} cannot be read: ${(e as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`${path} is not valid JSON (${(e as Error).message}); renew it with \`toolgate tools --lock\``);
  }
  const tools = (data as { version?: unknown; tools?: unknown })?.tools;
  if (
    (data as { version?: unknown })?.version !== 1 ||
    tools === null ||
    typeof tools !== "object" ||
    Array.isArray(tools)
  ) {
    throw new Error(
      `${path} is not a toolgate lock (expected {"version":1,"tools":{...}}); renew it with \`toolgate tools --lock\``,
    );
  }
  for (const [name, e] of Object.entries(tools as Record<string, unknown>)) {
    const x = e as Partial<LockEntry>;
    if (
      typeof x?.digest !== "string" ||
      typeof x.origin !== "string" ||
      typeof x.effect !== "string" ||
      typeof x.schema !== "string" ||
      (x.description !== undefined && typeof x.description !== "string")
    ) {
      throw new Error(
        `${path}: tools.${name} must hold digest, origin, effect and schema strings (and optionally ` +
          `description); renew it with \`toolgate tools --lock\``,
      );
    }
  }
  return data as Lock;
}

/** Atomic: a temporary file beside the lock, then rename. */
export function writeLock(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o644 });
  renameSync(tmp, path);
}
