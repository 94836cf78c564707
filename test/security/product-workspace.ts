// The workspace the sandbox attacks run in: a committed git repository asking for the product
// sandbox (a narrowing key, so fine untrusted).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../fixtures/gates/make-repo.ts";

export function productWorkspace(path: string): string {
  const ws = join(path, "ws");
  mkdirSync(ws);
  writeFileSync(join(ws, "toolgate.json"), '{"sandbox":"product"}\n');
  git(ws, "init", "-q", "-b", "main");
  git(ws, "add", "-A");
  git(ws, "commit", "-q", "-m", "fixture");
  return ws;
}
