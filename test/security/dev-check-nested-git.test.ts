// dev_check finds its repository with git from the gates
// directory, outside any sandbox. A product-sandboxed bash call can create a `.git` below the
// workspace's root (only the root's is held read-only), so with `gates.directory` naming that
// folder (a key an untrusted config may set inside the workspace) git found the planted
// repository and ran the clean filter its config names, as the caller. Git on a tree
// a sandboxed process could have written runs with the git folder fixed before it ran — a
// repository nested inside the workspace is refused, and the workspace's own is named on git's
// command line. The filter's marker lies outside the workspace, where the sandbox cannot write.
import { beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../fixtures/gates/make-repo.ts";
import { BIN, chownToNobody, json, run, runUnprivileged, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

test.each(["root", "nobody"] as const)(
  "as %s: a repository planted below the workspace by a sandboxed command runs nothing through dev_check",
  async (who) => {
    await using d = tempDir();
    chmodSync(d.path, 0o755);
    const ws = join(d.path, "ws");
    const out = join(d.path, "out");
    mkdirSync(join(ws, "gates"), { recursive: true });
    mkdirSync(out);
    const marker = join(out, "marker");
    writeFileSync(
      join(ws, "toolgate.json"),
      JSON.stringify({ sandbox: "product", gates: { directory: "gates", pattern: "check-*.sh" } }),
    );
    writeFileSync(join(ws, "gates", "check-ok.sh"), "echo gate ran\n");
    git(ws, "init", "-q", "-b", "main");
    git(ws, "add", "-A");
    git(ws, "commit", "-q", "-m", "fixture");
    if (who === "nobody") chownToNobody(d.path);
    const call = (args: string[]) =>
      who === "root" ? run(args, { cwd: ws, env: { HOME: d.path } }) : runUnprivileged(args, { cwd: ws });
    // The model's sandboxed command: a repository of its own in gates/, whose clean filter would write the marker.
    const plant = [
      "cd gates && git init -q",
      `git config filter.pwn.clean "sh -c 'echo filter > ${marker}; cat'"`,
      "printf '* filter=pwn\\n' > .gitattributes",
      "git -c filter.pwn.clean=cat add -A && git -c filter.pwn.clean=cat -c user.name=a -c user.email=a@b commit -qm x",
      "echo changed >> check-ok.sh && echo planted",
    ].join(" && ");
    const planted = json(
      await call([
        "call",
        "bash",
        JSON.stringify({ command: plant }),
        "--allow-run",
        "--allow-write",
        "--approve",
        "bash",
      ]),
    );
    expect([planted.status, planted.payload.sandbox, planted.payload.stdout.tail]).toEqual([
      "success",
      "product",
      "planted\n",
    ]);
    const r = json(
      await call(["call", "dev_check", '{"gate":"ok"}', "--allow-run=bash,git", "--approve", "dev_check"]),
    );
    expect([r.status, r.error_code]).toEqual(["failed", "dev_check.nested_repository"]);
    expect(r.message).toContain("gates/.git");
    expect([existsSync(marker), readdirSync(out)]).toEqual([false, []]);
  },
  60_000,
);
