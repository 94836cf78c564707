import { describe, expect, test } from "bun:test";
import { findInertKey } from "../../src/config/inert.ts";

describe("findInertKey", () => {
  test.each([
    [{}],
    [{ rails: { require: false } }],
    [{ rails: { require: true, required: true } }],
    [{ most: { service_token_file: "t", url: "http://x" } }],
    [{ most: {}, delegation: {}, profiles: {}, boundary: {} }],
    [{ permissions: {}, sandbox: "product" }],
    [{ profiles: { mine: { include: ["file_*"] } } }],
    [{ delegation: { command: ["a", "{objective}", "{server}"], worktree_root: "w" } }],
  ])("%j sets nothing inert", (data) => expect(findInertKey(data)).toBeNull());
});
