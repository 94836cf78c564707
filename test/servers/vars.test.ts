import { describe, expect, test } from "bun:test";
import { expandVars, fillVars, parseEnvFile } from "../../src/servers/vars.ts";

const ctx = { parent: { TOKEN: "tok-123", HOME: "/home/u", EMPTY: "" }, workspace: "/ws" };

describe("expandVars", () => {
  test.each([
    ["plain", { template: "plain", bound: {}, names: [] }],
    ["Bearer ${TOKEN}", { template: "Bearer ${TOKEN}", bound: { TOKEN: "tok-123" }, names: ["TOKEN"] }],
    ["${env:TOKEN}/${TOKEN}", { template: "${TOKEN}/${TOKEN}", bound: { TOKEN: "tok-123" }, names: ["TOKEN"] }],
    ["${TOKEN:-none}", { template: "${TOKEN}", bound: { TOKEN: "tok-123" }, names: ["TOKEN"] }],
    ["--port=${PORT:-8080}", { template: "--port=8080", bound: {}, names: [] }],
    ["${MISSING:-}", { template: "", bound: {}, names: [] }],
    ["${workspaceFolder}/src:${userHome}/.cache", { template: "/ws/src:/home/u/.cache", bound: {}, names: [] }],
    ["cost $5 and $HOME", { template: "cost $5 and $HOME", bound: {}, names: [] }],
  ])("%p", (raw, want) => {
    expect(expandVars(raw, ctx)).toEqual({ ok: true, ...want });
  });

  test.each([
    [
      "${MISSING}",
      "${MISSING} takes MISSING from the environment, and MISSING is not set (set it, or give a default: ${MISSING:-value})",
    ],
    [
      "${env:MISSING}",
      "${env:MISSING} takes MISSING from the environment, and MISSING is not set (set it, or give a default: ${MISSING:-value})",
    ],
    [
      "${input:api-key}",
      "${input:api-key} is not a variable toolgate knows (write ${NAME}, ${NAME:-default}, ${env:NAME}, ${workspaceFolder} or ${userHome})",
    ],
    [
      "${}",
      "${} is not a variable toolgate knows (write ${NAME}, ${NAME:-default}, ${env:NAME}, ${workspaceFolder} or ${userHome})",
    ],
    [
      "x ${TOKEN",
      '"${TOKEN" opens a variable and never closes it (write ${NAME}, ${NAME:-default}, ${env:NAME}, ${workspaceFolder} or ${userHome})',
    ],
  ])("%p is refused", (raw, problem) => {
    expect(expandVars(raw, ctx)).toEqual({ ok: false, problem });
  });

  test("${userHome} without HOME is refused", () => {
    expect(expandVars("${userHome}", { parent: {}, workspace: "/ws" })).toEqual({
      ok: false,
      problem: "${userHome} is used and HOME is not set",
    });
  });

  test("fillVars puts bound values in and leaves others", () => {
    expect(fillVars("Bearer ${TOKEN} ${OTHER}", { TOKEN: "tok-123" })).toBe("Bearer tok-123 ${OTHER}");
  });
});

describe("parseEnvFile", () => {
  test("KEY=VALUE lines, export, comments, quotes", () => {
    expect(parseEnvFile("# c\n\nA=1\nexport B = two words # note\nC=\"quoted # kept\"\nD='x'\r\nE=\n")).toEqual({
      ok: true,
      values: { A: "1", B: "two words", C: "quoted # kept", D: "x", E: "" },
    });
  });
  test("a line that is not KEY=VALUE names its line", () => {
    expect(parseEnvFile("A=1\nnot a pair\n")).toEqual({ ok: false, problem: "line 2 is not KEY=VALUE" });
  });
});
