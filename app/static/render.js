/* Markdown with math for the judge's pages: window.JudgeRender.
 *
 *   JudgeRender.markdown(text)  -> HTML string (block Markdown, $..$ and $$..$$ typeset)
 *   JudgeRender.inline(text)    -> HTML string (one paragraph's worth, no <p> wrapper)
 *
 * The math is taken out of the Markdown before marked sees it: two marked extensions claim
 * `$$ ... $$` (display) and `$ ... $` (inline) spans as opaque tokens, so underscores, stars and
 * backslashes inside a formula are never read as emphasis or escapes, and a `$` inside inline
 * code or a fenced code block stays plain text (marked tokenizes code first). Each math token
 * is then typeset by KaTeX. Raw HTML in the Markdown is shown as text, not interpreted.
 * Needs KaTeX (window.katex) and marked (window.marked) from vendor/ loaded first.
 */
(function () {
  "use strict";

  function escapeHtml(text) {
    return String(text)
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&#39;");
  }

  function typeset(tex, display) {
    if (!window.katex) {
      return '<code class="math-source">' + escapeHtml(tex) + "</code>";
    }
    return window.katex.renderToString(tex, {
      displayMode: display,
      throwOnError: false,
      output: "htmlAndMathml",
    });
  }

  function firstDollar(src) {
    const index = src.indexOf("$");
    return index < 0 ? undefined : index;
  }

  // $$ ... $$ on its own lines (possibly spanning several lines).
  const blockMath = {
    name: "blockMath",
    level: "block",
    start(src) {
      const match = /(^|\n) {0,3}\$\$/.exec(src);
      return match ? match.index + match[1].length : undefined;
    },
    tokenizer(src) {
      const match = /^ {0,3}\$\$([\s\S]+?)\$\$[ \t]*(?:\n+|$)/.exec(src);
      if (match) return { type: "blockMath", raw: match[0], text: match[1].trim() };
      return undefined;
    },
    renderer(token) {
      return '<div class="math-display">' + typeset(token.text, true) + "</div>\n";
    },
  };

  // $$ ... $$ inside a paragraph (display), or $ ... $ (inline). An inline formula may not start
  // or end with a space, be followed by a digit or hold a backtick (so it never runs into code),
  // so "costs $5 or $6" stays text; it may end with an escape ($N = \{3, 1\}$).
  const inlineMath = {
    name: "inlineMath",
    level: "inline",
    start: firstDollar,
    tokenizer(src) {
      let match = /^\$\$([\s\S]+?)\$\$/.exec(src);
      if (match) return { type: "inlineMath", raw: match[0], text: match[1].trim(), display: true };
      match = /^\$(?!\s)((?:\\[\s\S]|[^\\$\n`])*?(?:\\[\s\S]|[^\\\s$`]))\$(?!\d)/.exec(src);
      if (match) return { type: "inlineMath", raw: match[0], text: match[1], display: false };
      return undefined;
    },
    renderer(token) {
      return typeset(token.text, token.display);
    },
  };

  let parser = null;

  function getParser() {
    if (parser) return parser;
    if (!window.marked || !window.marked.Marked) {
      return null;
    }
    parser = new window.marked.Marked({ gfm: true, breaks: false });
    parser.use({
      extensions: [blockMath, inlineMath],
      renderer: {
        html(token) {
          return escapeHtml(token.text);
        },
        link(token) {
          const text = this.parser.parseInline(token.tokens);
          const href = String(token.href || "");
          if (/^\s*javascript:/i.test(href)) return text;
          const external = /^[a-z][a-z0-9+.-]*:/i.test(href);
          const title = token.title ? ' title="' + escapeHtml(token.title) + '"' : "";
          const rel = external ? ' rel="noopener noreferrer"' : "";
          return '<a href="' + escapeHtml(href) + '"' + title + rel + ">" + text + "</a>";
        },
      },
    });
    return parser;
  }

  function markdown(text) {
    const p = getParser();
    if (!p) return "<pre>" + escapeHtml(text) + "</pre>";
    return p.parse(String(text || ""));
  }

  function inline(text) {
    const p = getParser();
    if (!p) return escapeHtml(text);
    return p.parseInline(String(text || ""));
  }

  window.JudgeRender = Object.freeze({ markdown, inline, escapeHtml, typeset });
})();
