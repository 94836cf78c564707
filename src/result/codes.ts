// Every refusal code toolgate gives, in one list: how each ends a command (its exit code and
// outcome) and what it means. `refuse()` and the result types take only these codes (tsc refuses
// any other), exit.ts reads the exit codes from here, and docs/errors.md is generated from it
// (bun run gen:errors). Plain object literals (the tools' codes in codes-tools.ts): cheap to load.

import type { CodeInfo } from "./code-info.ts";
import { TOOL_CODES } from "./codes-tools.ts";

export type { CodeInfo, CodeOutcome } from "./code-info.ts";

export const CODES = {
  cancelled: {
    exit: 130,
    outcome: "failed",
    meaning:
      "a signal ended the call (130: SIGINT, Ctrl-C; 143: SIGTERM); what it ran was stopped with its " +
      "whole process tree",
  },
  interrupted: {
    exit: 130,
    outcome: "indeterminate",
    meaning:
      "a signal cut a call to an outside server after it was sent (130: SIGINT; 143: SIGTERM): the server may " +
      "have acted on it",
  },
  "mcp.cancelled": {
    exit: 1,
    outcome: "failed",
    meaning: "the call was cancelled before it was sent to its MCP server",
  },
  "approval.child_unattended": {
    exit: 4,
    outcome: "failed",
    meaning:
      "the tool needs approval and this is an unattended child session: the session that starts it may pass --approve",
  },
  "approval.denied": { exit: 4, outcome: "failed", meaning: "the tool was not approved at the prompt" },
  "approval.required": {
    exit: 4,
    outcome: "failed",
    meaning: "the tool needs approval and nobody can be asked here: run again with --approve TOOL",
  },
  "args.invalid": {
    exit: 1,
    outcome: "failed",
    meaning: "the arguments do not match the tool's input schema (details.issues says where)",
  },
  "authored.bad_output": {
    exit: 1,
    outcome: "failed",
    meaning: "an authored tool did not print exactly one JSON value on stdout",
  },
  "authored.cancelled": {
    exit: 1,
    outcome: "failed",
    meaning: "an authored tool's call was cancelled; its process tree was ended",
  },
  "authored.exit": {
    exit: 1,
    outcome: "failed",
    meaning: "an authored tool exited with a non-zero code or was killed by a signal",
  },
  "authored.invalid_dir": {
    exit: 5,
    outcome: "stderr",
    meaning: "the authored-tools folder (authored.dir) is not a folder or cannot be read",
  },
  "authored.invalid_manifest": {
    exit: 5,
    outcome: "stderr",
    meaning: "an authored tool's tool.json cannot be read or is invalid",
  },
  "authored.output_too_large": {
    exit: 1,
    outcome: "failed",
    meaning: "an authored tool printed more on stdout than is read",
  },
  "authored.timeout": {
    exit: 1,
    outcome: "failed",
    meaning: "an authored tool did not finish within its timeout_secs; its process tree was ended",
  },
  "catalog.bad_name": {
    exit: 5,
    outcome: "stderr",
    meaning: "a tool source offers a tool whose name breaks the naming rule",
  },
  "catalog.bad_schema": { exit: 5, outcome: "stderr", meaning: "a tool's input schema is not a JSON object schema" },
  "catalog.collision": {
    exit: 5,
    outcome: "stderr",
    meaning: "two tools have the same name after normalization (no source has priority)",
  },
  "config.invalid": { exit: 5, outcome: "stderr", meaning: "an MCP server's entry in the config is invalid" },
  deadline: {
    exit: 1,
    outcome: "either",
    meaning: "the call did not finish within its deadline; for a tool outside toolgate the effect is unknown",
  },
  descriptor_changed: {
    exit: 5,
    outcome: "failed",
    meaning:
      "the tool's descriptor differs from the one pinned in toolgate.lock, or changed since the catalog was cached",
  },
  descriptor_unpinned: { exit: 5, outcome: "failed", meaning: "the tool is not in toolgate.lock" },
  "journal.unfinished": {
    exit: 3,
    outcome: "indeterminate",
    meaning: "a call's journal row was never finished (its process ended mid-call): the effect is unknown",
  },
  "las.agent_id_missing": { exit: 5, outcome: "stderr", meaning: "Las's skarbiec surface needs las.agent_id" },
  "las.boot": { exit: 5, outcome: "stderr", meaning: "Las could not be started or listed" },
  "las.protocol": { exit: 5, outcome: "stderr", meaning: "Las negotiated an MCP protocol other than the pinned one" },
  "las.surface_missing": { exit: 5, outcome: "stderr", meaning: "Las exposes no tool of a required surface" },
  "launch.artifact_error": {
    exit: 1,
    outcome: "failed",
    meaning: "a child's output could not be kept (its artifact could not be written)",
  },
  "launch.cancelled": { exit: 1, outcome: "failed", meaning: "the call was cancelled before the process started" },
  "launch.home": {
    exit: 1,
    outcome: "failed",
    meaning: "the command's HOME folder could not be made; the command did not run",
  },
  "launch.invalid": {
    exit: 1,
    outcome: "failed",
    meaning: "the process to start is invalid (an empty argv, a NUL character)",
  },
  "launch.spawn_failed": { exit: 1, outcome: "failed", meaning: "the process could not be started" },
  // Exit 4 like a permission: the server refuses toolgate until the user grants it (toolgate auth).
  "mcp.auth_required": {
    exit: 4,
    outcome: "failed",
    meaning: "the MCP server needs you to authorize toolgate: run toolgate auth SERVER",
  },
  "mcp.connect_failed": { exit: 1, outcome: "failed", meaning: "the MCP server could not be started or reached" },
  "mcp.error": {
    exit: 1,
    outcome: "failed",
    meaning: "the MCP server answered a relayed request with a JSON-RPC error (its code is passed on)",
  },
  "mcp.exited": {
    exit: null,
    outcome: "journal",
    meaning: "a supervised MCP server's process ended; it is started again",
  },
  "mcp.malformed_result": {
    exit: 3,
    outcome: "indeterminate",
    meaning: "the MCP server answered with something that is not a result: whether it acted is unknown",
  },
  "mcp.rate_limited": {
    exit: 1,
    outcome: "failed",
    meaning: "the MCP server or its authorization server answered HTTP 429: try again later",
  },
  "mcp.required": { exit: 5, outcome: "stderr", meaning: "a required MCP server could not be started or listed" },
  "mcp.response_too_large": {
    exit: 1,
    outcome: "failed",
    meaning: "the MCP server's answer is past the size toolgate reads",
  },
  "mcp.restarting": {
    exit: 1,
    outcome: "failed",
    meaning: "the supervised MCP server is down and being restarted: try again shortly",
  },
  "mcp.server_down": {
    exit: 1,
    outcome: "failed",
    meaning: "the MCP server is down: it is no longer restarted, or cannot be reached",
  },
  "mcp.withheld": {
    exit: 1,
    outcome: "failed",
    meaning:
      "an optional server is withheld (its names collide or break the naming rule), or this tool is (what it " +
      "declares breaks the output boundary)",
  },
  "name_budget.invalid": { exit: 2, outcome: "stderr", meaning: "--name-budget is not a whole number in its range" },
  "permission.denied": {
    exit: 4,
    outcome: "failed",
    meaning: "a permission the call needs is not granted, or a deny rule refuses it; details name the flags",
  },
  "profile.excluded": { exit: 1, outcome: "failed", meaning: "the tool is not offered in this session's profile" },
  "profile.reserved": { exit: 5, outcome: "stderr", meaning: "the config redefines a built-in profile" },
  "profile.unknown": { exit: 2, outcome: "stderr", meaning: "no profile with the name given to --profile" },
  redaction_failed: {
    exit: 1,
    outcome: "failed",
    meaning: "bound secrets could not be redacted from the result, so none of it is shown",
  },
  remote_tool: {
    exit: 1,
    outcome: "failed",
    meaning: "the tool outside toolgate answered with an error (an isError result or a JSON-RPC error)",
  },
  "schema.unsupported": {
    exit: 1,
    outcome: "failed",
    meaning: "the tool's input schema cannot be checked, so the tool is not called",
  },
  sensitive_output_rejected: {
    exit: 1,
    outcome: "failed",
    meaning: "the result broke the output boundary and was withheld whole (stderr names the rule and where)",
  },
  "serve.http_bind": { exit: 5, outcome: "stderr", meaning: "serve --http cannot listen on the address given" },
  "serve.shutting_down": {
    exit: 1,
    outcome: "failed",
    meaning: "toolgate serve is shutting down; the call was not run",
  },
  transport_lost: {
    exit: 3,
    outcome: "indeterminate",
    meaning: "the connection to the server failed mid-call: whether the call acted is unknown",
  },
  unknown_tool: { exit: 1, outcome: "failed", meaning: "no tool with that name in this catalog" },
  usage: { exit: 2, outcome: "stderr", meaning: "an option of serve --http is wrong (address, token file)" },
  ...TOOL_CODES,
} as const satisfies Record<string, CodeInfo>;

/** A registered refusal code: `refuse()` and the result types take only these. */
export type Code = keyof typeof CODES;

/** Whether `code` is registered (a string read back from a journal or a session may be anything). */
export const isCode = (code: string): code is Code => Object.hasOwn(CODES, code);
