// HTML to readable text: what is kept, what is dropped, and the early stop on a long page.
import { describe, expect, test } from "bun:test";
import { htmlToText } from "../../../src/tools/net/html-text.ts";

describe("htmlToText", () => {
  test("title and text; scripts, styles, navigation and forms dropped; entities decoded; blocks on their own lines", async () => {
    const html = `<!doctype html><html><head><title>A &amp; B</title><style>p{}</style><script>var x = "<p>no</p>";</script></head>
      <body><nav><a href="/">Home</a></nav><h1>Caf&eacute; &#x41;&#66;</h1><p>one <b>two</b><br>three</p>
      <form><button>Send</button></form><ul><li>a</li><li>b</li></ul><footer>foot</footer><noscript>js off</noscript></body></html>`;
    expect(await htmlToText(html)).toEqual({ title: "A & B", text: "Café AB\n\none two\nthree\n\na\n\nb", cut: false });
  });
  test("only the document's first title counts; an SVG title is not it", async () => {
    expect((await htmlToText("<svg><title>icon</title></svg><title>Page</title><p>x</p>")).title).toBe("Page");
  });
  test("a page far longer than the text wanted is not parsed to its end", async () => {
    const r = await htmlToText(`<title>t</title>${"<p>word word word</p>".repeat(50_000)}<p>END</p>`, 1000);
    expect([r.cut, r.text.includes("END"), r.text.length > 1000]).toEqual([true, false, true]);
  });
});
