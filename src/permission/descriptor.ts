// One typed descriptor per permission kind, parsed once from a need's or a grant's text: a real
// path (read, write), a program (run), a host and port (net), a variable name (env). Matching
// compares descriptors; the text is parsed again nowhere. Pure but for real-path lookups.
import { resolveReal } from "../fs/real-path.ts";
import { formatNet, parseNet } from "./net.ts";
import type { PermKind } from "./types.ts";

export interface ReadDescriptor {
  readonly kind: "read";
  /** The real path (symlinks resolved), or a deny's path as written when it cannot be resolved. */
  readonly path: string;
}
export interface WriteDescriptor {
  readonly kind: "write";
  readonly path: string;
}
export interface RunDescriptor {
  readonly kind: "run";
  /** A bare program name, or the real path of one given with a slash. */
  readonly program: string;
}
export interface NetDescriptor {
  readonly kind: "net";
  /** Canonical (lowercase, punycode, normalized IP; IPv6 in brackets). */
  readonly host: string;
  /** Absent: any port. */
  readonly port?: number;
}
export interface EnvDescriptor {
  readonly kind: "env";
  /** A variable name; a grant's may end in `*` (every name with that prefix). */
  readonly name: string;
}

export type Descriptor = ReadDescriptor | WriteDescriptor | RunDescriptor | NetDescriptor | EnvDescriptor;

/**
 * Parses `raw` as a `kind` value against `cwd`; null when it names nothing of that kind (an
 * empty value, a NUL byte, a symlink loop, a malformed host).
 */
export function parseDescriptor(kind: PermKind, raw: string, cwd: string): Descriptor | null {
  switch (kind) {
    case "read":
    case "write": {
      const path = resolveReal(raw, cwd);
      return path === null ? null : { kind, path };
    }
    case "run": {
      const program = raw.includes("/") ? resolveReal(raw, cwd) : raw === "" ? null : raw;
      return program === null ? null : { kind, program };
    }
    case "net": {
      const net = parseNet(raw);
      return net === null ? null : { kind, ...net };
    }
    case "env":
      return raw === "" ? null : { kind, name: raw };
  }
}

/**
 * A deny's value as written, when it cannot be parsed: it still refuses what it spells. A net value
 * that is no host matches nothing, so none is kept for it.
 */
export function writtenDescriptor(kind: PermKind, raw: string): Descriptor | null {
  switch (kind) {
    case "read":
    case "write":
      return { kind, path: raw };
    case "run":
      return { kind, program: raw };
    case "net":
      return null;
    case "env":
      return { kind, name: raw };
  }
}

/** The descriptor's canonical text: what a flag, a message and a handler see. */
export function descriptorText(d: Descriptor): string {
  switch (d.kind) {
    case "read":
    case "write":
      return d.path;
    case "run":
      return d.program;
    case "net":
      return formatNet(d);
    case "env":
      return d.name;
  }
}
