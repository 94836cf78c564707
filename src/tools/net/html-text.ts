// HTML to readable text with Bun's HTMLRewriter (lol-html, streaming): the title, then the text
// of the page without scripts, styles, navigation or forms; entities decoded by `entities`.
import { decodeHTML } from "entities";

/** Elements whose text is not the page's reading text. */
const SKIP =
  "script, style, noscript, template, svg, math, iframe, object, canvas, nav, aside, footer, form, button, select";
/** Elements that start a new line (or paragraph) in the text. */
const BLOCK =
  "p, div, br, li, dt, dd, h1, h2, h3, h4, h5, h6, tr, section, article, main, header, pre, blockquote, " +
  "table, ul, ol, dl, figure, figcaption, hr, address, details, summary";

export interface PageText {
  readonly title: string;
  readonly text: string;
  /** The page was not read to its end: it already gave far more text than `wantChars`. */
  readonly cut: boolean;
}

/** The page is fed in slices of this many characters, so reading can stop once there is enough text. */
const SLICE = 32 * 1024;

/**
 * `wantChars`: how much text the caller keeps. Past twice that (before whitespace is folded),
 * the rest of the page is not parsed: most of a big page's cost is the rewriter's callbacks.
 */
export async function htmlToText(html: string, wantChars = Infinity): Promise<PageText> {
  let raw = 0;
  let skip = 0;
  let inTitle = false;
  let titles = 0;
  let title = "";
  const parts: string[] = [];
  const rewriter = new HTMLRewriter()
    .on("title", {
      // The document's first title only (an SVG's <title> is inside a skipped element).
      element(el) {
        if (skip > 0 || !el.canHaveContent || titles++ > 0) return;
        inTitle = true;
        el.onEndTag(() => void (inTitle = false));
      },
      text(t) {
        if (inTitle && title.length < 1000) title += t.text;
      },
    })
    .on(SKIP, {
      element(el) {
        if (el.selfClosing || el.removed) return;
        skip++;
        // A void or unclosed element has no end tag to count it back down.
        if (!el.canHaveContent) return void skip--;
        el.onEndTag(() => void skip--);
      },
    })
    .on(BLOCK, {
      element(el) {
        parts.push("\n");
        if (el.canHaveContent) el.onEndTag(() => void parts.push("\n"));
      },
    })
    .onDocument({
      text(t) {
        if (skip === 0 && !inTitle) {
          parts.push(t.text);
          raw += t.text.length;
        }
      },
    });
  let at = 0;
  let cut = false;
  const source = new ReadableStream<string>({
    pull(c) {
      if (at >= html.length) return c.close();
      if (raw > wantChars * 2 + SLICE) {
        cut = true;
        return c.close();
      }
      c.enqueue(html.slice(at, (at += SLICE)));
    },
  });
  await rewriter.transform(new Response(source.pipeThrough(new TextEncoderStream()))).arrayBuffer();
  return { title: tidy(decodeHTML(title)).replace(/\n+/g, " "), text: tidy(decodeHTML(parts.join(""))), cut };
}

/** Runs of spaces become one, lines are trimmed, and at most one blank line separates paragraphs. */
function tidy(s: string): string {
  return s
    .replace(/[ \t\f\v\r\u00a0]+/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
