import { expect, test } from "bun:test";
import {
  grantsFromFlags,
  isFlagError,
  mergeGrants,
  parsePermissionFlag,
  type PermissionFlag,
} from "../../src/permission/flags.ts";

test.each([
  ["--allow-read", { effect: "allow", kind: "read", value: true }],
  ["--allow-read=a,b", { effect: "allow", kind: "read", value: ["a", "b"] }],
  ["--allow-write=/x,/x", { effect: "allow", kind: "write", value: ["/x"] }],
  ["--allow-run=bash,/usr/bin/git", { effect: "allow", kind: "run", value: ["bash", "/usr/bin/git"] }],
  ["--deny-net=host:443", { effect: "deny", kind: "net", value: ["host:443"] }],
  ["--allow-net=[::1]:8080,example.com", { effect: "allow", kind: "net", value: ["[::1]:8080", "example.com"] }],
  ["--deny-env", { effect: "deny", kind: "env", value: true }],
  ["--allow-env=AWS_*,HOME", { effect: "allow", kind: "env", value: ["AWS_*", "HOME"] }],
  ["-A", { effect: "allow", kind: "all", value: true }],
  ["--allow-all", { effect: "allow", kind: "all", value: true }],
  ["--allow-readx", null],
  ["--deny-all", null],
  ["--approve", null],
  ["file.txt", null],
])("%s", (token, expected) => {
  expect(parsePermissionFlag(token)).toEqual(expected as PermissionFlag | null);
});

test.each([
  ["--allow-read=", "empty item"],
  ["--allow-read=a,,b", "empty item"],
  ["--deny-write=a,", "empty item"],
  ["--allow-net=::1", "IPv6 goes in brackets"],
  ["--allow-net=host:99999", "not host or host:port"],
  ["--allow-net=http://x", "not host or host:port"],
  ["--allow-env=A=B", "not a variable name"],
  ["-A=1", "takes no value"],
  ["--allow-all=read", "takes no value"],
])("%s is reported, not thrown", (token, fragment) => {
  const parsed = parsePermissionFlag(token);
  expect(isFlagError(parsed)).toBe(true);
  expect(parsed).toMatchObject({ error: "permission.flag_invalid", flag: token });
  expect((parsed as { message: string }).message).toContain(fragment);
});

test("a malformed flag with control characters is reported escaped", () => {
  expect(parsePermissionFlag("--allow-net=\x1b[31m")).toMatchObject({ flag: "--allow-net=\\u{1b}[31m" });
});

test("flags become grants; -A allows every kind", () => {
  const flags = ["-A", "--deny-read=/etc", "--deny-read=/root"].map((t) => parsePermissionFlag(t) as PermissionFlag);
  expect(grantsFromFlags(flags)).toEqual({
    allow: { read: true, write: true, run: true, net: true, env: true },
    deny: { read: ["/etc", "/root"] },
  });
});

test("flags add to config grants and deny lists union", () => {
  const config = { allow: { read: ["/srv"], net: ["a.com"] }, deny: { read: ["/srv/secret"] } };
  const flags = grantsFromFlags(
    ["--allow-read=/tmp,/srv", "--allow-net", "--deny-read=/srv/keys", "--deny-env=AWS_*"].map(
      (t) => parsePermissionFlag(t) as PermissionFlag,
    ),
  );
  expect(mergeGrants(config, flags)).toEqual({
    allow: { read: ["/srv", "/tmp"], net: true },
    deny: { read: ["/srv/secret", "/srv/keys"], env: ["AWS_*"] },
    named: { read: ["/srv", "/tmp"], net: ["a.com"] },
  });
  // The inputs are not modified.
  expect(config.allow.read).toEqual(["/srv"]);
});

test("a flag's relative paths and program paths resolve against the caller's folder; names, hosts and absolute paths stay", () => {
  const flags = [
    "--allow-read=notes,/etc/hosts",
    "--deny-write=../secret",
    "--allow-run=./bin/x,bash",
    "--allow-net=example.com",
  ].map((f) => parsePermissionFlag(f) as PermissionFlag);
  const g = grantsFromFlags(flags, "/w/sub");
  expect(g.allow.read).toEqual(["/w/sub/notes", "/etc/hosts"]);
  expect(g.deny.write).toEqual(["/w/sub/../secret"]);
  expect(g.allow.run).toEqual(["/w/sub/./bin/x", "bash"]);
  expect(g.allow.net).toEqual(["example.com"]);
  expect(grantsFromFlags(flags).allow.read).toEqual(["notes", "/etc/hosts"]);
});
