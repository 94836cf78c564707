// The platforms toolgate ships to, and the npm packages that carry them: `toolgate`, a few lines of
// launcher with one optional dependency per platform, and `@toolgate/<platform>`, each holding its
// binary with the `os`, `cpu` (and `libc`) fields npm installs it by. No install script anywhere:
// npm picks the one package this machine can run, and the launcher execs its binary.

export interface Target {
  /** What `toolgate version` prints as the target, and the release file's suffix. */
  readonly name: string;
  /** Bun's compile target. */
  readonly bun: string;
  /** The file in dist/release/. */
  readonly file: string;
  /** The npm package's folder in dist/npm/ and its name after @toolgate/. */
  readonly npm: string;
  readonly os: string;
  readonly cpu: string;
  readonly libc?: "glibc" | "musl";
}

const target = (os: "linux" | "darwin" | "windows", cpu: "x64" | "arm64", libc?: "glibc" | "musl"): Target => {
  const name = `${os}-${cpu}${libc === "musl" ? "-musl" : ""}`;
  const npmOs = os === "windows" ? "win32" : os;
  return {
    name,
    bun: `bun-${name}`,
    file: `toolgate-${name}${os === "windows" ? ".exe" : ""}`,
    npm: `${npmOs}-${cpu}${libc === "musl" ? "-musl" : ""}`,
    os: npmOs,
    cpu,
    ...(libc ? { libc } : {}),
  };
};

export const TARGETS: readonly Target[] = [
  target("linux", "x64", "glibc"),
  target("linux", "arm64", "glibc"),
  target("linux", "x64", "musl"),
  target("linux", "arm64", "musl"),
  target("darwin", "arm64"),
  target("darwin", "x64"),
  target("windows", "x64"),
];

/**
 * The launcher: finds this platform's package (musl told apart by the C library Node itself runs
 * on) and runs its binary with the same arguments, standard streams and exit code.
 */
export const LAUNCHER = `#!/usr/bin/env node
// toolgate's npm launcher: runs the binary of the @toolgate/<platform> package npm installed for this machine.
"use strict";
const { spawnSync } = require("node:child_process");
const { platform, arch } = process;
const header = platform === "linux" && process.report ? process.report.getReport().header : {};
const musl = platform === "linux" && !header.glibcVersionRuntime;
const pkg = \`@toolgate/\${platform}-\${arch}\${musl ? "-musl" : ""}\`;
let bin;
try {
  bin = require.resolve(\`\${pkg}/bin/toolgate\${platform === "win32" ? ".exe" : ""}\`);
} catch {
  console.error(\`toolgate: \${pkg} is not installed: npm installs it as an optional dependency of toolgate on \${platform}-\${arch}\${musl ? " (musl)" : ""}; it was skipped (--omit=optional?) or this platform has no build\`);
  process.exit(1);
}
const r = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (r.error) {
  console.error(\`toolgate: cannot run \${bin}: \${r.error.message}\`);
  process.exit(1);
}
if (r.signal) process.kill(process.pid, r.signal);
process.exit(r.status === null ? 1 : r.status);
`;

export interface NpmPackage {
  readonly folder: string;
  /** Path in the package → its text, or a file to copy. */
  readonly files: Readonly<Record<string, string | { readonly copy: string }>>;
}

export function npmPackages(
  version: string,
  built: readonly { readonly target: Target; readonly file: string }[],
): NpmPackage[] {
  const launcher: NpmPackage = {
    folder: "toolgate",
    files: {
      "package.json": `${JSON.stringify(
        {
          name: "toolgate",
          version,
          description:
            "One executable between a caller and every tool it may use: catalog, permissions, approval, output boundary, journal.",
          bin: { toolgate: "bin/toolgate.js" },
          files: ["bin/toolgate.js"],
          optionalDependencies: Object.fromEntries(TARGETS.map((t) => [`@toolgate/${t.npm}`, version])),
        },
        null,
        2,
      )}\n`,
      "bin/toolgate.js": LAUNCHER,
    },
  };
  const platforms = built.map(({ target: t, file }): NpmPackage => {
    const bin = `bin/toolgate${t.os === "win32" ? ".exe" : ""}`;
    return {
      folder: t.npm,
      files: {
        "package.json": `${JSON.stringify(
          {
            name: `@toolgate/${t.npm}`,
            version,
            description: `toolgate's binary for ${t.name}`,
            os: [t.os],
            cpu: [t.cpu],
            ...(t.libc ? { libc: [t.libc] } : {}),
            files: [bin],
            preferUnplugged: true,
          },
          null,
          2,
        )}\n`,
        [bin]: { copy: file },
      },
    };
  });
  return [launcher, ...platforms];
}
