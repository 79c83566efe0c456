/* The theory card under an exercise statement (#theory), drawn from the exercise's data.
 *
 * GET /api/exercises/{id}/theory answers {title, blocks}: blocks of Markdown (with KaTeX),
 * headings, tables (a check column marked per row, a footer, a key) and line plots (an SVG
 * drawn here, with the plotted values as a table for screen readers). An exercise without a
 * theory page answers no blocks, and the card stays hidden. Nothing here knows an exercise.
 */
(function () {
  "use strict";

  // Colour-blind-safe hues (Okabe-Ito), each with its own marker and dash pattern as well.
  const SERIES_STYLE = [
    { color: "#0072B2", marker: "circle", dash: "" },
    { color: "#D55E00", marker: "square", dash: "7 4" },
    { color: "#009E73", marker: "triangle", dash: "2 3" },
    { color: "#8B3F86", marker: "diamond", dash: "10 3 2 3" },
    { color: "#56B4E9", marker: "circle", dash: "4 2" },
    { color: "#E69F00", marker: "square", dash: "1 3" },
    { color: "#CC79A7", marker: "triangle", dash: "8 2 1 2" },
    { color: "#000000", marker: "diamond", dash: "3 3" },
  ];

  function decimal(value, places) {
    const text = Number(value).toFixed(places === undefined ? 3 : places);
    return text.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
  }

  const { element: html, svg } = window.JudgeDom;

  function md(text) {
    return window.JudgeRender ? window.JudgeRender.markdown(text) : "";
  }

  function inline(text) {
    return window.JudgeRender ? window.JudgeRender.inline(text) : text;
  }

  // ---- tables ----

  function table(spec) {
    const checks = spec.checks;
    const header = [...spec.header, ...(checks ? [checks.header] : [])];
    const head = html("thead", {}, [
      html("tr", {}, header.map((cell) => html("th", { scope: "col", text: cell }))),
    ]);
    const rows = spec.rows.map((row, index) => {
      const cells = row.map((cell, column) =>
        column === 0 ? html("th", { scope: "row", text: cell }) : html("td", { text: cell }),
      );
      if (checks) {
        const ok = checks.passed[index];
        cells.push(html("td", { class: ok ? "check check--ok" : "check check--bad", text: ok ? "\u2713 yes" : "\u2717 no" }));
      }
      return html("tr", { "data-testid": checks ? "theory-check-row" : "theory-row" }, cells);
    });
    if (spec.footer) {
      const cells = spec.footer.map((cell, column) =>
        column === 0 ? html("th", { scope: "row", text: cell }) : html("td", { text: cell }),
      );
      if (checks) cells.push(html("td", { text: "" }));
      rows.push(html("tr", { class: "sum-row" }, cells));
    }
    const parts = [head, html("tbody", {}, rows)];
    if (spec.caption) parts.unshift(html("caption", { html: inline(spec.caption) }));
    const nodes = [html("div", { class: "table-scroll" }, [html("table", { class: "data-table", "data-testid": "theory-table" }, parts)])];
    if (spec.key) nodes.push(html("div", { class: "table-key", html: md(spec.key) }));
    return nodes;
  }

  // ---- plots ----

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

  // Round tick steps (1, 2 or 5 times a power of ten) giving about `count` ticks over [0, top].
  function ticks(top, count) {
    const raw = top / Math.max(1, count);
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || raw;
    const values = [];
    for (let v = 0; v <= top + 1e-9; v += step) values.push(Number(v.toFixed(10)));
    return values;
  }

  let plotCount = 0;

  // compact: a narrower drawing for phone widths, so its text stays readable when scaled down.
  function plot(spec, compact) {
    plotCount += 1;
    const id = "theory-plot-" + plotCount;
    const width = compact ? 420 : 640;
    const height = compact ? 340 : 380;
    const margin = compact
      ? { top: 16, right: 48, bottom: 52, left: 52 }
      : { top: 20, right: 64, bottom: 56, left: 64 };
    const innerW = width - margin.left - margin.right;
    const innerH = height - margin.top - margin.bottom;
    const xs = spec.series.flatMap((s) => s.points.map((p) => p[0]));
    const ys = spec.series.flatMap((s) => s.points.map((p) => p[1]));
    const xMin = Math.min(0, ...xs);
    const xMax = Math.max(...xs);
    const yTop = Math.ceil(Math.max(...ys));
    const sx = (x) => margin.left + ((x - xMin) / (xMax - xMin || 1)) * innerW;
    const sy = (y) => margin.top + innerH - (y / (yTop || 1)) * innerH;

    const root = svg("svg", {
      viewBox: `0 0 ${width} ${height}`,
      class: compact ? "plot plot--compact" : "plot",
      role: "img",
      "aria-labelledby": id + "-title " + id + "-desc",
      "data-testid": "theory-plot",
    });
    root.append(svg("title", { id: id + "-title" }, spec.title));
    root.append(
      svg("desc", { id: id + "-desc" },
        spec.series.map((s) => {
          const first = s.points[0];
          const last = s.points[s.points.length - 1];
          return `${s.name}: from ${decimal(first[1], 2)} at ${decimal(first[0], 2)} to ${decimal(last[1], 2)} at ${decimal(last[0], 2)}`;
        }).join("; ") + "."),
    );
    const grid = svg("g", { class: "plot__grid" });
    const axes = svg("g", { class: "plot__axes" });
    for (const v of ticks(yTop, 8)) {
      grid.append(svg("line", { x1: margin.left, x2: margin.left + innerW, y1: sy(v), y2: sy(v) }));
      axes.append(svg("line", { x1: margin.left - 5, x2: margin.left, y1: sy(v), y2: sy(v) }));
      axes.append(svg("text", { x: margin.left - 9, y: sy(v), "text-anchor": "end", "dominant-baseline": "middle" }, decimal(v, 2)));
    }
    for (const x of ticks(xMax - xMin, compact ? 6 : 10).map((t) => t + xMin)) {
      grid.append(svg("line", { x1: sx(x), x2: sx(x), y1: margin.top, y2: margin.top + innerH }));
      axes.append(svg("line", { x1: sx(x), x2: sx(x), y1: margin.top + innerH, y2: margin.top + innerH + 5 }));
      axes.append(svg("text", { x: sx(x), y: margin.top + innerH + 19, "text-anchor": "middle" }, decimal(x, 2)));
    }
    axes.append(svg("line", { x1: margin.left, x2: margin.left + innerW, y1: margin.top + innerH, y2: margin.top + innerH }));
    axes.append(svg("line", { x1: margin.left, x2: margin.left, y1: margin.top, y2: margin.top + innerH }));
    axes.append(svg("text", { x: margin.left + innerW / 2, y: height - 10, "text-anchor": "middle", class: "plot__label" }, spec.x_label));
    axes.append(
      svg("text", {
        x: 0, y: 0, "text-anchor": "middle", class: "plot__label",
        transform: `translate(${compact ? 15 : 18} ${margin.top + innerH / 2}) rotate(-90)`,
      }, spec.y_label),
    );
    root.append(grid, axes);

    spec.series.forEach((series, i) => {
      const style = SERIES_STYLE[i % SERIES_STYLE.length];
      const points = series.points.map(([x, y]) => [sx(x), sy(y)]);
      const group = svg("g", { class: "plot__series", "data-series": series.name });
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
          decimal(series.points[series.points.length - 1][1], 2)),
      );
      root.append(group);
    });

    // Legend, top left.
    const legend = svg("g", { class: "plot__legend", transform: `translate(${margin.left + 14} ${margin.top + 10})` });
    const rowHeight = compact ? 24 : 22;
    const longest = Math.max(...spec.series.map((s) => s.name.length));
    legend.append(svg("rect", {
      x: -8, y: -6, width: 52 + 8 * longest, height: rowHeight * spec.series.length + 8, rx: 4, class: "plot__legend-box",
    }));
    spec.series.forEach((series, i) => {
      const style = SERIES_STYLE[i % SERIES_STYLE.length];
      const y = 8 + i * rowHeight;
      legend.append(svg("line", { x1: 0, x2: 34, y1: y, y2: y, stroke: style.color, "stroke-width": 2.25, "stroke-dasharray": style.dash }));
      legend.append(marker(style.marker, 17, y, style.color));
      legend.append(svg("text", { x: 44, y: y }, series.name));
    });
    root.append(legend);
    return root;
  }

  // The plotted values, as a table: one row per x of the first series.
  function valuesTable(spec) {
    const head = html("tr", {}, [
      html("th", { scope: "col", text: spec.x_label }),
      ...spec.series.map((s) => html("th", { scope: "col", text: s.name })),
    ]);
    const rows = spec.series[0].points.map(([x], index) =>
      html("tr", {}, [
        html("th", { scope: "row", text: decimal(x, 3) }),
        ...spec.series.map((s) => html("td", { text: s.points[index] ? decimal(s.points[index][1], 2) : "" })),
      ]),
    );
    return html("details", { class: "values" }, [
      html("summary", { text: "The plotted values as a table" }),
      html("div", { class: "table-scroll" }, [
        html("table", { class: "data-table data-table--compact" }, [html("thead", {}, [head]), html("tbody", {}, rows)]),
      ]),
    ]);
  }

  function plotFigure(spec) {
    const holder = html("div", { class: "plot-holder" });
    const narrow = window.matchMedia("(max-width: 560px)");
    const draw = () => holder.replaceChildren(plot(spec, narrow.matches));
    draw();
    narrow.addEventListener("change", draw);
    const parts = [holder];
    if (spec.caption) parts.push(html("figcaption", { html: inline(spec.caption) }));
    return [html("figure", { class: "plot-figure" }, parts), valuesTable(spec)];
  }

  function render(card, theory) {
    const body = card.querySelector("#theory-body");
    const nodes = [];
    for (const block of theory.blocks) {
      if ("markdown" in block) nodes.push(html("div", { html: md(block.markdown) }));
      else if ("heading" in block) nodes.push(html("h3", { text: block.heading }));
      else if ("table" in block) nodes.push(...table(block.table));
      else if ("plot" in block) nodes.push(...plotFigure(block.plot));
    }
    card.querySelector("#theory-title").textContent = theory.title;
    body.replaceChildren(...nodes);
    card.hidden = false;
  }

  async function start() {
    const card = document.getElementById("theory");
    if (!card) return;
    const path = window.location.pathname;
    const id = decodeURIComponent(path.slice(path.lastIndexOf("/") + 1));
    try {
      const response = await fetch("/api/exercises/" + encodeURIComponent(id) + "/theory", {
        headers: { Accept: "application/json" },
      });
      if (!response.ok) return;
      const theory = await response.json();
      if (theory && Array.isArray(theory.blocks) && theory.blocks.length) render(card, theory);
    } catch (error) {
      /* no theory page: the card stays hidden */
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
