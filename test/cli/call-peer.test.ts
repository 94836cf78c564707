// `call`'s peer: the progress line's text, and what stderr says when nobody can be asked.
import { describe, expect, test } from "bun:test";
import { progressText, terminalPeer } from "../../src/cli/call-peer.ts";

describe("progressText", () => {
  test.each([
    [{ progress: 2, total: 3, message: "step 2" }, "⏳ t: 2/3 (67%) step 2"],
    [{ progress: 5 }, "⏳ t: 5"],
    [{ progress: 9, total: 4 }, "⏳ t: 9/4 (100%)"],
    [{ progress: 1, message: "\x1b[2Jwipe" }, "⏳ t: 1 \\u{1b}[2Jwipe"],
  ])("%o", (p, expected) => {
    expect(progressText("t", p)).toBe(expected);
  });
});

describe("terminalPeer", () => {
  const who = { tool: "s__t", server: "s" };

  test("nobody to ask: no elicit, a decline is explained on stderr; no progress when stderr is not a terminal", () => {
    const err: string[] = [];
    const t = terminalPeer({ ask: false, progress: false, err: (x) => void err.push(x) });
    const peer = t.peer(who);
    expect([peer.elicit, peer.progress]).toEqual([undefined, undefined]);
    peer.elicited!("decline");
    expect(err).toEqual([
      'toolgate: MCP server "s" asked for input during s__t (elicitation); declined: nobody can be asked here (no terminal, CI, or --no-prompt)\n',
    ]);
  });

  test("progress on a terminal: each step replaces the line, finish() clears it once", () => {
    const err: string[] = [];
    const t = terminalPeer({ ask: false, progress: true, err: (x) => void err.push(x) });
    const peer = t.peer(who);
    peer.progress!({ progress: 1, total: 2 });
    peer.progress!({ progress: 2, total: 2 });
    t.finish();
    t.finish();
    expect(err).toEqual(["\r\x1b[2K⏳ s__t: 1/2 (50%)", "\r\x1b[2K⏳ s__t: 2/2 (100%)", "\r\x1b[2K"]);
  });

  test("a form the terminal cannot ask is refused with the reason (the session declines, saying it)", async () => {
    const t = terminalPeer({ ask: true, progress: false, err: () => {}, ttyPath: "/nonexistent/tty" });
    const form = { message: "m", requestedSchema: { type: "object", properties: { list: { type: "array" } } } };
    await expect(t.peer(who).elicit!(form, new AbortController().signal)).rejects.toThrow(
      'property "list" has type "array", which a terminal form does not ask',
    );
  });

  test("no terminal opens: the form is refused saying so (a decline with a reason), never a silent decline", async () => {
    const t = terminalPeer({ ask: true, progress: false, err: () => {}, ttyPath: "/nonexistent/tty" });
    const form = { message: "m", requestedSchema: { type: "object", properties: { name: { type: "string" } } } };
    await expect(t.peer(who).elicit!(form, new AbortController().signal)).rejects.toThrow(
      "no terminal could be opened to ask on",
    );
  });

  test("whyNot words the decline when nobody is asked (a call forwarded to a session)", () => {
    const err: string[] = [];
    const peer = terminalPeer({ ask: false, progress: false, err: (x) => void err.push(x), whyNot: "because" }).peer(
      who,
    );
    peer.elicited!("decline");
    expect(err).toEqual(['toolgate: MCP server "s" asked for input during s__t (elicitation); declined: because\n']);
  });
});
