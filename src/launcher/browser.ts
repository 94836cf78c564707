// Opens a URL in the user's browser when there is one ($BROWSER, else xdg-open or open on PATH),
// never waiting for it and never required: the caller prints the URL first.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { spawnChild } from "./spawn.ts";

/** The program that would open a URL, or null: a headless machine has none. */
export function browserCommand(env: Readonly<Record<string, string | undefined>>): string[] | null {
  const b = env.BROWSER?.trim();
  if (b) return b.split(/\s+/);
  const graphical = env.DISPLAY || env.WAYLAND_DISPLAY || process.platform === "darwin";
  if (!graphical) return null;
  for (const name of process.platform === "darwin" ? ["open"] : ["xdg-open"]) {
    for (const dir of (env.PATH ?? "").split(":").filter((d) => d.startsWith("/"))) {
      if (existsSync(join(dir, name))) return [join(dir, name)];
    }
  }
  return null;
}

/** What a browser needs of the user's desktop session; nothing else of toolgate's environment (its secrets). */
const DESKTOP = [
  "PATH",
  "HOME",
  "USER",
  "LANG",
  "LC_ALL",
  "BROWSER",
  "DISPLAY",
  "WAYLAND_DISPLAY",
  "XAUTHORITY",
  "XDG_RUNTIME_DIR",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_CURRENT_DESKTOP",
  "DBUS_SESSION_BUS_ADDRESS",
];

export function browserEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of DESKTOP) if (env[k] !== undefined) out[k] = env[k]!;
  return out;
}

/** Starts the browser on `url` (not waited for, output ignored, cwd /); whether one was started. */
export function openBrowser(url: string, env: Readonly<Record<string, string | undefined>>): boolean {
  const cmd = browserCommand(env);
  if (!cmd) return false;
  try {
    const child = spawnChild({
      argv: [...cmd, url],
      cwd: "/",
      env: browserEnv(env),
      stdio: ["ignore", "ignore", "ignore"],
      session: "same",
    });
    child.unref();
    return true;
  } catch {
    return false;
  }
}
