// `toolgate log --html FILE`: one self-contained page of the journal for a reviewer of an agent's
// run: counts by outcome, a timeline of the calls with their durations, denials and withheld
// results marked, filters by tool and outcome, and the rows. No network and no outside asset (a
// content security policy forbids both); the rows travel as JSON inside the page and are shown with
// textContent only, so nothing a row holds (a tool's name, an argument preview) is read as markup.
import type { JournalEntry as ActionRow } from "../state/journal.ts";

/** What a row's outcome is on the page: a refusal for want of a grant, a withheld result, or its status. */
export function outcomeOf(
  r: Pick<ActionRow, "status" | "error_code">,
): "success" | "denied" | "withheld" | "failed" | "indeterminate" | "running" {
  if (r.status === "success") return "success";
  if (r.error_code === "sensitive_output_rejected") return "withheld";
  if (r.error_code !== null && /^(permission\.denied|approval\.|profile\.excluded)/.test(r.error_code)) return "denied";
  if (r.status === "indeterminate") return "indeterminate";
  if (r.status === "running") return "running";
  return "failed";
}

/** The rows as the page carries them: JSON whose `<` cannot end the script element it sits in. */
const data = (rows: readonly ActionRow[]) =>
  JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      time: r.time_ms,
      tool: r.tool,
      status: r.status,
      code: r.error_code ?? "",
      ms: r.duration_ms,
      outcome: outcomeOf(r),
      caller: r.caller_sub ?? r.caller_client ?? "",
      args: r.args_preview,
    })),
  )
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1f2328;background:#fff}
h1{font-size:20px;margin:0 0 4px}.sub{color:#59636e;margin-bottom:16px}
.counts{display:flex;gap:8px;flex-wrap:wrap;margin-bottom:12px}.count{padding:4px 10px;border-radius:12px;background:#f6f8fa}
.filters{display:flex;gap:12px;margin:12px 0}select{font:inherit}
.timeline{position:relative;border:1px solid #d1d9e0;border-radius:6px;padding:8px;margin-bottom:16px}
.lane{display:flex;align-items:center;height:18px;margin:2px 0}.lane .name{width:180px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-size:12px}
.lane .track{position:relative;flex:1;height:12px}.bar{position:absolute;height:12px;min-width:3px;border-radius:2px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eef1f4;vertical-align:top}
td.args{font-family:ui-monospace,monospace;font-size:12px;word-break:break-all}
:is(.tag,.bar).success{background:#1a7f37}:is(.tag,.bar).failed{background:#cf222e}:is(.tag,.bar).denied{background:#bc4c00}
:is(.tag,.bar).withheld{background:#8250df}:is(.tag,.bar).indeterminate{background:#6e7781}:is(.tag,.bar).running{background:#0969da}
tr.denied td{background:#fff4e5}tr.withheld td{background:#f6f0ff}.tag{color:#fff;border-radius:10px;padding:1px 8px;font-size:12px}
`;

const SCRIPT = `
const rows = JSON.parse(document.getElementById("rows").textContent);
const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = String(text); return e; };
const outcomes = ["success", "failed", "denied", "withheld", "indeterminate", "running"];
const toolSel = document.getElementById("tool"), outSel = document.getElementById("outcome");
for (const t of [...new Set(rows.map((r) => r.tool))].sort()) toolSel.append(new Option(t, t));
for (const o of outcomes) if (rows.some((r) => r.outcome === o)) outSel.append(new Option(o, o));
const counts = document.getElementById("counts");
for (const o of outcomes) { const n = rows.filter((r) => r.outcome === o).length; if (n) { const c = el("span", "count"); c.append(el("span", "tag " + o, o), " " + n); counts.append(c); } }
function render() {
  const shown = rows.filter((r) => (!toolSel.value || r.tool === toolSel.value) && (!outSel.value || r.outcome === outSel.value));
  const start = Math.min(...shown.map((r) => r.time)), end = Math.max(...shown.map((r) => r.time + r.ms), start + 1);
  const tl = document.getElementById("timeline"); tl.replaceChildren();
  for (const r of shown) {
    const lane = el("div", "lane"), track = el("div", "track"), bar = el("div", "bar " + r.outcome);
    bar.style.left = ((r.time - start) / (end - start)) * 100 + "%";
    bar.style.width = Math.max(0.3, (r.ms / (end - start)) * 100) + "%";
    bar.title = r.tool + ": " + r.outcome + (r.code ? " (" + r.code + ")" : "") + ", " + r.ms + " ms";
    track.append(bar); lane.append(el("span", "name", r.tool), track); tl.append(lane);
  }
  const body = document.getElementById("body"); body.replaceChildren();
  for (const r of shown) {
    const tr = el("tr", r.outcome); tr.dataset.id = r.id;
    const st = el("td"); st.append(el("span", "tag " + r.outcome, r.outcome));
    tr.append(el("td", "", new Date(r.time).toISOString()), el("td", "", r.tool), st, el("td", "", r.code), el("td", "", r.ms), el("td", "", r.caller), el("td", "args", r.args));
    body.append(tr);
  }
  document.getElementById("shown").textContent = shown.length + " of " + rows.length + " calls";
}
toolSel.onchange = outSel.onchange = render;
render();
`;

/** The page: `title` names the workspace it was made for (escaped), `made` when. */
export function journalPage(rows: readonly ActionRow[], o: { readonly title: string; readonly made: Date }): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>toolgate journal: ${esc(o.title)}</title><style>${STYLE}</style></head>
<body><h1>toolgate journal</h1><div class="sub">${esc(o.title)} · made ${esc(o.made.toISOString())} · <span id="shown"></span></div>
<div class="counts" id="counts"></div>
<div class="filters"><label>tool <select id="tool"><option value="">all</option></select></label><label>outcome <select id="outcome"><option value="">all</option></select></label></div>
<div class="timeline" id="timeline"></div>
<table><thead><tr><th>time</th><th>tool</th><th>outcome</th><th>code</th><th>ms</th><th>caller</th><th>arguments</th></tr></thead><tbody id="body"></tbody></table>
<script type="application/json" id="rows">${data(rows)}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}
