// The pipeline in process: its order, and that nothing reaches the adapter before
// validation, permissions and approval pass, and not before its row is written as started.
// Every call leaves exactly one journal row (a started one is finished in place).
import { describe, expect, test } from "bun:test";
import { buildCatalog, type Adapter, type Catalog, type ToolSource } from "../../src/catalog/catalog.ts";
import type { ApprovalDeps } from "../../src/approval/approval.ts";
import { invoke, type InvokeDeps, type PermissionGate } from "../../src/runtime/invoke.ts";
import type { JournalRow } from "../../src/state/journal.ts";
import type { Need } from "../../src/permission/types.ts";
import { Interrupted, type Envelope, type Refusal } from "../../src/result/result.ts";
import { callScope, noProcesses, remoteTerms } from "../helpers.ts";

interface Trace {
  steps: string[];
  rows: JournalRow[];
  started: JournalRow[];
}

function setup(
  opts: {
    result?: unknown;
    refuse?: boolean | Refusal;
    permit?: boolean;
    approve?: boolean;
    builtin?: boolean;
    approval?: "required" | "never";
    slow?: boolean;
    localPathsOff?: string;
  } = {},
) {
  const trace: Trace = { steps: [], rows: [], started: [] };
  // A built-in's terms (its own words, a plain deadline) or a server's; a local-path rule the user lifted.
  const terms = remoteTerms({
    ...(opts.builtin
      ? {
          validation: { kind: "generated", explain: null },
          boundary: { localPaths: { rule: "own-words" }, apps: false },
          acts: "here",
        }
      : {}),
    ...(opts.localPathsOff
      ? { boundary: { localPaths: { rule: "lifted", by: opts.localPathsOff }, apps: false } }
      : {}),
  });
  const adapter: Adapter = {
    needs: (args) => {
      trace.steps.push("needs");
      return { ok: true, value: [{ kind: "read", value: `/w/${(args as { path: string }).path}` }] };
    },
    run: async () => {
      trace.steps.push("run");
      if (opts.slow) await new Promise((r) => setTimeout(r, 200));
      if (typeof opts.refuse === "object") return { ok: false, refusal: opts.refuse };
      return opts.refuse
        ? { ok: false, refusal: { code: "file.missing", message: "gone" } }
        : { ok: true, value: opts.result ?? { ok: 1 } };
    },
  };
  const source: ToolSource = {
    origin: "mcp:demo",
    rawName: "read",
    name: "demo__read",
    description: "d",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string", minLength: 1 } },
      required: ["path"],
      additionalProperties: false,
    },
    effect: "read",
    approval: opts.approval ?? "required",
    terms,
    adapter,
  };
  const built = buildCatalog([source]);
  if (!built.ok) throw new Error(built.refusal.message);
  const permissions: PermissionGate = {
    check: (need: Need) => {
      trace.steps.push(`permission:${need.kind}:${need.value}`);
      return opts.permit === false
        ? { ok: false, code: "permission.denied", message: "no", flag: "--allow-read=/w/a" }
        : { ok: true };
    },
  };
  const approval: ApprovalDeps = {
    approved: new Set(opts.approve === false ? [] : ["demo__read"]),
    overrides: {},
    isRemembered: () => false,
    remember: () => {},
    ask: undefined,
  };
  const deps: InvokeDeps = {
    catalog: built.value as Catalog,
    scope: callScope("/w"),
    processes: () => noProcesses,
    permissions,
    approval,
    secrets: ["hunter2-secret"],
    started: (row) => {
      trace.steps.push("started");
      trace.started.push(row);
    },
    journal: (row) => trace.rows.push(row),
    now: (() => {
      let t = 1000;
      return () => (t += 5);
    })(),
    deadlineMs: opts.slow ? 50 : 5000,
  };
  return { trace, deps };
}

