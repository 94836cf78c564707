// `toolgate serve` up to the first client: the command line checked (src/serve/options.ts, and
// --http before the boot so a bad address is exit 2 with nothing started), the boot (nobody is
// asked at a terminal: permissions come from the flags and the config only), the sandbox, the
// profile and served names, --approve, the journal, and the parts put together (src/serve/serving.ts),
// Las and the MCP servers supervised for as long as serve runs. The command (serve.ts) and the
// in-process tests start here; what stops it is theirs.
import type { Database } from "bun:sqlite";
import { bootError } from "../result/result.ts";
import { SANDBOX_HINT, sandboxProblem } from "../launcher/sandbox.ts";
import { boot, type Booted } from "../runtime/boot.ts";
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
  const booted = await boot({ ...bootInput(ctx, s), interactive: false, beforeStart: checkState, child, relaySampling: !child });
  const operator = o.operator ?? ((line: string) => void process.stderr.write(`${line}\n`));
  let db: Database | undefined;
  // Each call's span, exported from this process off the calls' path (when the environment asks for it).
  const telemetry = telemetryFor(ctx.env, "live", operator);
  const close = async () => {
    await booted.remote?.shutdown();
    db?.close();
    // The last batch of spans goes out, waiting at most a second.
    await telemetry?.finish(1_000);
  };
  try {
    const problem = await sandboxProblem(booted.sandbox, booted.workspace);
    if (problem !== null) throw bootError(problem, SANDBOX_HINT);
    const http = asked && httpAfterBoot(asked, booted);
    const choices = servingChoices(booted, str(s, "profile"), str(s, "name-budget"));
    const expose = str(s, "expose");
    checkExpose(booted.remote, expose);
    // --approve takes the names a client sees too (--expose: the server's own); any other name is refused here.
    const approved = approvedNames(multi(s, "approve"), booted, servedToCatalog(booted, choices.names.fromServed, expose));
    // A tool the output boundary kept out of a server's listing is not served: the operator hears which rule and where.
    if (!bool(s, "quiet")) for (const line of withheldToolNotes(booted.remote?.status ?? [])) note(line);
    db = openChecked(booted.config);
    const opened = db;
    const parts = serving(
      booted,
      { profile: choices.profile, names: choices.names, child, approved, ...(expose !== undefined ? { expose } : {}) },
      {
        booted,
        env: ctx.env,
        db: () => opened,
        lane,
        operator,
        unstarted: (e) => {
          throw stateError(booted.config, e, "the call was not run");
        },
        unfinished: (e) =>
          note(stateError(booted.config, e, "a call's journal row was not finished; `toolgate log` shows it as indeterminate").message),
        ...(telemetry ? { telemetry } : {}),
        version: VERSION,
      },
      o.calls,
    );
    // Las and the MCP servers live as long as serve: a child that dies is restarted with backoff,
    // and clients hear of every change in what is served.
    await booted.remote?.supervise({ onChange: () => void parts.hub.listChanged(), onEvent: (line) => note(line) });
    return { ...parts, booted, http, profile: choices.profile.name, approved, close };
  } catch (e) {
    await close();
    throw e;
  }
}
