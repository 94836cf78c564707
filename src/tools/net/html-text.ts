// HTML to readable text with Bun's HTMLRewriter (lol-html, streaming): the title, then the text
// of the page without scripts, styles, navigation or forms; entities decoded by `entities`.
import { decodeHTML } from "entities";

/** Elements whose text is not the page's reading text. */
const SKIP = "script, style, noscript, template, svg, math, iframe, object, canvas, nav, aside, footer, form, button, select, head";
/** Elements that start a new line (or paragraph) in the text. */
const BLOCK = "p, div, br, li, dt, dd, h1, h2, h3, h4, h5, h6, tr, section, article, main, header, pre, blockquote, table, ul, ol, dl, figure, figcaption, hr, address, details, summary";

export interface PageText {
  readonly title: string;
  readonly text: string;
}

export async function htmlToText(html: string): Promise<PageText> {
  let skip = 0;
  let inTitle = false;
  let title = "";
  const parts: string[] = [];
  const rewriter = new HTMLRewriter()
    .on("title", {
      element(el) {
        inTitle = true;
        el.onEndTag(() => void (inTitle = false));
      },
      text(t) {
        if (title.length < 1000) title += t.text;
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
        if (skip === 0 && !inTitle) parts.push(t.text);
      },
    });
  await rewriter.transform(new Response(html)).arrayBuffer();
  return { title: tidy(decodeHTML(title)).replace(/\n+/g, " "), text: tidy(decodeHTML(parts.join(""))) };
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
