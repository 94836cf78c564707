// What a task's supervisor may answer where its foreground was asked: yes to exactly a need the
// foreground granted, at the value it was granted as, for this tool or its own server's start.
import { describe, expect, test } from "bun:test";
import { admittedAnswers } from "../../src/tasks/request.ts";

const ask = (kind: "run" | "read", value: string, reason: string) => ({
  kind,
  value,
  reason,
  flag: `--allow-${kind}=${value}`,
});

describe("admittedAnswers", () => {
  const grants = [
    { need: { kind: "run" as const, value: "/usr/bin/bun" }, value: "/usr/lib/bun/bun.exe" },
    { need: { kind: "read" as const, value: "a.txt" }, value: undefined },
  ];

  test("yes to a granted need at its granted value, asked for the tool or its own server's start", () => {
    const answer = admittedAnswers({ tool: "x__weather", origin: "mcp:x", grants });
    expect(answer(ask("run", "/usr/lib/bun/bun.exe", "mcp.connect:x"))).toBe("y");
    expect(answer(ask("run", "/usr/lib/bun/bun.exe", "x__weather"))).toBe("y");
    expect(answer(ask("read", "a.txt", "x__weather"))).toBe("y");
  });

  test("no to another value, another kind, another server's start or another tool; never all", () => {
    const answer = admittedAnswers({ tool: "x__weather", origin: "mcp:x", grants });
    expect(answer(ask("run", "/usr/bin/bun", "mcp.connect:x"))).toBe("n");
    expect(answer(ask("read", "/usr/lib/bun/bun.exe", "mcp.connect:x"))).toBe("n");
    expect(answer(ask("run", "/usr/lib/bun/bun.exe", "mcp.connect:y"))).toBe("n");
    expect(answer(ask("run", "/usr/lib/bun/bun.exe", "bash"))).toBe("n");
    expect(
      admittedAnswers({ tool: "bash", origin: "builtin", grants })(ask("run", "/usr/lib/bun/bun.exe", "mcp.connect:x")),
    ).toBe("n");
    expect(
      admittedAnswers({ tool: "las__echo", origin: "las", grants })(
        ask("run", "/usr/lib/bun/bun.exe", "mcp.connect:las"),
      ),
    ).toBe("y");
  });
});
