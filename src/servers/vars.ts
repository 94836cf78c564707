// Variables in an mcpServers entry, as MCP clients write them: ${NAME}, ${NAME:-default},
// ${env:NAME} (the parent's NAME: a secret and an env need), ${workspaceFolder}, ${userHome}.
// Pure: a parent variable stays `${NAME}` in the template (what prompts, journal and digests show); its value is bound.

export interface VarContext {
  readonly parent: Readonly<Record<string, string | undefined>>;
  readonly workspace: string;
}

export type Expanded =
  | {
      readonly ok: true;
      readonly template: string;
      readonly bound: Readonly<Record<string, string>>;
      readonly names: readonly string[];
    }
  | { readonly ok: false; readonly problem: string };

const NAME = "[A-Za-z_][A-Za-z0-9_]*";
// The client-defined names first: `workspaceFolder` also has the shape of a NAME.
const FORMS = new RegExp(`^(?:(workspaceFolder)|(userHome)|(${NAME})|(${NAME}):-([^}]*)|env:(${NAME}))$`);
// biome-ignore lint/suspicious/noTemplateCurlyInString: the ${NAME} forms are the config's own syntax, shown as written
const HINT = "write ${NAME}, ${NAME:-default}, ${env:NAME}, ${workspaceFolder} or ${userHome}";

/** One string with every `${...}` read: parent variables bound (kept as `${NAME}`), the rest put in. */
export function expandVars(raw: string, ctx: VarContext): Expanded {
  let template = "";
  const bound: Record<string, string> = {};
  const names: string[] = [];
  let i = 0;
  for (;;) {
    const at = raw.indexOf("${", i);
    if (at === -1) break;
    const end = raw.indexOf("}", at + 2);
    if (end === -1) return { ok: false, problem: `"${raw.slice(at)}" opens a variable and never closes it (${HINT})` };
    const body = raw.slice(at + 2, end);
    const m = FORMS.exec(body);
    if (!m) return { ok: false, problem: `\${${body}} is not a variable toolgate knows (${HINT})` };
    template += raw.slice(i, at);
    i = end + 1;
    if (m[1]) template += ctx.workspace;
    else if (m[2]) {
      const home = ctx.parent.HOME;
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${userHome} is the config's own syntax, named as written
      if (home === undefined) return { ok: false, problem: "${userHome} is used and HOME is not set" };
      template += home;
    } else {
      const name = (m[3] ?? m[4] ?? m[6])!;
      const value = ctx.parent[name];
      if (value === undefined) {
        if (m[4] === undefined)
          return {
            ok: false,
            problem:
              `\${${body}} takes ${name} from the environment, and ${name} is not set (set it, or give a ` +
              `default: \${${name}:-value})`,
          };
        template += m[5]!;
        continue;
      }
      template += `\${${name}}`;
      bound[name] = value;
      if (!names.includes(name)) names.push(name);
    }
  }
  return { ok: true, template: template + raw.slice(i), bound, names };
}

/** A template with each bound `${NAME}` put in (at connect time, never shown). */
export const fillVars = (template: string, bound: Readonly<Record<string, string>>): string =>
  template.replace(new RegExp(`\\$\\{(${NAME})\\}`, "g"), (m, name: string) => bound[name] ?? m);

/** The lines of an env file: KEY=VALUE, `export ` allowed, # comments, optional quotes. */
export function parseEnvFile(
  text: string,
): { ok: true; values: Record<string, string> } | { ok: false; problem: string } {
  const values: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.trim();
    if (line === "" || line.startsWith("#")) continue;
    const m = new RegExp(`^(?:export\\s+)?(${NAME})\\s*=\\s*(.*)$`).exec(line);
    if (!m) return { ok: false, problem: `line ${n + 1} is not KEY=VALUE` };
    let v = m[2]!;
    if (v.length >= 2 && (v[0] === '"' || v[0] === "'") && v.at(-1) === v[0]) v = v.slice(1, -1);
    else v = v.replace(/\s+#.*$/, "");
    values[m[1]!] = v;
  }
  return { ok: true, values };
}
