// `toolgate serve` up to the first client: the command line checked (src/serve/options.ts, and
// --http before the boot so a bad address is exit 2 with nothing started), the boot (nobody is
// asked at a terminal: permissions come from the flags and the config only), the sandbox, the
// profile and served names, --approve, the journal, and the parts put together (src/serve/serving.ts),
// Las and the MCP servers supervised for as long as serve runs. One Runtime (runtime/runtime.ts)
// holds the boot, the state and the telemetry, and runs every call. The command (serve.ts) and the
// in-process tests start here; what stops it is theirs.
import { bootError } from "../result/result.ts";
import { SANDBOX_HINT, sandboxProblem } from "../launcher/sandbox.ts";
import type { Booted } from "../runtime/boot.ts";
import { openRuntime, type Runtime } from "../runtime/runtime.ts";
import type { HttpOptions } from "../serve/http-options.ts";
import { checkExpose, servedToCatalog, serveLane } from "../serve/options.ts";
import { serving, type Serving } from "../serve/serving.ts";
import type { ToolCaller } from "../serve/tool-caller.ts";
import { withheldToolNotes } from "../servers/list.ts";
import { telemetryFor } from "../telemetry/telemetry.ts";
import { VERSION } from "../version.ts";
import { approvedNames } from "./approve-flag.ts";
import { bootInput, type RunContext } from "./context.ts";
import { bool, multi, str, type Scanned } from "./flags.ts";
import { servingChoices } from "./serve-choices.ts";
import { httpAfterBoot, httpChoice } from "./serve-http.ts";
import { checkState, openChecked, stateError } from "./state.ts";
import { note } from "./ui.ts";

export interface Started extends Serving {
  readonly booted: Booted;
  readonly runtime: Runtime;
  /** --http's options (the config's serve.oauth applied), or undefined for stdio. */
  readonly http: HttpOptions | undefined;
  readonly profile: string;
  readonly approved: ReadonlySet<string>;
  /** Every child ended, the journal closed, the last spans sent. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Another runner of the pipeline (else this process's own, tool-caller.ts). */
  readonly calls?: ToolCaller;
  /** Where the operator's lines about calls and servers go (else stderr). */
  readonly operator?: (line: string) => void;
}

export async function startServe(ctx: RunContext, s: Scanned, o: StartOptions = {}): Promise<Started> {
  const lane = serveLane(s.positionals, str(s, "lane"));
  const asked = httpChoice(s);
  const child = bool(s, "child");
  const operator = o.operator ?? ((line: string) => void process.stderr.write(`${line}\n`));
  // Nobody is asked at a terminal; the journal holds the calls, not the servers' starts (no stateDb).
  // Each call's span is exported from this process off the calls' path (when the environment asks for it);
  // at close the last batch goes out, waiting at most a second.
  const runtime = await openRuntime({
    ...bootInput(ctx, s),
    interactive: false,
    child,
    relaySampling: !child,
    stateDb: undefined,
    state: { check: checkState, open: openChecked },
    telemetry: () => telemetryFor(ctx.env, "live", operator),
  });
  const { booted } = runtime;
  const close = () => runtime.close();
  try {
    const problem = await sandboxProblem(booted.sandbox, booted.workspace);
    if (problem !== null) throw bootError(problem, SANDBOX_HINT);
    const http = asked && httpAfterBoot(asked, booted);
    const choices = servingChoices(booted, str(s, "profile"), str(s, "name-budget"));
    const expose = str(s, "expose");
    checkExpose(booted.remote, expose);
    // --approve takes the names a client sees too (--expose: the server's own); any other name is refused here.
    const approved = approvedNames(
      multi(s, "approve"),
      booted,
      servedToCatalog(booted, choices.names.fromServed, expose),
    );
    // A tool the output boundary kept out of a server's listing is not served: the operator hears which rule and where.
    if (!bool(s, "quiet")) for (const line of withheldToolNotes(booted.remote?.status ?? [])) note(line);
    runtime.state();
    const parts = serving(
      runtime,
      { profile: choices.profile, names: choices.names, child, approved, ...(expose !== undefined ? { expose } : {}) },
      {
        lane,
        operator,
        unstarted: (e) => {
          throw stateError(booted.config, e, "the call was not run");
        },
        unfinished: (e) =>
          note(
            stateError(
              booted.config,
              e,
              "a call's journal row was not finished; `toolgate log` shows it as indeterminate",
            ).message,
          ),
        version: VERSION,
      },
      o.calls,
    );
    // Las and the MCP servers live as long as serve: a child that dies is restarted with backoff,
    // and clients hear of every change in what is served.
    await booted.remote?.supervise({ onChange: () => void parts.hub.listChanged(), onEvent: (line) => note(line) });
    return { ...parts, booted, runtime, http, profile: choices.profile.name, approved, close };
  } catch (e) {
    await close();
    throw e;
  }
}
