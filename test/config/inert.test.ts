import { describe, expect, test } from "bun:test";
import { findInertKey } from "../../src/config/inert.ts";

describe("findInertKey", () => {
  test.each([
    [{ delegation: { worktree_root: "w" } }, ["delegation", "worktree_root"]],
  ])("%j sets %j", (data, path) => expect(findInertKey(data)?.path).toEqual(path));

  test.each([[{}], [{ rails: { require: false } }], [{ rails: { require: true, required: true } }], [{ most: { service_token_file: "t", url: "http://x" } }], [{ most: {}, delegation: {}, profiles: {}, boundary: {} }], [{ permissions: {}, sandbox: "product" }], [{ profiles: { mine: { include: ["file_*"] } } }]])(
    "%j sets nothing inert",
    (data) => expect(findInertKey(data)).toBeNull(),
  );
});
