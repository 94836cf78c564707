// `toolgate serve`: this boot's catalog as an MCP server (stdio by default, --http: serve-http.ts). Every
// tools/call runs
// the pipeline `call` runs; stdout carries JSON-RPC only; permissions come from the flags and the
// config (never asked), approvals from --approve or the client's elicitation. Started in serve-start.ts (the parts:
// src/serve/serving.ts). Stops on stdin EOF, SIGINT or SIGTERM (HTTP: signals only): new calls refused, calls in
// flight get the grace, then every child ends.
import { defineCommand } from "citty";
import { HTTP_ARGS, startHttp } from "./serve-http.ts";
import { claimStdout } from "../serve/stdout.ts";
import { stopSignal } from "../serve/stop.ts";
import { bool } from "./flags.ts";
import { note } from "./ui.ts";
import type { RunContext } from "./context.ts";
import { startServe, type Started } from "./serve-start.ts";

export default defineCommand({
  meta: {
    name: "serve",
    description:
      "Serve the catalog as an MCP server over stdio (or Streamable HTTP with --http): the same pipeline as " +
      "call, narrowed by --profile and --child",
  },
  args: {
    profile: {
      type: "string",
      description: "Offer only this profile's tools: full (default), scout, writer, or one from the config's profiles",
      valueHint: "NAME",
    },
    child: {
      type: "boolean",
      description:
        "No human behind this session: tools that need approval are offered only when --approve covers them, " +
        "and nothing is ever asked",
    },
    state: {
      type: "string",
      description:
        "The state folder (journal) for this session, over the config's: a task's child server gets its own, " +
        "which the parent files under the task call",
      valueHint: "DIR",
    },
    expose: {
      type: "string",
      description:
        "Serve one configured MCP server exactly: its tools, resources and prompts under its own names, and " +
        "its instructions (still checked by permissions, journal and boundary)",
      valueHint: "SERVER",
    },
    "name-budget": {
      type: "string",
      description:
        "Longest served name (16-64, default 44: room for a 20-character client prefix); longer or " +
        "non-conforming names are shortened reversibly (toolgate tools --served shows the mapping)",
      valueHint: "N",
    },
    ...HTTP_ARGS,
  },
});

export async function runServe(ctx: RunContext): Promise<number> {
  // Before anything else can write: stdout is the protocol's alone.
  const stdout = claimStdout();
  const s = ctx.flags;
  let started: Started | undefined;
  try {
    started = await startServe(ctx, s);
    const { booted, hub } = started;
    const listening = started.http
      ? await startHttp(hub, started.http, {
          booted,
          line: { profile: started.served.deps.profile, approved: started.approved },
        })
      : undefined;
    if (!listening) {
      const { StdioTransport } = await import("../serve/stdio.ts");
      await hub.connect(new StdioTransport(process.stdin, stdout), { sessionApprovals: false });
    }
    const how = `${listening ? "HTTP" : "stdio"} (profile ${started.profile}${bool(s, "child") ? ", child" : ""})`;
    if (bool(s, "verbose")) note(`serving ${hub.tools().length} tools over ${how}`);
    const why = await stopSignal(!listening, stdout);
    listening?.refuseNewSessions();
    const graceMs = booted.config.values.las.shutdown_grace_secs * 1000;
    if (!bool(s, "quiet")) note(`stopping (${why}): new calls are refused; calls in flight get ${graceMs / 1000} s`);
    await hub.drain(graceMs);
    await hub.close();
    await listening?.stop();
    return 0;
  } finally {
    await started?.close();
    process.stdin.destroy();
  }
}
