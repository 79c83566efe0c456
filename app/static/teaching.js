/* What a report row teaches beyond its message: window.JudgeTeaching.
 *
 *   JudgeTeaching.chart(chart) -> an <svg> element: the distribution check's bar chart, one pair
 *     of bars per token (the target's probability beside the learner's frequency), drawn here
 *     with plain SVG elements (no library, nothing fetched), or null for a malformed chart.
 *
 * The chart's fields come from the report (app/schemas.py, Chart): tokens, target, observed,
 * trials, statistic, threshold, passed, and its words: counted, unit, law.
 */
(function () {
  "use strict";

  const WIDE_WIDTH = 420;
  // On a phone the chart is drawn narrower rather than shrunk: its 12 px words stay 12 px in a
  // box of about 300 px, and every token stays in view (no sideways scroll to find the last).
  const NARROW_WIDTH = 300;
  const HEIGHT = 200;
  const MARGIN = { top: 14, right: 8, bottom: 52, left: 46 }; // left: room for "100.0%" at 12 px

  const node = window.JudgeDom.svg;

  function percent(x) {
    return (100 * x).toFixed(1) + "%";
  }

  function wellFormed(chart) {
    if (!chart || !Array.isArray(chart.tokens) || !Array.isArray(chart.target) || !Array.isArray(chart.observed)) {
      return false;
    }
    const n = chart.tokens.length;
    const numbers = (list) => list.every((x) => typeof x === "number" && Number.isFinite(x) && x >= 0);
    return n > 0 && n <= 1000 && chart.target.length === n && chart.observed.length === n &&
      numbers(chart.target) && numbers(chart.observed);
  }

  function chart(data) {
    if (!wellFormed(data)) return null;
    const n = data.tokens.length;
    const width = window.innerWidth < 520 ? NARROW_WIDTH : WIDE_WIDTH;
    const top = Math.max(0.05, ...data.target, ...data.observed);
    const plotWidth = width - MARGIN.left - MARGIN.right;
    const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
    const slot = plotWidth / n;
    const bar = Math.max(1, Math.min(24, slot * 0.36));
    const y = (value) => MARGIN.top + plotHeight * (1 - value / top);
    const words = (value, fallback) => (typeof value === "string" && value ? value : fallback);
    const counted = words(data.counted, "first token");
    const unit = words(data.unit, "steps");
    const law = words(data.law, "target p");
    const over = data.trials + " " + unit;
    const svg = node("svg", {
      class: "dist-chart",
      viewBox: "0 0 " + width + " " + HEIGHT,
      role: "img",
      "data-testid": "distribution-chart",
      "aria-label": "Each " + counted + " over " + over + ": the " + law + " beside your frequency, per token",
    });
    svg.append(node("title", {}, "The " + law + " against your frequencies (" + over + ")"));
    // Axis and three gridlines, labelled in percent.
    for (const fraction of [0, 0.5, 1]) {
      const value = top * fraction;
      svg.append(node("line", { class: "dist-chart__grid", x1: MARGIN.left, x2: width - MARGIN.right, y1: y(value), y2: y(value) }));
      svg.append(node("text", { class: "dist-chart__axis", x: MARGIN.left - 4, y: y(value) + 4, "text-anchor": "end" }, percent(value)));
    }
    data.tokens.forEach((token, i) => {
      const middle = MARGIN.left + slot * (i + 0.5);
      const group = node("g", { class: "dist-chart__token", "data-testid": "chart-token", "data-token": token });
      const pairs = [
        ["target", data.target[i], middle - bar - 1, law],
        ["observed", data.observed[i], middle + 1, "your frequency"],
      ];
      for (const [kind, value, x, label] of pairs) {
        const rect = node("rect", {
          class: "dist-chart__bar dist-chart__bar--" + kind,
          "data-testid": "chart-bar-" + kind,
          x: x,
          y: y(value),
          width: bar,
          height: Math.max(0, y(0) - y(value)),
        });
        rect.append(node("title", {}, "token " + token + ": " + label + " " + percent(value)));
        group.append(rect);
      }
      group.append(node("text", { class: "dist-chart__axis", x: middle, y: HEIGHT - MARGIN.bottom + 14, "text-anchor": "middle" }, String(token)));
      svg.append(group);
    });
    const legendY = HEIGHT - 22;
    svg.append(node("rect", { class: "dist-chart__bar dist-chart__bar--target", x: MARGIN.left, y: legendY - 9, width: 10, height: 10 }));
    svg.append(node("text", { class: "dist-chart__legend", x: MARGIN.left + 14, y: legendY }, law));
    svg.append(node("rect", { class: "dist-chart__bar dist-chart__bar--observed", x: MARGIN.left + 90, y: legendY - 9, width: 10, height: 10 }));
    svg.append(node("text", { class: "dist-chart__legend", x: MARGIN.left + 104, y: legendY }, "your frequency"));
    // The sign is the statistic's own: a row can fail with a chi-square inside its threshold
    // (a token the law gives probability 0), and its message says why.
    const within = Number(data.statistic) <= Number(data.threshold);
    const verdict = "\u03c7\u00b2 = " + Number(data.statistic).toFixed(2) + (within ? " \u2264 " : " > ") +
      Number(data.threshold).toFixed(2) + " \u00b7 " + over;
    svg.append(node("text", { class: "dist-chart__legend", x: MARGIN.left, y: HEIGHT - 4, "data-testid": "chart-verdict" }, verdict));
    return svg;
  }

  window.JudgeTeaching = Object.freeze({ chart });
})();
