// Approval through the MCP client (elicitation/create): the tool, its effect class, its digest and a
// bounded preview of the (already redacted) arguments; the answer is once, always (remembered for
// the digest) or no. A client that declines, cancels, errs or does not answer in time has said no.
import type { ApprovalAnswer, ApprovalRequest } from "../approval/approval.ts";
import { sha256Hex } from "../catalog/canonical.ts";

/** How much of the arguments the question shows; the rest is named by size and sha256. */
export const PREVIEW_CHARS = 2_000;
/** A person may take a while; past this the call is not approved. */
export const ANSWER_MS = 10 * 60_000;

/** The MCP SDK's request sender; `schema` (the SDK's own result schema) is passed through untouched. */
type SendRequest<S> = (
  request: { method: "elicitation/create"; params: Record<string, unknown> },
  schema: S,
  options?: { timeout?: number },
) => Promise<unknown>;

export function approvalQuestion(req: ApprovalRequest, served: string): string {
  const shown =
    req.args.length <= PREVIEW_CHARS
      ? req.args
      : `${req.args.slice(0, PREVIEW_CHARS)}\n… (${req.args.length - PREVIEW_CHARS} more characters not shown; ` +
        `the whole arguments have sha256 ${sha256Hex(req.args)})`;
  const alias = served === req.tool ? "" : ` (served as ${served})`;
  return (
    `toolgate: ${req.tool}${alias} needs approval.\nEffect: ${req.effect}. Digest: ` +
    `${req.digest.slice(0, 12)}.\nArguments:\n${shown}`
  );
}

export const APPROVAL_SCHEMA = {
  type: "object",
  properties: {
    approve: {
      type: "string",
      title: "Approve",
      description: "once: this call only; always: every call of this tool while its digest stays the same",
      enum: ["once", "always"],
      enumNames: ["Yes, this call", "Always, for this digest"],
      default: "once",
    },
  },
  required: ["approve"],
} as const;

export async function elicitApproval<S>(
  req: ApprovalRequest,
  served: string,
  send: SendRequest<S>,
  resultSchema: S,
): Promise<ApprovalAnswer> {
  try {
    const r = (await send(
      {
        method: "elicitation/create",
        params: { mode: "form", message: approvalQuestion(req, served), requestedSchema: APPROVAL_SCHEMA },
      },
      resultSchema,
      { timeout: ANSWER_MS },
    )) as {
      action?: string;
      content?: Record<string, unknown>;
    };
    if (r.action !== "accept") return "n";
    return r.content?.approve === "always" ? "A" : "y";
  } catch {
    return "n";
  }
}
