import { describe, expect, test } from "bun:test";
import { expandTemplate, templateProblem } from "../../../src/tools/delegate/template.ts";

const server = ["/bin/toolgate", "serve", "--profile", "scout", "--child"];

describe("expandTemplate", () => {
  test("{server} splices the argv; {objective} is substituted inside an element, once", () => {
    expect(expandTemplate(["agent", "--task={objective}", "{server}", "end"], "find {server} uses", server)).toEqual([
      "agent",
      "--task=find {server} uses",
      ...server,
      "end",
    ]);
  });

  test("{mcp_config}, {server_command} and {server_args_json} give the same server as one string each", () => {
    expect(
      expandTemplate(["a", "{mcp_config}", "{server_command}", "{server_args_json}", "-p", "{objective}"], "o", server),
    ).toEqual([
      "a",
      JSON.stringify({
        mcpServers: { toolgate: { command: "/bin/toolgate", args: ["serve", "--profile", "scout", "--child"] } },
      }),
      "/bin/toolgate",
      JSON.stringify(["serve", "--profile", "scout", "--child"]),
      "-p",
      "o",
    ]);
  });
});

describe("templateProblem", () => {
  test.each([
    [["a", "{objective}", "{server}"], null],
    [["a", "-p", "{objective}", "--mcp-config", "{mcp_config}"], null],
    [["a", "{server}"], "names no {objective}: the child would not know its task"],
    [
      ["a", "{objective}"],
      "names none of {server}, {server_command}, {mcp_config}: the child could not reach its tools",
    ],
  ])("%j → %j", (cmd, problem) => expect(templateProblem(cmd)).toBe(problem));
});
