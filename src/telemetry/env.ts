// Whether calls become OpenTelemetry spans, read from the user's environment only (the standard
// OTEL_* variables; a config file never names an endpoint: a repository's file could send the
// journal elsewhere). Light on purpose: no OTel module is loaded to answer, so a run without an
// endpoint pays nothing (the exporter, src/telemetry/export.ts, is imported only when this says on).

type Env = Readonly<Record<string, string | undefined>>;

export type Protocol = "http/protobuf" | "http/json";

export interface TelemetryOn {
  readonly on: true;
  /** The URL spans are POSTed to, and the variable it came from. */
  readonly endpoint: string;
  readonly endpointVar: string;
  readonly protocol: Protocol;
  /** Names of the headers the exporter sends (never their values). */
  readonly headerNames: readonly string[];
  readonly serviceName: string;
}

export interface TelemetryOff {
  readonly on: false;
  /** Why it is off when something was asked for but cannot be had (one stderr line); undefined: simply not set. */
  readonly problem?: string;
}

const val = (env: Env, name: string): string | undefined => {
  const v = env[name]?.trim();
  return v === undefined || v === "" ? undefined : v;
};

/** The variables the exporter reads (passed whole to the process that exports a one-shot call's spans). */
export const isOtelVar = (name: string): boolean => name.startsWith("OTEL_");

/**
 * On when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is set, unless
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. The generic endpoint gets `v1/traces`
 * appended, the traces one is used as it is (as the OTLP exporter specification says).
 */
export function telemetrySettings(env: Env): TelemetryOn | TelemetryOff {
  if (val(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return { on: false };
  const specific = val(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const generic = val(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  if (specific === undefined && generic === undefined) return { on: false };
  const exporters = (val(env, "OTEL_TRACES_EXPORTER") ?? "otlp")
    .toLowerCase()
    .split(",")
    .map((s) => s.trim());
  if (exporters.includes("none")) return { on: false };
  const endpointVar = specific !== undefined ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" : "OTEL_EXPORTER_OTLP_ENDPOINT";
  let url: URL;
  try {
    url = new URL(specific ?? generic!);
    if (specific === undefined)
      url.pathname = `${url.pathname.endsWith("/") ? url.pathname : `${url.pathname}/`}v1/traces`;
  } catch {
    return {
      on: false,
      problem:
        `${endpointVar} is not a URL: telemetry is off (give an http:// or https:// URL, e.g. ` +
        `http://localhost:4318)`,
    };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return {
      on: false,
      problem: `${endpointVar} is not an http:// or https:// URL: telemetry is off (toolgate exports OTLP over HTTP)`,
    };
  const protocolVar =
    val(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") !== undefined
      ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
      : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = val(env, protocolVar) ?? "http/protobuf";
  if (protocol !== "http/protobuf" && protocol !== "http/json") {
    return {
      on: false,
      problem:
        `${protocolVar}=${JSON.stringify(protocol.slice(0, 40))} is not supported: telemetry is off (use ` +
        `http/protobuf, the default, or http/json)`,
    };
  }
  const headerNames = [val(env, "OTEL_EXPORTER_OTLP_HEADERS"), val(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS")]
    .flatMap((h) => (h ?? "").split(","))
    .map((pair) => pair.split("=")[0]!.trim().toLowerCase())
    .filter((n) => n !== "");
  return {
    on: true,
    endpoint: url.href,
    endpointVar,
    protocol,
    headerNames: [...new Set(headerNames)].sort(),
    serviceName: val(env, "OTEL_SERVICE_NAME") ?? "toolgate",
  };
}

/** The endpoint as `toolgate config` shows it: no user name or password, no query (either may hold a key). */
export function endpointView(endpoint: string): string {
  const u = new URL(endpoint);
  return `${u.protocol}//${u.host}${u.pathname}${u.search === "" ? "" : "?…"}`;
}

/**
 * What `toolgate config` shows of telemetry, each value with where it came from: the endpoint
 * (without user name, password or query), the protocol, the service name, and the names of the
 * headers sent (never their values).
 */
export function telemetryLeaves(env: Env): [string, { value: unknown; origin: string }][] {
  const s = telemetrySettings(env);
  if (!s.on)
    return [["telemetry.endpoint", { value: null, origin: s.problem === undefined ? "default" : `off: ${s.problem}` }]];
  const from = (name: string, fallback = "default") => (val(env, name) !== undefined ? `env:${name}` : fallback);
  const headers = ["OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"].filter(
    (n) => val(env, n) !== undefined,
  );
  return [
    ["telemetry.endpoint", { value: endpointView(s.endpoint), origin: `env:${s.endpointVar}` }],
    [
      "telemetry.protocol",
      { value: s.protocol, origin: from("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", from("OTEL_EXPORTER_OTLP_PROTOCOL")) },
    ],
    ["telemetry.service_name", { value: s.serviceName, origin: from("OTEL_SERVICE_NAME") }],
    [
      "telemetry.headers",
      { value: s.headerNames, origin: headers.length > 0 ? headers.map((n) => `env:${n}`).join(", ") : "default" },
    ],
  ];
}
