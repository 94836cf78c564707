// When telemetry is on, read from the standard OTEL_* variables only, without loading any OTel module.
import { describe, expect, test } from "bun:test";
import { endpointView, telemetrySettings } from "../../src/telemetry/env.ts";
import { readSpansEnv, spansEnv, telemetryFor } from "../../src/telemetry/telemetry.ts";

describe("telemetry settings", () => {
  test("off unless an endpoint is set; OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn it off", () => {
    expect(telemetrySettings({})).toEqual({ on: false });
    expect(
      telemetrySettings({
        OTEL_SERVICE_NAME: "x",
        TRACEPARENT: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      }),
    ).toEqual({ on: false });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "TRUE" })).toEqual({
      on: false,
    });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" })).toEqual({
      on: false,
    });
    expect(
      telemetryFor({}, "one-shot", () => {
        throw new Error("nothing to say");
      }),
    ).toBeUndefined();
  });

  test("the generic endpoint gets v1/traces, the traces endpoint is used as given; protobuf by default; header names only", () => {
    expect(
      telemetrySettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_EXPORTER_OTLP_HEADERS: "X-Key=secret,other=2",
      }),
    ).toEqual({
      on: true,
      endpoint: "http://c:4318/v1/traces",
      endpointVar: "OTEL_EXPORTER_OTLP_ENDPOINT",
      protocol: "http/protobuf",
      headerNames: ["other", "x-key"],
      serviceName: "toolgate",
    });
    expect(
      telemetrySettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "https://c/otlp/",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://t/in",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "ci",
      }),
    ).toMatchObject({
      endpoint: "https://t/in",
      endpointVar: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
      protocol: "http/json",
      serviceName: "ci",
    });
  });

  test.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" }, "OTEL_EXPORTER_OTLP_ENDPOINT is not a URL"],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://c" }, "is not an http:// or https:// URL"],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
      'OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not supported',
    ],
  ])("%j is off, saying why in one line", (env, why) => {
    const lines: string[] = [];
    expect(telemetryFor(env, "live", (l) => void lines.push(l))).toBeUndefined();
    expect(lines).toEqual([expect.stringContaining(why)]);
  });

  test("the endpoint as shown has no user name, password or query", () => {
    expect(endpointView("https://user:pw@c.example:4318/v1/traces?key=k")).toBe("https://c.example:4318/v1/traces?…");
  });

  test("span records travel to the reaper in its environment, split when long", () => {
    const records = Array.from({ length: 400 }, (_, i) => ({
      traceId: "t".repeat(32),
      spanId: String(i).padStart(16, "0"),
      sampled: true,
      name: "execute_tool x",
      start: 1,
      end: 2,
      attributes: { "toolgate.lane": "l".repeat(300) },
    }));
    const env = spansEnv(records);
    expect(Object.keys(env).length).toBeGreaterThan(1);
    expect(Object.values(env).every((v) => v.length <= 100_000)).toBe(true);
    expect(readSpansEnv(env)).toEqual(records);
    expect(readSpansEnv({ TOOLGATE_REAP_SPANS: "not json" })).toEqual([]);
  });
});
