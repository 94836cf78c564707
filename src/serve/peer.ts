// serve's side of an MCP call made for a client: the upstream server's elicitation is relayed to
// the client when it declared form elicitation (else declined), its sampling when it declared
// sampling (else refused: toolgate holds no model), its progress when the client's request
// carried a progressToken. An unattended child (--child) relays no question: nobody is there.
import type { CallScope } from "../catalog/declare.ts";
import type { Declared } from "../mcp/connect.ts";
import type { ElicitAnswer } from "../mcp/peer.ts";
import { escapeControl } from "../result/escape.ts";
import { ANSWER_MS } from "./elicit.ts";

/** The MCP SDK's request sender; `schema` (the SDK's own result schema, from `schemas`) is passed through untouched. */
type SendRequest<S> = (
  request: { method: string; params: Record<string, unknown> },
  schema: S,
  options?: { timeout?: number; signal?: AbortSignal },
) => Promise<unknown>;
type SendNotification = (n: {
  method: "notifications/progress" | "notifications/message";
  params: Record<string, unknown>;
}) => Promise<void>;

export interface ClientSide<S = unknown> {
  /** The client the call is made for: the owner of what its upstream server sends during it. */
  readonly owner: object;
  /** What the client declared at initialize. */
  readonly capabilities:
    | { readonly elicitation?: { readonly form?: object; readonly url?: object }; readonly sampling?: object }
    | undefined;
  readonly child: boolean;
  /** The client's tools/call progressToken, when it sent one. */
  readonly progressToken: string | number | undefined;
  readonly sendRequest: SendRequest<S>;
  readonly sendNotification: SendNotification;
  readonly schemas: { readonly elicit: S; readonly sample: S };
  /** A line for the operator (stderr). */
  readonly operator: (line: string) => void;
  /**
   * A server's log message during the call, as this client may see it (checked, redacted, at its level), or
   * undefined to drop it.
   */
  readonly log?: (server: string, params: Record<string, unknown>) => Record<string, unknown> | undefined;
  /** serve --expose: the server is told exactly what this client can take (upstreamOf). */
  readonly exposed?: boolean;
}

/** Form elicitation as the spec reads the capability: `{}` (no mode named) means form. */
export function clientTakesForms(c: ClientSide["capabilities"]): boolean {
  const e = c?.elicitation;
  if (!e) return false;
  return e.form !== undefined || e.url === undefined;
}

/**
 * What the server is told a client can take when it is to see that client exactly (serve
 * --expose): form elicitation and sampling as far as the client declared them and toolgate relays
 * them (an unattended child relays nothing), never more.
 */
export function upstreamOf(capabilities: ClientSide["capabilities"], child: boolean): Declared {
  return {
    elicitation: !child && clientTakesForms(capabilities),
    sampling: !child && capabilities?.sampling !== undefined,
  };
}

export function servedPeer<S>(side: ClientSide<S>): NonNullable<CallScope["peer"]> {
  const { elicitation: forms, sampling } = upstreamOf(side.capabilities, side.child);
  const token = side.progressToken;
  return (who) => ({
    owner: side.owner,
    ...(side.exposed ? { upstream: { elicitation: forms, sampling } } : {}),
    ...(forms
      ? {
          elicit: async (form, signal) =>
            (await side.sendRequest(
              {
                method: "elicitation/create",
                params: { mode: "form", message: form.message, requestedSchema: form.requestedSchema },
              },
              side.schemas.elicit,
              { timeout: ANSWER_MS, signal },
            )) as ElicitAnswer,
        }
      : {}),
    ...(sampling
      ? {
          sample: async (params, signal) =>
            (await side.sendRequest({ method: "sampling/createMessage", params }, side.schemas.sample, {
              timeout: ANSWER_MS,
              signal,
            })) as Record<string, unknown>,
        }
      : {}),
    elicited: (outcome, why) => {
      if (outcome !== "decline" || (forms && why === undefined)) return;
      const reason =
        why ??
        (side.child
          ? "this unattended child session relays no question"
          : "the client does not declare form elicitation");
      side.operator(
        `toolgate: MCP server "${escapeControl(who.server)}" asked for input during ` +
          `${escapeControl(who.tool)} (elicitation); declined: ${escapeControl(reason)}`,
      );
    },
    // Before the call's result, on the call's own stream: the order is the protocol's.
    ...(side.log
      ? {
          log: (params: Record<string, unknown>) => {
            const shown = side.log?.(who.server, params);
            if (shown) void side.sendNotification({ method: "notifications/message", params: shown }).catch(() => {});
          },
        }
      : {}),
    ...(token !== undefined
      ? {
          progress: (p) =>
            void side
              .sendNotification({
                method: "notifications/progress",
                params: {
                  progressToken: token,
                  progress: p.progress,
                  ...(p.total !== undefined ? { total: p.total } : {}),
                  ...(p.message !== undefined ? { message: p.message } : {}),
                },
              })
              .catch(() => {}),
        }
      : {}),
  });
}
