/* The theory section under each exercise statement (#theory-body), all computed here:
 *
 *  - why speculative decoding is exact, checked token by token on the worked example
 *    (p0 = [0.2, 0.5, 0.3], q0 = [0.5, 0.3, 0.2]): min(p, q) + (1 - alpha) * residual = p;
 *  - an SVG plot, drawn by this script, of the expected tokens per target pass
 *    E(K) = (1 - alpha^(K+1)) / (1 - alpha) for K = 0..10 and a few alphas, with the same
 *    numbers as a table for screen readers.
 *
 * Text goes through JudgeRender (Markdown + KaTeX); the table and the plot are built as DOM.
 */
(function () {
  "use strict";

  const SVG_NS = "http://www.w3.org/2000/svg";
  const P0 = [0.2, 0.5, 0.3];
  const Q0 = [0.5, 0.3, 0.2];
  const ALPHAS = [0.5, 0.7, 0.8, 0.9];
  const K_MAX = 10;
  // Colour-blind-safe hues (Okabe-Ito), each with its own marker and dash pattern as well.
  const SERIES_STYLE = [
    { color: "#0072B2", marker: "circle", dash: "" },
    { color: "#D55E00", marker: "square", dash: "7 4" },
    { color: "#009E73", marker: "triangle", dash: "2 3" },
    { color: "#8B3F86", marker: "diamond", dash: "10 3 2 3" },
  ];

  function expectedTokens(alpha, k) {
    return (1 - Math.pow(alpha, k + 1)) / (1 - alpha);
  }

  // A value as a short fraction when it is one (2/3), otherwise as a decimal.
  function fraction(value) {
    for (let den = 1; den <= 12; den += 1) {
      const num = Math.round(value * den);
      if (Math.abs(num / den - value) < 1e-9) return den === 1 ? String(num) : num + "/" + den;
    }
    return decimal(value);
  }

  function decimal(value, places) {
    const text = value.toFixed(places === undefined ? 3 : places);
    return text.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
  }

  function html(tag, attributes, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (name === "text") node.textContent = value;
      else if (name === "html") node.innerHTML = value;
      else node.setAttribute(name, value);
    }
    for (const child of children || []) node.append(child);
    return node;
  }

  function svg(tag, attributes, text) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function md(text) {
    return window.JudgeRender ? window.JudgeRender.markdown(text) : "<p>" + text + "</p>";
  }

  function tex(source) {
    return window.JudgeRender ? window.JudgeRender.typeset(source, false) : source;
  }

  // ---- the exactness check ----

  function exactnessCheck() {
    const overlap = P0.map((p, x) => Math.min(p, Q0[x]));
    const alpha = overlap.reduce((a, b) => a + b, 0);
    const excess = P0.map((p, x) => Math.max(0, p - Q0[x]));
    const excessTotal = excess.reduce((a, b) => a + b, 0);
    const residual = excess.map((e) => e / excessTotal);
    const total = overlap.map((m, x) => m + (1 - alpha) * residual[x]);
    const matches = total.map((t, x) => Math.abs(t - P0[x]) < 1e-12);

    const head = html("thead", {}, [
      html("tr", {}, [
        html("th", { scope: "col", text: "x" }),
        html("th", { scope: "col", text: "p" }),
        html("th", { scope: "col", text: "q" }),
        html("th", { scope: "col", text: "min(p, q)" }),
        html("th", { scope: "col", text: "(p \u2212 q)\u207a" }),
        html("th", { scope: "col", text: "r" }),
        html("th", { scope: "col", text: "min + (1\u2212\u03b1) r" }),
        html("th", { scope: "col", text: "= p?" }),
      ]),
    ]);
    const rows = P0.map((p, x) =>
      html("tr", { "data-testid": "exactness-row" }, [
        html("th", { scope: "row", text: String(x) }),
        html("td", { text: decimal(p) }),
        html("td", { text: decimal(Q0[x]) }),
        html("td", { text: decimal(overlap[x]) }),
        html("td", { text: decimal(excess[x]) }),
        html("td", { text: fraction(residual[x]) }),
        html("td", { text: decimal(total[x], 6) }),
        html("td", { class: matches[x] ? "check check--ok" : "check check--bad", text: matches[x] ? "\u2713 yes" : "\u2717 no" }),
      ]),
    );
    const sums = html("tr", { class: "sum-row" }, [
      html("th", { scope: "row", text: "sum" }),
      html("td", { text: decimal(P0.reduce((a, b) => a + b, 0)) }),
      html("td", { text: decimal(Q0.reduce((a, b) => a + b, 0)) }),
      html("td", { text: "\u03b1 = " + decimal(alpha) }),
      html("td", { text: "1 \u2212 \u03b1 = " + decimal(excessTotal) }),
      html("td", { text: decimal(residual.reduce((a, b) => a + b, 0)) }),
      html("td", { text: decimal(total.reduce((a, b) => a + b, 0), 6) }),
      html("td", { text: "" }),
    ]);
    const table = html("table", { class: "data-table", "data-testid": "exactness-table" }, [
      html("caption", {
        html:
          "The worked example's first position, " +
          tex("p_0 = [0.2, 0.5, 0.3]") + ", " + tex("q_0 = [0.5, 0.3, 0.2]") +
          ": computed by this page.",
      }),
      head,
      html("tbody", {}, [...rows, sums]),
    ]);
    const verdict = matches.every(Boolean)
      ? "Every token gets exactly its target probability: the kept-or-replaced token is a sample of $p_0$."
      : "The check failed: the numbers above do not add up to $p_0$.";
    const key = md(
      "Columns: token $x$; target $p$ and draft $q$; $(p - q)^+ = \\max(0, p - q)$, the mass the draft" +
        " under-proposes; $r = (p - q)^+ / (1 - \\alpha)$, the residual a rejection resamples from.",
    );
    return [
      html("div", { class: "table-scroll" }, [table]),
      html("div", { class: "table-key", html: key }),
      html("div", { html: md(verdict), class: "check-verdict" }),
    ];
  }

  // ---- the plot ----

  function marker(kind, x, y, color) {
    const size = 4;
    if (kind === "circle") return svg("circle", { cx: x, cy: y, r: size, fill: color });
    if (kind === "square") {
      return svg("rect", { x: x - size, y: y - size, width: 2 * size, height: 2 * size, fill: color });
    }
    if (kind === "triangle") {
      const h = size * 1.25;
      return svg("polygon", { points: `${x},${y - h} ${x + h},${y + h * 0.8} ${x - h},${y + h * 0.8}`, fill: color });
    }
    const d = size * 1.3;
    return svg("polygon", { points: `${x},${y - d} ${x + d},${y} ${x},${y + d} ${x - d},${y}`, fill: color });
  }

  // compact: a narrower drawing for phone widths, so its text stays readable when scaled down.
  function plot(compact) {
    const width = compact ? 420 : 640;
    const height = compact ? 340 : 380;
    const margin = compact
      ? { top: 16, right: 48, bottom: 52, left: 52 }
      : { top: 20, right: 64, bottom: 56, left: 64 };
    const innerW = width - margin.left - margin.right;
    const innerH = height - margin.top - margin.bottom;
    const yMax = Math.ceil(Math.max(...ALPHAS.map((a) => expectedTokens(a, K_MAX))));
    const sx = (k) => margin.left + (k / K_MAX) * innerW;
    const sy = (v) => margin.top + innerH - (v / yMax) * innerH;

    const root = svg("svg", {
      viewBox: `0 0 ${width} ${height}`,
      class: compact ? "plot plot--compact" : "plot",
      role: "img",
      "aria-labelledby": "plot-title plot-desc",
      "data-testid": "theory-plot",
    });
    root.append(svg("title", { id: "plot-title" }, "Expected tokens per target pass against K"));
    root.append(
      svg(
        "desc",
        { id: "plot-desc" },
        "Lines of E(K) = (1 - alpha^(K+1)) / (1 - alpha) for K from 0 to 10. " +
          ALPHAS.map((a) => `alpha ${a}: from 1 at K = 0 to ${decimal(expectedTokens(a, K_MAX), 2)} at K = 10`).join("; ") +
          ".",
      ),
    );

    const grid = svg("g", { class: "plot__grid" });
    const axes = svg("g", { class: "plot__axes" });
    for (let v = 0; v <= yMax; v += 1) {
      grid.append(svg("line", { x1: margin.left, x2: margin.left + innerW, y1: sy(v), y2: sy(v) }));
      axes.append(svg("line", { x1: margin.left - 5, x2: margin.left, y1: sy(v), y2: sy(v) }));
      axes.append(svg("text", { x: margin.left - 9, y: sy(v), "text-anchor": "end", "dominant-baseline": "middle" }, String(v)));
    }
    for (let k = 0; k <= K_MAX; k += 1) {
      grid.append(svg("line", { x1: sx(k), x2: sx(k), y1: margin.top, y2: margin.top + innerH }));
      axes.append(svg("line", { x1: sx(k), x2: sx(k), y1: margin.top + innerH, y2: margin.top + innerH + 5 }));
      axes.append(svg("text", { x: sx(k), y: margin.top + innerH + 19, "text-anchor": "middle" }, String(k)));
    }
    axes.append(svg("line", { x1: margin.left, x2: margin.left + innerW, y1: margin.top + innerH, y2: margin.top + innerH }));
    axes.append(svg("line", { x1: margin.left, x2: margin.left, y1: margin.top, y2: margin.top + innerH }));
    axes.append(
      svg("text", { x: margin.left + innerW / 2, y: height - 10, "text-anchor": "middle", class: "plot__label" },
        compact ? "K, drafted tokens per pass" : "K, tokens drafted per target pass"),
    );
    axes.append(
      svg("text", {
        x: 0, y: 0, "text-anchor": "middle", class: "plot__label",
        transform: `translate(${compact ? 15 : 18} ${margin.top + innerH / 2}) rotate(-90)`,
      }, compact ? "E(K), tokens per pass" : "E(K), tokens per target pass"),
    );
    root.append(grid, axes);

    ALPHAS.forEach((alpha, i) => {
      const style = SERIES_STYLE[i];
      const points = [];
      for (let k = 0; k <= K_MAX; k += 1) points.push([sx(k), sy(expectedTokens(alpha, k))]);
      const group = svg("g", { class: "plot__series", "data-alpha": String(alpha) });
      group.append(
        svg("polyline", {
          points: points.map((p) => p.map((c) => c.toFixed(1)).join(",")).join(" "),
          fill: "none",
          stroke: style.color,
          "stroke-width": 2.25,
          "stroke-dasharray": style.dash,
          "stroke-linejoin": "round",
        }),
      );
      for (const [x, y] of points) group.append(marker(style.marker, x, y, style.color));
      const last = points[points.length - 1];
      group.append(
        svg("text", { x: last[0] + 9, y: last[1], "dominant-baseline": "middle", class: "plot__end", fill: style.color },
          decimal(expectedTokens(alpha, K_MAX), 2)),
      );
      root.append(group);
    });

    // Legend, top left (the curves are low there).
    const legend = svg("g", { class: "plot__legend", transform: `translate(${margin.left + 14} ${margin.top + 10})` });
    const rowHeight = compact ? 24 : 22;
    legend.append(svg("rect", {
      x: -8, y: -6, width: compact ? 138 : 132, height: rowHeight * ALPHAS.length + 8, rx: 4, class: "plot__legend-box",
    }));
    ALPHAS.forEach((alpha, i) => {
      const style = SERIES_STYLE[i];
      const y = 8 + i * rowHeight;
      legend.append(svg("line", { x1: 0, x2: 34, y1: y, y2: y, stroke: style.color, "stroke-width": 2.25, "stroke-dasharray": style.dash }));
      legend.append(marker(style.marker, 17, y, style.color));
      legend.append(svg("text", { x: 44, y: y, "dominant-baseline": "middle" }, "\u03b1 = " + alpha));
    });
    root.append(legend);
    return root;
  }

  function valuesTable() {
    const head = html("tr", {}, [
      html("th", { scope: "col", text: "K" }),
      ...ALPHAS.map((a) => html("th", { scope: "col", text: "\u03b1 = " + a })),
    ]);
    const rows = [];
    for (let k = 0; k <= K_MAX; k += 1) {
      rows.push(
        html("tr", {}, [
          html("th", { scope: "row", text: String(k) }),
          ...ALPHAS.map((a) => html("td", { text: decimal(expectedTokens(a, k), 2) })),
        ]),
      );
    }
    return html("details", { class: "values" }, [
      html("summary", { text: "The plotted values as a table" }),
      html("div", { class: "table-scroll" }, [
        html("table", { class: "data-table data-table--compact" }, [html("thead", {}, [head]), html("tbody", {}, rows)]),
      ]),
    ]);
  }

  function render(container) {
    const intro = md(
      [
        "The draft proposes a token $x$ with probability $q(x)$ and the verifier keeps it with",
        "probability $\\min\\bigl(1, p(x)/q(x)\\bigr)$. So $x$ is proposed **and** kept with probability",
        "$q(x)\\min\\bigl(1, p(x)/q(x)\\bigr) = \\min\\bigl(p(x), q(x)\\bigr)$, and a proposal survives",
        "with probability $\\alpha = \\sum_x \\min\\bigl(p(x), q(x)\\bigr)$.",
        "",
        "After a rejection, which happens with probability $1 - \\alpha$, the replacement is drawn from",
        "the residual $r = \\operatorname{norm}\\bigl(\\max(0, p - q)\\bigr)$. It only has mass where the draft",
        "proposes a token *less* often than the target would, and that missing mass totals exactly",
        "$\\sum_x \\max\\bigl(0, p(x) - q(x)\\bigr) = 1 - \\alpha$. Adding both ways of emitting $x$:",
        "",
        "$$\\Pr[\\text{emit } x] = \\min\\bigl(p(x), q(x)\\bigr) + (1 - \\alpha)\\, r(x) = p(x).$$",
        "",
        "Where $p(x) \\le q(x)$ the minimum already is $p(x)$ and the residual is zero; where",
        "$p(x) > q(x)$ the minimum gives $q(x)$ and the residual adds the missing $p(x) - q(x)$.",
        "Nothing is approximated: the output is a sample of the target distribution.",
      ].join("\n"),
    );

    const costs = md(
      [
        "### How many tokens does one target pass buy?",
        "",
        "If each drafted token is accepted with probability $\\alpha$, and every pass also emits one",
        "token of its own (the replacement, or the bonus token when all $K$ are kept), the expected",
        "number of tokens per target pass is",
        "",
        "$$E(K) = 1 + \\alpha + \\alpha^2 + \\dots + \\alpha^K = \\frac{1 - \\alpha^{K+1}}{1 - \\alpha}.$$",
        "",
        "It levels off at $1/(1 - \\alpha)$, while drafting costs $K$ small-model steps per pass:",
        "pick $K$ where the tokens gained per unit of total cost peak. A well-matched draft",
        "($\\alpha$ near 0.8 or 0.9) justifies longer drafts; a poor one does not.",
      ].join("\n"),
    );

    container.replaceChildren(
      html("div", { html: intro }),
      html("h3", { text: "Checked on the worked example" }),
      ...exactnessCheck(),
      html("div", { html: costs }),
      html("figure", { class: "plot-figure" }, [
        html("div", { class: "plot-holder" }),
        html("figcaption", {
          html: "Expected tokens per target pass, " + tex("E(K)") + ", for " + tex("K = 0, \\dots, 10") +
            " and four acceptance rates. The number at the end of each line is " + tex("E(10)") + ".",
        }),
      ]),
      valuesTable(),
    );
  }

  function start() {
    const container = document.getElementById("theory-body");
    if (!container) return;
    render(container);
    const holder = container.querySelector(".plot-holder");
    const narrow = window.matchMedia("(max-width: 560px)");
    const draw = () => holder.replaceChildren(plot(narrow.matches));
    draw();
    narrow.addEventListener("change", draw);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
