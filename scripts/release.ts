// `bun run release`: one binary per platform in dist/release/ with SHA256SUMS, and the npm
// packages in dist/npm/ (a `toolgate` launcher package whose optional dependencies are one package
// per platform, each holding its binary). The host's own binary is dist/toolgate as scripts/build.ts
// made it (laid out by recorded runs, the program the tests ran); the others are cross-compiled
// from the same bundle with the same options, the runtime of each target fetched by Bun.
// `--only=TARGET[,TARGET]` builds those alone (a test builds the host's and linux-arm64).
import { $ } from "bun";
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { bundleOptions, COMPILE, commitOf, hostTarget } from "./bundle.ts";
import { npmPackages, TARGETS, type Target } from "./release-targets.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const only = process.argv
  .find((a) => a.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",");
const unknown = (only ?? []).filter((t) => !TARGETS.some((x) => x.name === t));
if (unknown.length > 0) {
  console.error(
    `release: unknown target ${unknown.join(", ")}; the targets are ${TARGETS.map((t) => t.name).join(", ")}`,
  );
  process.exit(2);
}
const targets = TARGETS.filter((t) => only === undefined || only.includes(t.name));
const out = join(root, "dist", "release");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// The host's binary first: built (or rebuilt) by the usual build, then copied as it is.
await $`bun ${root}/scripts/build.ts`;
const commit = commitOf(root);
const host = hostTarget();

async function compile(t: Target, outfile: string): Promise<void> {
  const result = await Bun.build({
    ...bundleOptions(root, { commit, target: t.name }),
    compile: { ...COMPILE, target: t.bun as Bun.Build.CompileTarget, outfile },
    minify: true,
    bytecode: true,
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    throw new Error(`release: ${t.name} did not build`);
  }
}

const built: { target: Target; file: string }[] = [];
for (const t of targets) {
  const file = join(out, t.file);
  const started = performance.now();
  if (t.name === host) copyFileSync(join(root, "dist", "toolgate"), file);
  else await compile(t, file);
  chmodSync(file, 0o755);
  built.push({ target: t, file });
  console.error(
    `release: ${t.file} (${(Bun.file(file).size / 1048576).toFixed(1)} MiB, ${Math.round(performance.now() - started)} ms)`,
  );
}

// SHA256SUMS in sha256sum's own format: `sha256sum -c SHA256SUMS` in dist/release/ checks it.
const sums = await Promise.all(
  built.map(
    async (b) =>
      `${new Bun.CryptoHasher("sha256").update(await Bun.file(b.file).arrayBuffer()).digest("hex")}  ${b.target.file}`,
  ),
);
writeFileSync(join(out, "SHA256SUMS"), `${sums.join("\n")}\n`);

const npmOut = join(root, "dist", "npm");
rmSync(npmOut, { recursive: true, force: true });
for (const p of npmPackages(pkg.version, built)) {
  const dir = join(npmOut, p.folder);
  for (const [name, file] of Object.entries(p.files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    if (typeof file === "string") writeFileSync(join(dir, name), file);
    else copyFileSync(file.copy, join(dir, name));
    if (name.startsWith("bin/")) chmodSync(join(dir, name), 0o755);
  }
}
console.error(
  `release: ${built.length} binaries and SHA256SUMS in dist/release/, npm packages in dist/npm/ (${pkg.version}, ${commit})`,
);
if (!existsSync(join(out, "SHA256SUMS"))) process.exit(1);
