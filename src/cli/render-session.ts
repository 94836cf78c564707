// `toolgate session status` on a terminal: the session's facts, one a line.
import type { Status } from "../session/protocol.ts";

export function sessionLines(st: Status): string {
  const servers = st.servers.length
    ? st.servers.map((x) => `${x.name}${x.pid ? ` (pid ${x.pid})` : ""}`).join(", ")
    : "none";
  return [
    `pid        ${st.pid}`,
    `workspace  ${st.workspace}`,
    `socket     ${st.socket}`,
    `config     ${st.config ?? "(none)"}`,
    `uptime     ${st.uptime_secs} s (ends after ${st.idle_secs} s without a call)`,
    `calls      ${st.calls} served, ${st.in_flight} in flight`,
    `memory     ${Math.round(st.rss_bytes / 1048576)} MB`,
    `servers    ${servers}`,
    `secrets    ${st.env_bound.length ? st.env_bound.join(", ") : "none"} (from the environment the ` +
      `session started with)`,
  ].join("\n");
}
