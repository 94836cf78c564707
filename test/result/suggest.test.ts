import { describe, expect, test } from "bun:test";
import { didYouMean, editDistance, nearest } from "../../src/result/suggest.ts";

describe("editDistance", () => {
  test.each([
    ["", "", 0],
    ["", "abc", 3],
    ["abc", "", 3],
    ["read", "read", 0],
    ["raed", "read", 1], // a swap of neighbours is one edit
    ["cal", "call", 1],
    ["aprove", "approve", 1],
    ["limt", "limit", 1],
    ["sandbx", "sandbox", 1],
    ["kitten", "sitting", 3],
    ["ca", "abc", 3], // optimal string alignment: a swapped pair is not edited again
  ])("%p to %p is %p", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

const TOOLS = ["file_read", "file_edit", "file_write", "file_find", "file_search", "bash", "dev_check", "plan", "desk"];
const COMMANDS = ["call", "tools", "config", "log", "trust", "serve", "session", "tasks", "auth", "version"];

describe("nearest", () => {
  test.each([
    ["a swapped pair", "file_raed", TOOLS, "file_read"],
    ["a missing letter", "cal", COMMANDS, "call"],
    ["an extra letter", "toolss", COMMANDS, "tools"],
    ["another case", "FILE_READ", TOOLS, "file_read"],
    ["the same words in another order", "read_file", TOOLS, "file_read"],
    ["two edits in a long name", "dev_chekk", TOOLS, "dev_check"],
    ["the closest of several", "file_writ", TOOLS, "file_write"],
    ["a flag", "allow-reed", ["allow-read", "allow-write", "deny-read"], "allow-read"],
    ["a config key", "comand", ["type", "command", "args", "env"], "command"],
    ["an argument key", "limt", ["path", "offset", "limit"], "limit"],
    ["the first of a tie", "bas", ["bar", "baz"], "bar"],
  ])("%s: %p", (_what, name, candidates, want) => {
    expect(nearest(name as string, candidates as string[])).toBe(want as string);
  });

  test.each([
    ["a far-off name", "frobnicate", COMMANDS],
    ["too many edits for a short name", "fil", ["file_read"]],
    ["a whole replacement", "x", ["y"]],
    ["another word after a shared prefix", "file_xyz", TOOLS],
    ["no candidates", "file_read", []],
    ["only the name itself", "file_read", ["file_read"]],
    ["one word in another order is no word order", "read", ["dear"]],
  ])("%s: %p gets none", (_what, name, candidates) => {
    expect(nearest(name as string, candidates as string[])).toBeUndefined();
  });
});

describe("didYouMean", () => {
  test.each([
    [undefined, undefined, ""],
    ["file_read", undefined, '; did you mean "file_read"?'],
    ["approve", (s: string) => `--${s}`, "; did you mean --approve?"],
  ])("%p", (suggestion, show, want) => {
    expect(didYouMean(suggestion, show)).toBe(want);
  });
});
