// Where a value stands in a config file that is plain JSON (JSON.parse took it): the offset of
// the value at a key path, found by one scan of the text. jsonc-parser's tree gives the same answer
// (a test holds them equal), but a server's start needs one line number for its journal row before
// the spawn, and loading that parser and building the file's whole tree cost about 0.4 ms there.
import { closingQuote } from "../schema/duplicate-key.ts";

/**
 * The offset of the value at `path` in `text` (valid JSON: the caller parsed it), or undefined when
 * nothing is there. As jsonc-parser's findNodeAtLocation: an object's first property of that
 * (decoded) name, an array's element by index.
 */
export function offsetAt(text: string, path: readonly (string | number)[]): number | undefined {
  let at = skipSpace(text, 0);
  for (const segment of path) {
    const c = text[at];
    if (typeof segment === "string") {
      if (c !== "{") return undefined;
      const found = findProperty(text, at, segment);
      if (found === undefined) return undefined;
      at = found;
    } else {
      if (c !== "[" || !Number.isInteger(segment) || segment < 0) return undefined;
      const found = findElement(text, at, segment);
      if (found === undefined) return undefined;
      at = found;
    }
  }
  return at;
}

/** In the object at `at`, the offset of the value of its first property named `name`. */
function findProperty(text: string, at: number, name: string): number | undefined {
  let i = skipSpace(text, at + 1);
  if (text[i] === "}") return undefined;
  for (;;) {
    const keyEnd = endOfString(text, i);
    const raw = text.slice(i, keyEnd);
    const key = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
    const value = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
    if (key === name) return value;
    i = skipSpace(text, endOfValue(text, value));
    if (text[i] !== ",") return undefined;
    i = skipSpace(text, i + 1);
  }
}

/** In the array at `at`, the offset of its element `index`. */
function findElement(text: string, at: number, index: number): number | undefined {
  let i = skipSpace(text, at + 1);
  if (text[i] === "]") return undefined;
  for (let n = 0; ; n++) {
    if (n === index) return i;
    i = skipSpace(text, endOfValue(text, i));
    if (text[i] !== ",") return undefined;
    i = skipSpace(text, i + 1);
  }
}

/** The offset just past the value that starts at `at`. */
function endOfValue(text: string, at: number): number {
  const c = text[at];
  if (c === '"') return endOfString(text, at);
  if (c !== "{" && c !== "[") {
    let i = at;
    while (i < text.length && !DELIMITER.has(text[i]!)) i++;
    return i;
  }
  // Brackets nest; strings may hold any bracket.
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const d = text[i];
    if (d === '"') i = endOfString(text, i) - 1;
    else if (d === "{" || d === "[") depth++;
    else if ((d === "}" || d === "]") && --depth === 0) return i + 1;
  }
  return text.length;
}

const DELIMITER = new Set([",", "}", "]", " ", "\t", "\n", "\r"]);

/** The offset just past the string whose opening quote is at `at`. */
const endOfString = (text: string, at: number): number => closingQuote(text, at) + 1;

function skipSpace(text: string, at: number): number {
  let i = at;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
  }
  return i;
}
