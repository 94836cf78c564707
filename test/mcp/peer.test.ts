// Routing a server's requests to the call in flight: the only one is asked; none, several, a
// non-form mode or a peer that cannot ask means declined; sampling goes only to a peer that relays.
// A log message goes to the call its request's stream ties it to, else to the calls in flight when
// they are one owner's; with several owners' calls in flight and no tie it is nobody's.
import { describe, expect, test } from "bun:test";
import { Peers, type ElicitAnswer, type Peer } from "../../src/mcp/peer.ts";

const signal = new AbortController().signal;
const form = { message: "m", requestedSchema: { type: "object", properties: {} } };

function recording(answer?: ElicitAnswer): Peer & { outcomes: string[] } {
  const outcomes: string[] = [];
  return {
    outcomes,
    elicited: (o, why) => void outcomes.push(why ? `${o}: ${why}` : o),
    ...(answer ? { elicit: async () => answer } : {}),
  };
}

describe("Peers.elicit", () => {
  test("the one call in flight answers, and hears how it ended", async () => {
    const peers = new Peers();
    const p = recording({ action: "accept", content: { a: 1 } });
    const call = peers.enter(p);
    expect(await peers.elicit(form, signal)).toEqual({ action: "accept", content: { a: 1 } });
    call.leave();
    expect(await peers.elicit(form, signal)).toEqual({ action: "decline" });
    expect(p.outcomes).toEqual(["accept"]);
  });

  test("several calls in flight: nobody is asked", async () => {
    const peers = new Peers();
    const a = recording({ action: "accept", content: {} });
    peers.enter(a);
    peers.enter(recording({ action: "accept", content: {} }));
    expect(await peers.elicit(form, signal)).toEqual({ action: "decline" });
    expect(a.outcomes).toEqual([]);
  });

  test("a peer that cannot ask, a URL-mode request, an asking that throws: declined, with why", async () => {
    const peers = new Peers();
    const mute = recording();
    const call = peers.enter(mute);
    expect(await peers.elicit(form, signal)).toEqual({ action: "decline" });
    expect(await peers.elicit({ mode: "url", url: "https://x.test", message: "m" }, signal)).toEqual({
      action: "decline",
    });
    call.leave();
    const broken: Peer & { outcomes: string[] } = {
      ...recording(),
      elicit: async () => Promise.reject(new Error("tty gone")),
    };
    peers.enter(broken);
    expect(await peers.elicit(form, signal)).toEqual({ action: "decline" });
    expect([mute.outcomes, broken.outcomes]).toEqual([
      ["decline", "decline: only form elicitations are supported"],
      ["decline: tty gone"],
    ]);
  });
});

describe("Peers.sample", () => {
  test("relayed by a peer that can; otherwise refused naming why", async () => {
    const peers = new Peers();
    await expect(peers.sample({}, signal)).rejects.toThrow(
      "toolgate holds no model, so it cannot answer sampling/createMessage (no call of toolgate's is in flight on this connection); the request is declined",
    );
    const call = peers.enter({});
    await expect(peers.sample({}, signal)).rejects.toThrow(
      "toolgate holds no model, so it cannot answer sampling/createMessage and the caller cannot relay it; the request is declined",
    );
    call.leave();
    peers.enter({ sample: async (p) => ({ echoed: p }) });
    expect(await peers.sample({ x: 1 }, signal)).toEqual({ echoed: { x: 1 } });
  });
});

describe("Peers.log", () => {
  const alice = {};
  const bob = {};
  const line = { level: "info", data: "asked for private doc x" };
  function listening(owner?: object): Peer & { got: unknown[] } {
    const got: unknown[] = [];
    return { got, ...(owner ? { owner } : {}), log: (p) => void got.push(p) };
  }

  test("no call in flight: outside any call (the session's listener has it)", () => {
    expect(new Peers().log(line)).toBe("outside");
  });

  test("calls of one owner in flight: theirs, shown once; a call that cannot show it keeps it from everyone else", () => {
    const peers = new Peers();
    const a1 = listening(alice);
    const a2 = listening(alice);
    const one = peers.enter(a1);
    peers.enter(a2);
    expect(peers.log(line)).toBe("call");
    expect([a1.got, a2.got]).toEqual([[line], []]);
    one.leave();
    expect(peers.log(line)).toBe("call");
    expect(a2.got).toEqual([line]);
    const mute = new Peers();
    mute.enter({ owner: alice });
    expect(mute.log(line)).toBe("call");
  });

  test("calls of two owners in flight and nothing tying it: nobody's (unclear), shown to neither; calls without an owner are each their own", () => {
    const peers = new Peers();
    const a = listening(alice);
    const b = listening(bob);
    peers.enter(a);
    peers.enter(b);
    expect(peers.log(line)).toBe("unclear");
    const ownerless = new Peers();
    const x = listening();
    const y = listening();
    ownerless.enter(x);
    ownerless.enter(y);
    expect(ownerless.log(line)).toBe("unclear");
    expect([a.got, b.got, x.got, y.got]).toEqual([[], [], [], []]);
  });

  test("tied to a request: that call's, whoever else is in flight; tied to a call that is over: nobody's", () => {
    const peers = new Peers();
    const a = listening(alice);
    const b = listening(bob);
    peers.enter(a).id = 7;
    const gone = peers.enter(b);
    gone.id = "8";
    expect(peers.log(line, "8")).toBe("call");
    expect(peers.log(line, 7)).toBe("call");
    gone.leave();
    expect(peers.log(line, "8")).toBe("call");
    expect([a.got, b.got]).toEqual([[line], [line]]);
  });
});