describe("invoke", () => {
  test("the happy path runs needs → permission → adapter, in that order, and journals once", async () => {
    const { trace, deps } = setup();
    const r = await invoke("demo__read", { path: "a" }, deps);
    expect(r.envelope).toEqual({ status: "success", tool: "demo__read", payload: { ok: 1 } });
    expect(trace.steps).toEqual(["needs", "permission:read:/w/a", "started", "run"]);
    const { time_ms, tool, origin, digest, effect, args_preview } = trace.rows[0]!;
    expect(trace.started).toEqual([
      {
        time_ms,
        tool,
        origin,
        digest,
        effect,
        args_preview,
        status: "started",
        error_code: null,
        duration_ms: 5,
        result_bytes: 0,
        detail: null,
      },
    ]);
    expect(trace.rows).toHaveLength(1);
    expect(trace.rows[0]).toMatchObject({
      tool: "demo__read",
      origin: "mcp:demo",
      status: "success",
      error_code: null,
      effect: "read",
      duration_ms: 10,
    });
  });

  const unknownTool = (name: string, near?: string): Envelope => ({
    status: "failed",
    tool: name,
    error_code: "unknown_tool",
    message: `no tool named "${name}" in this catalog; \`toolgate tools\` lists them${near ? `; did you mean "${near}"?` : ""}`,
    ...(near ? { details: { did_you_mean: near } } : {}),
  });

  test.each([
    ["the catalog's names (call)", undefined, "demo__reed", "demo__read", "frobnicate"],
    [
      "the names the caller can call (serve: the served names), not the rest of the catalog",
      ["served__read"],
      "served__reed",
      "served__read",
      "demo__reed",
    ],
  ])(
    "unknown_tool reaches no stage and names the nearest of %s, never calling it; a far-off name gets none",
    async (_what, callable, name, near, far) => {
      const { trace, deps } = setup();
      const d = callable ? { ...deps, callable: () => callable } : deps;
      expect((await invoke(name as string, { path: "a" }, d)).envelope).toEqual(
        unknownTool(name as string, near as string),
      );
      expect((await invoke(far as string, { path: "a" }, d)).envelope).toEqual(unknownTool(far as string));
      expect(trace.steps).toEqual([]);
      expect(trace.rows.map((x) => [x.tool, x.error_code, x.digest])).toEqual([
        [name, "unknown_tool", null],
        [far, "unknown_tool", null],
      ]);
    },
  );

  test("a tool its source refuses right now (a supervised server restarting, serve shutting down) reaches no stage, and is journaled", async () => {
    const { trace, deps } = setup();
    const restarting: Refusal = {
      code: "mcp.restarting",
      message: 'demo__read: MCP server "demo" was killed by a signal and is being restarted; try again shortly',
    };
    const asked: string[] = [];
    const r = await invoke(
      "demo__read",
      { path: "a" },
      { ...deps, refusedNow: (name) => (asked.push(name), restarting) },
    );
    expect(r.envelope).toEqual({
      status: "failed",
      tool: "demo__read",
      error_code: "mcp.restarting",
      message: restarting.message,
    });
    expect(asked).toEqual(["demo__read"]);
    expect(trace.steps).toEqual([]);
    expect(trace.started).toEqual([]);
    expect(trace.rows.map((x) => [x.tool, x.origin, x.status, x.error_code])).toEqual([
      ["demo__read", "mcp:demo", "failed", "mcp.restarting"],
    ]);
  });

  test("invalid arguments stop before permissions and name the path", async () => {
    const { trace, deps } = setup();
    const r = await invoke("demo__read", { path: 3 }, deps);
    expect(r.envelope).toMatchObject({ status: "failed", error_code: "args.invalid" });
    expect((r.envelope as { message: string }).message).toContain("path: must be a string");
    expect(trace.steps).toEqual([]);
  });

  test("a permission refusal never reaches the adapter", async () => {
    const { trace, deps } = setup({ permit: false });
    const r = await invoke("demo__read", { path: "a" }, deps);
    expect(r.envelope).toMatchObject({ status: "failed", error_code: "permission.denied" });
    expect(trace.steps).toEqual(["needs", "permission:read:/w/a"]);
    expect(trace.rows[0]!.error_code).toBe("permission.denied");
  });

  test("a missing approval never reaches the adapter", async () => {
    const { trace, deps } = setup({ approve: false });
    const r = await invoke("demo__read", { path: "a" }, deps);
    expect(r.envelope).toMatchObject({ status: "failed", error_code: "approval.required" });
    expect(trace.steps).not.toContain("run");
    expect(trace.started).toEqual([]);
    expect(trace.rows.map((x) => x.status)).toEqual(["failed"]);
  });

  test("a started row that cannot be written stops the call before the adapter", async () => {
    const { trace, deps } = setup();
    const full = new Error("database or disk is full");
    await expect(
      invoke(
        "demo__read",
        { path: "a" },
        {
          ...deps,
          started: () => {
            throw full;
          },
        },
      ),
    ).rejects.toBe(full);
    expect(trace.steps).toEqual(["needs", "permission:read:/w/a"]);
    expect(trace.rows).toEqual([]);
  });

  test("approval never: runs without --approve", async () => {
    const { trace, deps } = setup({ approve: false, approval: "never" });
    expect((await invoke("demo__read", { path: "a" }, deps)).envelope.status).toBe("success");
    expect(trace.steps).toContain("run");
  });

  test("a profile that does not offer the tool refuses before permissions, naming the profile", async () => {
    const { trace, deps } = setup();
    const r = await invoke(
      "demo__read",
      { path: "a" },
      { ...deps, profile: { name: "narrow", offers: (t) => t === "other" } },
    );
    expect(r.envelope).toEqual({
      status: "failed",
      tool: "demo__read",
      error_code: "profile.excluded",
      message: 'demo__read is not offered in profile "narrow"; a session with another profile can call it',
    });
    expect(trace.steps).toEqual([]);
    expect(trace.rows.map((x) => [x.tool, x.status, x.error_code])).toEqual([
      ["demo__read", "failed", "profile.excluded"],
    ]);
  });

  test("a profile sees the validated arguments: it may offer a tool for some calls only", async () => {
    const { trace, deps } = setup();
    const seen: unknown[] = [];
    const profile = {
      name: "half",
      offers: (_t: string, args?: unknown) => (
        seen.push(args), args === undefined || (args as { path: string }).path === "a"
      ),
    };
    expect((await invoke("demo__read", { path: "a" }, { ...deps, profile })).envelope.status).toBe("success");
    const r = await invoke("demo__read", { path: "b" }, { ...deps, profile });
    expect(r.envelope).toMatchObject({
      error_code: "profile.excluded",
      message:
        'this call of demo__read is not offered in profile "half" (it offers only some calls of demo__read); a session with another profile can call it',
    });
    expect(seen).toEqual([{ path: "a" }, { path: "b" }, undefined]);
    expect(trace.steps.filter((s) => s === "run")).toHaveLength(1);
  });

  test("a boundary violation replaces the result whole and journals rule and place, not the value", async () => {
    const { trace, deps } = setup({ result: { content: [{ type: "text", text: "see /etc/shadow" }] } });
    const r = await invoke("demo__read", { path: "a" }, deps);
    expect(r.envelope).toEqual({ status: "failed", error_code: "sensitive_output_rejected" });
    expect(r.violation?.rule).toBe("local_path");
    expect(JSON.parse(trace.rows[0]!.detail!)).toEqual({ rule: "local_path", where: "$.content[0].text" });
    expect(JSON.stringify(trace.rows[0])).not.toContain("/etc/shadow");
  });

  test("the operator's note names the tool, the rule and where, never the value, and how the user may lift it", async () => {
    const { deps } = setup({ result: { content: [{ type: "text", text: "see /etc/shadow" }] } });
    const r = await invoke("demo__read", { path: "a" }, deps);
    expect(r.note).toBe(
      "demo__read: the result was withheld (sensitive_output_rejected): rule local_path at $.content[0].text, the value is not shown; " +
        "the call ran, so its effect (if any) stands; if this server's job is to answer with absolute paths, --allow-local-paths=demo lets them through",
    );
  });

  test("a rejected isError answer: the model sees the boundary's fixed object, the journal the server's error, the operator that the remote side may have acted", async () => {
    const raw = { content: [{ type: "text", text: "cannot open /home/u/x" }], isError: true };
    const { trace, deps } = setup({
      refuse: { code: "remote_tool", message: "cannot open /home/u/x", details: raw, raw },
    });
    const r = await invoke("demo__read", { path: "a" }, deps);
    expect(r.envelope).toEqual({ status: "failed", error_code: "sensitive_output_rejected" });
    expect(trace.rows.map((x) => [x.status, x.error_code, JSON.parse(x.detail!)])).toEqual([
      ["failed", "remote_tool", { rule: "local_path", where: "$.content[0].text", withheld: true }],
    ]);
    expect(JSON.stringify(trace.rows)).not.toContain("/home/u");
    expect(r.note).toBe(
      "demo__read: the server's error answer (remote_tool) was withheld (sensitive_output_rejected): rule local_path at $.content[0].text, the value is not shown; " +
        "the remote side may have acted; if this server's job is to answer with absolute paths, --allow-local-paths=demo lets them through",
    );
  });

  test("a clean isError answer is the server's error, checked as it was sent", async () => {
    const raw = { content: [{ type: "text", text: "no such row" }], isError: true };
    const { trace, deps } = setup({ refuse: { code: "remote_tool", message: "no such row", details: raw, raw } });
    const r = await invoke("demo__read", { path: "a" }, deps);
    expect(r.envelope).toEqual({
      status: "failed",
      tool: "demo__read",
      error_code: "remote_tool",
      message: "no such row",
      details: raw,
    });
    expect([r.note, trace.rows[0]!.detail]).toEqual([undefined, null]);
  });

  test("with the local-path rule switched off for the source, paths pass and every such call's row says who switched it off", async () => {
    const { trace, deps } = setup({
      localPathsOff: "--allow-local-paths=demo",
      result: { content: [{ type: "text", text: "/home/u/src/a.ts:1:1 error" }] },
    });
    const r = await invoke("demo__read", { path: "a" }, deps);
    expect(r.envelope).toEqual({
      status: "success",
      tool: "demo__read",
      payload: { content: [{ type: "text", text: "/home/u/src/a.ts:1:1 error" }] },
    });
    expect(JSON.parse(trace.rows[0]!.detail!)).toEqual({ local_paths: "off", by: "--allow-local-paths=demo" });
  });

  test("with the local-path rule off, the other rules still hold, and the row says both", async () => {
    const { trace, deps } = setup({
      localPathsOff: "mcpServers.demo.boundary.local_paths",
      result: { path: "/x", api_key: "k" },
    });
    const r = await invoke("demo__read", { path: "a" }, deps);
    expect(r.envelope).toEqual({ status: "failed", error_code: "sensitive_output_rejected" });
    expect(JSON.parse(trace.rows[0]!.detail!)).toEqual({
      rule: "secret_key",
      where: "$.api_key",
      local_paths: "off",
      by: "mcpServers.demo.boundary.local_paths",
    });
  });

  test("a call refused before it ran does not claim the rule was off", async () => {
    const { trace, deps } = setup({ localPathsOff: "--allow-local-paths=demo", permit: false });
    await invoke("demo__read", { path: "a" }, deps);
    expect(trace.rows.map((x) => [x.error_code, x.detail])).toEqual([["permission.denied", null]]);
  });

  test("built-ins are exempt from the local-path rule only", async () => {
    const ok = setup({ builtin: true, result: { text: "see /etc/shadow" } });
    expect((await invoke("demo__read", { path: "a" }, ok.deps)).envelope.status).toBe("success");
    const bad = setup({ builtin: true, result: { api_key: "x" } });
    expect((await invoke("demo__read", { path: "a" }, bad.deps)).envelope).toEqual({
      status: "failed",
      error_code: "sensitive_output_rejected",
    });
  });

  test("bound secrets are redacted from the result and the journal preview", async () => {
    const { trace, deps } = setup({ result: { text: "pw is hunter2-secret" } });
    const r = await invoke("demo__read", { path: "hunter2-secret" }, deps);
    expect(r.envelope).toEqual({ status: "success", tool: "demo__read", payload: { text: "pw is [REDACTED]" } });
    expect(trace.rows[0]!.args_preview).not.toContain("hunter2");
  });

  test("the call's cancellation reaches the adapter from both outer signals, and leaves no listener on them once done", async () => {
    // A signal shared by every call of a process (serve's drain), counting its listeners.
    const listeners = new Set<unknown>();
    const shared = {
      aborted: false,
      addEventListener: (_: string, f: unknown) => void listeners.add(f),
      removeEventListener: (_: string, f: unknown) => void listeners.delete(f),
    } as unknown as AbortSignal;
    const { deps } = setup({ builtin: true });
    const looked: AbortSignal[] = [];
    const entry = deps.catalog.entries.get("demo__read")!;
    const run = entry.adapter.run;
    (entry.adapter as { run: Adapter["run"] }).run = async (args, ctx) => (looked.push(ctx.signal), run(args, ctx));
    for (let i = 0; i < 50; i++) {
      const own = new AbortController();
      const r = await invoke("demo__read", { path: "a" }, { ...deps, signal: own.signal, stop: shared });
      expect(r.envelope.status).toBe("success");
      own.abort(); // after the call: reaches nothing any more
    }
    expect(looked).toHaveLength(50);
    expect(looked.every((s) => !s.aborted)).toBe(true);
    expect(listeners.size).toBe(0);
    // An adapter whose continuation first looks at its signal after it settled adds none either.
    let late: (() => AbortSignal) | undefined;
    (entry.adapter as { run: Adapter["run"] }).run = async (_args, ctx) => (
      (late = () => ctx.signal), { ok: true, value: {} }
    );
    await invoke("demo__read", { path: "a" }, { ...deps, stop: shared });
    expect(late!().aborted).toBe(false);
    expect(listeners.size).toBe(0);
    // While a call runs, either outer signal aborts what the adapter sees.
    for (const which of ["signal", "stop"] as const) {
      const outer = new AbortController();
      let seen: AbortSignal | undefined;
      (entry.adapter as { run: Adapter["run"] }).run = async (_args, ctx) => {
        seen = ctx.signal;
        outer.abort();
        return { ok: true, value: { aborted: ctx.signal.aborted } };
      };
      const r = await invoke("demo__read", { path: "a" }, { ...deps, [which]: outer.signal });
      expect({ which, payload: (r.envelope as { payload?: unknown }).payload }).toEqual({
        which,
        payload: { aborted: true },
      });
      expect(seen?.aborted).toBe(true);
    }
  });

  describe("a signal interrupts the call (SIGINT, SIGTERM)", () => {
    const interruptedDuring = (deps: InvokeDeps, signal: "SIGINT" | "SIGTERM", answer: Refusal) => {
      const outer = new AbortController();
      (deps.catalog.entries.get("demo__read")!.adapter as { run: Adapter["run"] }).run = async (_args, ctx) => {
        outer.abort(new Interrupted(signal));
        return ctx.signal.aborted ? { ok: false, refusal: answer } : { ok: true, value: {} };
      };
      return invoke("demo__read", { path: "a" }, { ...deps, signal: outer.signal });
    };

    test("an adapter whose processes were ended: failed `cancelled` naming the signal, its details kept; the row says so", async () => {
      const { trace, deps } = setup({ builtin: true });
      const r = await interruptedDuring(deps, "SIGTERM", {
        code: "bash.cancelled",
        message: "stopped",
        details: { ended: "cancelled" },
      });
      expect(r.envelope).toEqual({
        status: "failed",
        tool: "demo__read",
        error_code: "cancelled",
        message: "interrupted by SIGTERM: stopped",
        details: { ended: "cancelled", signal: "SIGTERM" },
      });
      expect(trace.rows.map((w) => [w.status, w.error_code, w.detail])).toEqual([
        ["failed", "cancelled", '{"signal":"SIGTERM"}'],
      ]);
    });

    test("an adapter whose remote effect may be pending: indeterminate `interrupted`, never `deadline`", async () => {
      const { trace, deps } = setup();
      const r = await interruptedDuring(deps, "SIGINT", {
        code: "interrupted",
        indeterminate: true,
        message: "read: cut before it answered",
      });
      expect(r.envelope).toEqual({
        status: "indeterminate",
        tool: "demo__read",
        error_code: "interrupted",
        message: "interrupted by SIGINT: read: cut before it answered",
        details: { signal: "SIGINT" },
      });
      expect(trace.rows.map((w) => [w.status, w.error_code, w.detail])).toEqual([
        ["indeterminate", "interrupted", '{"signal":"SIGINT"}'],
      ]);
    });

    test("a cancel with no signal behind it (a served client's, serve's drain) keeps the adapter's answer", async () => {
      const { deps } = setup({ builtin: true });
      const outer = new AbortController();
      (deps.catalog.entries.get("demo__read")!.adapter as { run: Adapter["run"] }).run = async () => (
        outer.abort(), { ok: false, refusal: { code: "bash.cancelled", message: "stopped" } }
      );
      expect((await invoke("demo__read", { path: "a" }, { ...deps, signal: outer.signal })).envelope).toEqual({
        status: "failed",
        tool: "demo__read",
        error_code: "bash.cancelled",
        message: "stopped",
      });
    });

    test("a call that finished before the signal keeps its result", async () => {
      const { deps } = setup({ result: { done: true } });
      const outer = new AbortController();
      (deps.catalog.entries.get("demo__read")!.adapter as { run: Adapter["run"] }).run = async () => (
        outer.abort(new Interrupted("SIGINT")), { ok: true, value: { done: true } }
      );
      expect((await invoke("demo__read", { path: "a" }, { ...deps, signal: outer.signal })).envelope).toEqual({
        status: "success",
        tool: "demo__read",
        payload: { done: true },
      });
    });

    test("Ctrl-C while asked, then a no: cancelled with the signal, not the refusal the prompt gave", async () => {
      const { trace, deps } = setup({ approve: false });
      const outer = new AbortController();
      const asked = { ...deps.approval, ask: () => (outer.abort(new Interrupted("SIGINT")), "n" as const) };
      const r = await invoke("demo__read", { path: "a" }, { ...deps, approval: asked, signal: outer.signal });
      expect(r.envelope).toMatchObject({ status: "failed", error_code: "cancelled", details: { signal: "SIGINT" } });
      expect(trace.steps).not.toContain("run");
    });

    test("interrupted before it started (while asked): nothing runs, no source starts, one row", async () => {
      const { trace, deps } = setup();
      const outer = new AbortController();
      outer.abort(new Interrupted("SIGINT"));
      const entry = deps.catalog.entries.get("demo__read")!;
      (entry.adapter as { begin?: Adapter["begin"] }).begin = () => (trace.steps.push("begin"), undefined);
      const r = await invoke("demo__read", { path: "a" }, { ...deps, signal: outer.signal });
      expect(r.envelope).toEqual({
        status: "failed",
        tool: "demo__read",
        error_code: "cancelled",
        message: "interrupted by SIGINT before demo__read started: nothing of it ran",
        details: { signal: "SIGINT" },
      });
      expect(trace.steps).not.toContain("begin");
      expect(trace.steps).not.toContain("run");
      expect(trace.started).toEqual([]);
      expect(trace.rows.map((w) => [w.status, w.error_code, w.detail])).toEqual([
        ["failed", "cancelled", '{"signal":"SIGINT"}'],
      ]);
    });
  });

  test("a refusal from the adapter is a failed envelope with its code", async () => {
    const { deps } = setup({ refuse: true });
    expect((await invoke("demo__read", { path: "a" }, deps)).envelope).toEqual({
      status: "failed",
      tool: "demo__read",
      error_code: "file.missing",
      message: "gone",
    });
  });

  test("a remote adapter past its deadline is indeterminate: its effect is unknown", async () => {
    const { deps } = setup({ slow: true });
    expect((await invoke("demo__read", { path: "a" }, deps)).envelope).toMatchObject({
      status: "indeterminate",
      error_code: "deadline",
    });
  });

  test("a built-in past its deadline fails with `deadline`", async () => {
    const { deps } = setup({ slow: true, builtin: true });
    expect((await invoke("demo__read", { path: "a" }, deps)).envelope).toMatchObject({
      status: "failed",
      error_code: "deadline",
    });
  });

  describe("the caller's deadline (scope.timeoutSecs, call --timeout)", () => {
    test("shorter than the tool's: the call ends at it, and the refusal names it", async () => {
      const { deps } = setup({ slow: true, builtin: true });
      const r = await invoke(
        "demo__read",
        { path: "a" },
        { ...deps, deadlineMs: 5000, scope: { ...deps.scope, timeoutSecs: 0.02 } },
      );
      expect(r.envelope).toEqual({
        status: "failed",
        tool: "demo__read",
        error_code: "deadline",
        message: "demo__read did not finish within 0.02 s",
      });
    });

    test("longer than the tool's: the tool's own deadline holds", async () => {
      const { deps } = setup({ slow: true, builtin: true });
      const r = await invoke("demo__read", { path: "a" }, { ...deps, scope: { ...deps.scope, timeoutSecs: 60 } });
      expect(r.envelope).toMatchObject({ error_code: "deadline", message: "demo__read did not finish within 0.05 s" });
    });

    test("handed to the adapter, which times its own run by it when it has a time limit (2 s more before the pipeline's timer)", async () => {
      const { deps } = setup();
      const entry = deps.catalog.entries.get("demo__read")!;
      let seen: number | undefined;
      const terms = {
        ...entry.terms,
        time: { kind: "own", deadlineMs: 30_000, limit: () => ({ secs: 30, setBy: "x" }) },
      } as const;
      const adapter = {
        ...entry.adapter,
        run: async (_: unknown, ctx: { timeoutSecs?: number }) => (
          (seen = ctx.timeoutSecs), { ok: true as const, value: {} }
        ),
      };
      const catalog = { ...deps.catalog, entries: new Map([["demo__read", { ...entry, terms, adapter }]]) };
      const r = await invoke(
        "demo__read",
        { path: "a" },
        { ...deps, catalog, scope: { ...deps.scope, timeoutSecs: 3 } },
      );
      expect([r.envelope.status, seen]).toEqual(["success", 3]);
    });
  });

  test("a schema the validator cannot check is a typed refusal, not a crash", async () => {
    const { trace, deps } = setup();
    const entry = deps.catalog.entries.get("demo__read")!;
    const bad = { ...entry, inputSchema: { type: "object", properties: { x: { $ref: "#/$defs/nowhere" } } } };
    const catalog = { ...deps.catalog, entries: new Map([["demo__read", bad]]) };
    const r = await invoke("demo__read", { x: "a" }, { ...deps, catalog });
    expect(r.envelope).toEqual({
      status: "failed",
      tool: "demo__read",
      error_code: "schema.unsupported",
      message:
        "demo__read's input schema cannot be checked here (can't resolve reference #/$defs/nowhere from id #); the tool is not called",
    });
    expect(trace.steps).toEqual([]);
  });

  test("a tool from another source is checked by the complete validator: $ref and $defs, formats, house wording", async () => {
    const { trace, deps } = setup();
    const entry = deps.catalog.entries.get("demo__read")!;
    const schema = {
      type: "object",
      properties: { step: { $ref: "#/$defs/Step" }, at: { type: "string", format: "date-time" } },
      required: ["step"],
      $defs: {
        Step: {
          type: "object",
          properties: { n: { type: "integer", minimum: 1 }, kind: { enum: ["a", "b"] } },
          required: ["n"],
        },
      },
    };
    const catalog = { ...deps.catalog, entries: new Map([["demo__read", { ...entry, inputSchema: schema }]]) };
    const bad = await invoke("demo__read", { step: { n: 0, kind: "c" }, at: "yesterday" }, { ...deps, catalog });
    expect(bad.envelope).toMatchObject({
      error_code: "args.invalid",
      message:
        'invalid arguments for demo__read: step.n: must be at least 1 (was 0); step.kind: must be "a" or "b"; at: must match format "date-time"',
    });
    const wrongType = await invoke("demo__read", { step: "x" }, { ...deps, catalog });
    expect(wrongType.envelope).toMatchObject({
      message: "invalid arguments for demo__read: step: must be an object (was string)",
    });
    const missing = await invoke("demo__read", {}, { ...deps, catalog });
    expect(missing.envelope).toMatchObject({ message: "invalid arguments for demo__read: step: must be present" });
    expect(trace.steps).toEqual([]);
    const good = await invoke(
      "demo__read",
      { step: { n: 2 }, at: "2026-11-30T17:00:00Z", path: "a" },
      { ...deps, catalog },
    );
    expect(good.envelope.status).toBe("success");
  });
});
