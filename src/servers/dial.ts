// One connect to a server, once RemoteSources (sources.ts) decided to make it and its start passed:
// the session opened with this process's options (what it declares, a redactor for the child's
// stderr), the bound secrets kept out of the tools it lists and out of a failure's message (both
// are printed, cached in the state folder and shown to models), a failure told as what the user can
// act on (a want of authorization, the key that sets the connect timeout), and Las held to its
// protocol and surfaces. Apart from sources.ts, which keeps the connections: what one connect does.
import { redactText, redactValue, StreamRedactor } from "../boundary/redact.ts";
import { connectTarget, type Connection, type Declared, type Target } from "../mcp/connect.ts";
import { checkProtocol, checkSurfaces } from "../mcp/las.ts";
import type { ListedTool } from "../mcp/session.ts";
import type { Refusal } from "../result/result.ts";
import type { RemoteDeps } from "./deps.ts";
import { connectTimeoutMessage } from "./list.ts";
import type { RemoteSpec } from "./specs.ts";

/**
 * Connects to `target` as `spec` says, declaring `declared` (else this process's default).
 * `authRefused`: the refusal for want of authorization when that is why the connect failed (thrown, transient).
 */
export async function dial(
  spec: RemoteSpec,
  target: Target,
  declared: Declared | undefined,
  deps: Pick<RemoteDeps, "version" | "onNoise" | "sampling">,
  secrets: readonly string[],
  authRefused: () => Refusal | undefined,
): Promise<Connection> {
  let conn: Connection;
  try {
    const c = await connectTarget(target, {
      pin: spec.pin,
      connectTimeoutMs: spec.connectTimeoutMs,
      requestTimeoutMs: spec.timeoutMs,
      version: deps.version,
      redactor: (s) => new StreamRedactor(s),
      ...(deps.onNoise ? { onNoise: deps.onNoise } : {}),
      ...((declared ? declared.sampling : deps.sampling) ? { sampling: true } : {}),
      ...(declared?.elicitation === false ? { elicitation: false } : {}),
    });
    conn = secrets.length ? { ...c, close: c.close, tools: redactValue(c.tools, secrets) as ListedTool[] } : c;
  } catch (e) {
    // No usable token: the refusal names `toolgate auth SERVER`, for the call and for `tools`.
    const auth = authRefused();
    if (auth) throw Object.assign(new Error(auth.message), { transient: true });
    const message = (e as Error).message || String(e);
    const tail = message.indexOf("; its stderr ends with:");
    // No answer to initialize in time: say which key sets the timeout (the stderr tail kept).
    const said = (e as { connectTimeout?: boolean }).connectTimeout
      ? `${connectTimeoutMessage(spec)}${tail >= 0 ? message.slice(tail) : ""}`
      : message;
    throw new Error(redactText(said, secrets));
  }
  if (spec.kind === "las") {
    const bad =
      checkProtocol(conn.session.negotiated) ??
      checkSurfaces(
        conn.tools.map((t) => t.name),
        spec.requiredSurfaces ?? [],
      );
    if (bad) {
      await conn.close(0);
      throw new Error(bad.message);
    }
  }
  return conn;
}
