// The first object key given twice within one object of a JSON text, found by one scan of the text
// (no parse tree): the output boundary refuses such a result (readers disagree on which copy
// counts), and a config file that has one is refused too (src/config/file.ts).

/** A path segment found by the duplicate-key scan: an array index or an object key with its position. */
export type Segment = number | { key: string; index: number };

interface Frame {
  keys: Set<string> | null; // null for an array
  count: number; // keys seen (object) or commas seen, i.e. the current index (array)
  key: string; // the current key of an object frame
}

/**
 * The path of the first object key that repeats within one object of `text`, or null.
 * `text` must already be known to be valid JSON (JSON.parse accepted it): the scan trusts the
 * grammar and only tracks strings, containers and commas. The scan is iterative, so text nested
 * deeper than any call stack is fine.
 */
export function findDuplicateKey(text: string): Segment[] | null {
  const stack: Frame[] = [];
  let top: Frame | undefined;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const end = closingQuote(text, i);
      if (top !== undefined && top.keys !== null && expectKey) {
        const raw = text.slice(i + 1, end);
        const key = raw.indexOf("\\") === -1 ? raw : (JSON.parse(text.slice(i, end + 1)) as string);
        if (top.keys.has(key)) return pathOf(stack, key, top.count);
        top.keys.add(key);
        top.key = key;
        top.count++;
        expectKey = false;
      }
      i = end;
    } else if (c === 123 || c === 91) {
      top = { keys: c === 123 ? new Set() : null, count: 0, key: "" };
      stack.push(top);
      expectKey = c === 123;
    } else if (c === 125 || c === 93) {
      stack.pop();
      top = stack[stack.length - 1];
    } else if (c === 44 && top !== undefined) {
      if (top.keys === null) top.count++;
      else expectKey = true;
    }
  }
  return null;
}

/**
 * Index of the quote that closes the string literal opening at i (an even run of backslashes before
 * it), in text known to be valid JSON; also how config/locate.ts steps over a string.
 */
export function closingQuote(text: string, i: number): number {
  let end = text.indexOf('"', i + 1);
  for (;;) {
    let b = end - 1;
    while (text.charCodeAt(b) === 92) b--;
    if ((end - 1 - b) % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

function pathOf(stack: Frame[], duplicate: string, index: number): Segment[] {
  const path: Segment[] = [];
  for (let d = 0; d < stack.length - 1; d++) {
    const f = stack[d]!;
    path.push(f.keys === null ? f.count : { key: f.key, index: f.count - 1 });
  }
  path.push({ key: duplicate, index });
  return path;
}
