// W3C trace context as toolgate reads it (TRACEPARENT, a client's _meta) and the ids it makes.
import { describe, expect, test } from "bun:test";
import { formatTraceparent, newSpanId, newTraceId, parseTraceparent } from "../../src/telemetry/context.ts";

describe("traceparent", () => {
  test("a version-00 header is read, with its sampled flag and a valid tracestate", () => {
    expect(
      parseTraceparent(
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
        "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
      ),
    ).toEqual({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      sampled: false,
      remote: true,
      traceState: "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
    });
    expect(parseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-later")?.sampled).toBe(
      true,
    );
  });

  test.each([
    ["not a string", 42],
    ["version ff", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"],
    ["trailing data on version 00", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x"],
    ["an all-zero trace id", `00-${"0".repeat(32)}-00f067aa0ba902b7-01`],
    ["an all-zero span id", `00-4bf92f3577b34da6a3ce929d0e0e4736-${"0".repeat(16)}-01`],
    ["upper case", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"],
    ["a short id", "00-4bf92f3577b34da6-00f067aa0ba902b7-01"],
  ])("%s is ignored", (_what, header) => {
    expect(parseTraceparent(header)).toBeNull();
  });

  test("a tracestate that breaks the grammar or passes 512 characters is dropped, the parent kept", () => {
    const id = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    expect(parseTraceparent(id, "no equals sign")?.traceState).toBeUndefined();
    expect(parseTraceparent(id, `a=${"x".repeat(520)}`)?.traceState).toBeUndefined();
  });

  test("ids are random hex of the right length, formatted as a traceparent", () => {
    const [t, s] = [newTraceId(), newSpanId()];
    expect([t, s]).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/), expect.stringMatching(/^[0-9a-f]{16}$/)]);
    expect(newTraceId()).not.toBe(t);
    expect(parseTraceparent(formatTraceparent(t, s, true))).toEqual({
      traceId: t,
      spanId: s,
      sampled: true,
      remote: true,
    });
  });
});
