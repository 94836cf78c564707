// How `toolgate tools` shows the catalog it booted: the names alone (--names), one descriptor
// (NAME), NDJSON when piped or with --json, else a table with the sandbox mode under it; what
// failed or was withheld, and the profile, as human lines on stderr (stdout stays the listing).
import { effectivePolicy } from "../approval/approval.ts";
import { renderLock, writeLock } from "../catalog/lock.ts";
import { escapeControl, jsonForTerminal } from "../result/escape.ts";
import { note } from "../result/human.ts";
import { CliError, ExitCode } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import type { Booted } from "../runtime/boot.ts";
import type { Profile } from "../serve/profiles.ts";
import type { ServedNames } from "../serve/names.ts";
import { withheldToolNotes } from "../servers/list.ts";
import type { RunContext } from "./context.ts";
import { bool, type Scanned } from "./flags.ts";
import type { ToolFilter } from "./tools-filter.ts";
import { outputWidth, table, writeOut } from "./ui.ts";

export function listTools(
  booted: Booted,
  s: Scanned,
  name: string | undefined,
  ctx: RunContext,
  profile: Profile,
  served: ServedNames | undefined,
  filter: ToolFilter,
): number {
  if (bool(s, "names")) {
    const names = booted.catalog.descriptors
      .filter((d) => profile.offers(d.name) && filter.keeps(d))
      .map((d) => escapeControl(d.name));
    if (names.length) writeOut(names.join("\n"));
    return 0;
  }
  // Which servers failed and why: human text, so stderr (stdout stays one descriptor per line).
  for (const st of booted.remote?.status ?? []) {
    if (st.withheld !== undefined) note(`${st.origin} withheld (none of its tools is offered): ${st.withheld}`);
    else if (!st.ok)
      note(`${st.origin} failed${st.cached ? " (remembered, retried after 30 s)" : ""}: ${st.error ?? ""}`);
  }
  for (const line of withheldToolNotes(booted.remote?.status ?? [])) note(line);
  const json = bool(s, "json") || !ctx.stdoutIsTTY;
  // The sandbox mode: under the table, else on stderr (stdout stays one descriptor per line).
  if (json) note(`sandbox: ${booted.sandbox.summary}`);
  // The effective approval policy (a config that made a tool stricter shows "required"), as tools/list shows it.
  const overrides = (booted.config.values.approval ?? {}) as Record<string, "required" | "never">;
  const all = booted.catalog.descriptors.map((d) => ({ ...d, approval: effectivePolicy(d, overrides) }));
  const offered = all.filter((d) => profile.offers(d.name));
  const descriptors = name !== undefined ? offered : offered.filter((d) => filter.keeps(d));
  if (json && profile.name !== "full") note(`profile: ${profile.name} (${offered.length} of ${all.length} tools)`);
  if (bool(s, "lock")) {
    writeLock(booted.lockPath, renderLock(descriptors));
    note(`wrote ${booted.lockPath} (${descriptors.length} tools pinned)`);
    return 0;
  }
  const pin = (n: string) => booted.refused.get(n)?.code;
  // The served name right after the catalog name, when asked for.
  const withServed = <T extends { name: string }>({ name: n, ...rest }: T) =>
    served ? { name: n, served: served.toServed.get(n)!, ...rest } : { name: n, ...rest };
  if (name !== undefined) {
    const d = descriptors.find((x) => x.name === name);
    if (!d && all.some((x) => x.name === name))
      throw new CliError(
        ExitCode.failed,
        `profile.excluded: ${name} is not offered in profile "${profile.name}"`,
        `run \`toolgate tools --profile ${profile.name}\` for what it offers`,
      );
    if (!d)
      throw new CliError(
        ExitCode.failed,
        `unknown_tool: no tool named "${name}" in this catalog${didYouMean(
          nearest(
            name,
            descriptors.map((x) => x.name),
          ),
        )}`,
        "run `toolgate tools` for the list",
      );
    writeOut(jsonForTerminal(withServed(d), json && !bool(s, "json") ? 0 : 2));
    return 0;
  }
  if (json) {
    writeOut(
      descriptors
        .map(({ inputSchema: _, ...d }) =>
          jsonForTerminal(withServed(pin(d.name) ? { ...d, refused: pin(d.name) } : d)),
        )
        .join("\n"),
    );
    return 0;
  }
  // A server's tool whose name had to be mapped (dots, slashes, spaces, length) shows the name its server wrote.
  const mapped = descriptors.some((d) => d.original !== undefined);
  const rows = [
    [
      "NAME",
      ...(served ? ["SERVED"] : []),
      ...(mapped ? ["ORIGINAL"] : []),
      "ORIGIN",
      "EFFECT",
      "APPROVAL",
      "DIGEST",
      "DESCRIPTION",
    ],
  ];
  for (const d of descriptors) {
    rows.push([
      d.name,
      ...(served ? [served.toServed.get(d.name)!] : []),
      ...(mapped ? [d.original ?? ""] : []),
      d.origin,
      d.effect,
      d.approval + (d.note ? "*" : ""),
      d.digest.slice(0, 12) + (pin(d.name) ? ` (${pin(d.name)})` : ""),
      firstSentence(d.description),
    ]);
  }
  const notes = descriptors.filter((d) => d.note).map((d) => `* ${escapeControl(d.name)}: ${d.note}`);
  const shown =
    (profile.name === "full"
      ? ""
      : `profile: ${escapeControl(profile.name)} (${offered.length} of ${all.length} tools)\n`) +
    (filter.active ? `filtered: ${descriptors.length} of ${offered.length} tools\n` : "");
  writeOut(
    `${descriptors.length || !filter.active ? table(rows, outputWidth(ctx)) : "(no tool matches)"}\n\n${notes.length ? `${notes.join("\n")}\n` : ""}${shown}sandbox: ${escapeControl(booted.sandbox.summary)}`,
  );
  return 0;
}

const firstSentence = (s: string) => {
  const i = s.indexOf(". ");
  return i > 0 ? s.slice(0, i + 1) : s;
};
