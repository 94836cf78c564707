// The README's test command on a machine that lacks what the suite needs and cannot install it
// (not root): it stops at once naming the Debian packages, before installing or building anything.
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../helpers.ts";

/** A PATH holding only `have` (linked from the real ones), an `id` that says uid 1000, and a `bun` that records any use. */
function bareBin(dir: string, have: readonly string[]): string {
  const bin = join(dir, "bin");
  mkdirSync(bin);
  for (const c of have) symlinkSync(Bun.which(c)!, join(bin, c));
  writeFileSync(join(bin, "id"), "#!/bin/sh\necho 1000\n");
  writeFileSync(join(bin, "bun"), `#!/bin/sh\necho "$@" >> ${join(dir, "bun-used")}\n`);
  chmodSync(join(bin, "id"), 0o755);
  chmodSync(join(bin, "bun"), 0o755);
  return bin;
}

test("not root and packages missing: exit 1 naming each package once, nothing installed or built", async () => {
  await using d = tempDir();
  const bin = bareBin(d.path, [
    "dirname",
    "script",
    "setpriv",
    "unshare",
    "ip",
    "openssl",
    "perl",
    "git",
    "pgrep",
    "patch",
    "jq",
    "zsh",
    "fish",
    "qemu-aarch64-static",
    "chromium",
  ]);
  const p = Bun.spawnSync(["/bin/sh", join(ROOT, "scripts", "test.sh")], {
    env: { PATH: bin },
    stdout: "pipe",
    stderr: "pipe",
  });
  const err = p.stderr.toString();
  expect(p.exitCode).toBe(1);
  expect(err).toContain("the suite needs these Debian packages, which are missing: bubblewrap ripgrep strace\n");
  expect(err).toContain("apt-get install -y bubblewrap ripgrep strace");
  expect(await Bun.file(join(d.path, "bun-used")).exists()).toBe(false);
});

test("util-linux is named once though three of its programs are missing", async () => {
  await using d = tempDir();
  const bin = bareBin(d.path, [
    "dirname",
    "bwrap",
    "rg",
    "ip",
    "openssl",
    "perl",
    "strace",
    "git",
    "pgrep",
    "patch",
    "jq",
    "zsh",
    "fish",
    "qemu-aarch64-static",
    "chromium",
  ]);
  const p = Bun.spawnSync(["/bin/sh", join(ROOT, "scripts", "test.sh")], {
    env: { PATH: bin },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(p.exitCode).toBe(1);
  expect(p.stderr.toString()).toContain("which are missing: util-linux\n");
});
