/* Instructor page: asks once for the instructor token (kept in sessionStorage, so it leaves
 * with the tab), then shows GET /api/instructor/exercises as a table and one exercise's
 * statistics with a chart of its most-failed cases. Exports are fetched with the token and
 * handed to the browser as a download (a plain link could not carry the header). */
(function () {
  "use strict";

  const TOKEN_KEY = "judge.instructor.token";
  const $ = (id) => document.getElementById(id);
  let current = null; // the exercise shown in detail

  const { element, svg } = window.JudgeDom;

  const session = {
    get() {
      try {
        return window.sessionStorage.getItem(TOKEN_KEY);
      } catch (error) {
        return null;
      }
    },
    set(value) {
      try {
        window.sessionStorage.setItem(TOKEN_KEY, value);
      } catch (error) {
        /* storage off: the token lives in this page only */
      }
    },
    clear() {
      try {
        window.sessionStorage.removeItem(TOKEN_KEY);
      } catch (error) {
        /* nothing kept */
      }
    },
  };
  let token = session.get();

  function status(text, isError) {
    const line = $("class-status");
    line.textContent = text;
    line.classList.toggle("status-line--error", Boolean(isError));
  }

  function askForToken(message) {
    $("class-view").hidden = true;
    $("exercise-view").hidden = true;
    $("token-form").hidden = false;
    status(message || "", Boolean(message));
    $("token-input").focus();
  }

  async function call(path) {
    const response = await fetch(path, { headers: { Authorization: "Bearer " + token } });
    if (response.status === 401) {
      session.clear();
      token = null;
      askForToken("That token was not accepted. Type the judge's instructor token again.");
      return null;
    }
    if (!response.ok) {
      let detail = "HTTP " + response.status;
      try {
        detail = (await response.json()).detail || detail;
      } catch (error) {
        /* not JSON */
      }
      throw new Error(detail);
    }
    return response;
  }

  function percent(rate) {
    return (Math.round(rate * 1000) / 10).toFixed(1) + "%";
  }

  function row(stats) {
    const open = element("button", {
      type: "button",
      class: "link-button",
      "data-testid": "class-exercise",
      "data-exercise-id": stats.id,
      text: stats.title,
    });
    open.addEventListener("click", () => showExercise(stats.id));
    const median = stats.median_attempts_to_solve;
    return element("tr", { "data-testid": "class-row" }, [
      element("th", { scope: "row" }, [open]),
      element("td", { class: "num", text: String(stats.learners) }),
      element("td", { class: "num", text: String(stats.solved) }),
      element("td", { class: "num", text: stats.learners ? percent(stats.solve_rate) : "\u2013" }),
      element("td", { class: "num", text: median === null ? "\u2013" : String(median) }),
      element("td", { class: "num", text: String(stats.submissions) }),
    ]);
  }

  async function showClass() {
    status("Loading the class\u2026");
    let response;
    try {
      response = await call("/api/instructor/exercises");
    } catch (error) {
      status("Could not load the class: " + error.message, true);
      return;
    }
    if (!response) return;
    const exercises = await response.json();
    $("token-form").hidden = true;
    $("class-rows").replaceChildren(...exercises.map(row));
    $("class-view").hidden = false;
    const learners = exercises.reduce((most, e) => Math.max(most, e.learners), 0);
    status(
      exercises.length + " exercise" + (exercises.length === 1 ? "" : "s") +
        (learners ? "" : "; no graded submission yet"),
    );
    document.body.setAttribute("data-ready", "true");
  }

  // Horizontal bars, one per case, longest first; the count is written at the bar's end.
  function barChart(items, label, value) {
    const top = items.slice(0, 12);
    if (!top.length) return element("p", { class: "muted", text: "No case failed in the learners' latest attempts." });
    // On a phone each case's name goes above its bar, in a chart drawn about as wide as the
    // screen: the wide layout, shrunk to fit, left its words a few pixels tall.
    const narrow = window.innerWidth < 600;
    const rowHeight = narrow ? 44 : 28;
    const labelWidth = narrow ? 0 : 360;
    const width = narrow ? 340 : 900;
    const most = Math.max(...top.map(value), 1);
    const chart = svg("svg", {
      class: "plot bar-chart",
      viewBox: "0 0 " + width + " " + (top.length * rowHeight + 8),
      role: "img",
      "aria-label": "Bar chart of the most-failed cases",
    });
    top.forEach((item, index) => {
      const y = 4 + index * rowHeight;
      const length = Math.max(2, ((width - labelWidth - 50) * value(item)) / most);
      const name = String(label(item));
      const text = narrow
        ? svg("text", { x: 0, y: y + 14, class: "plot__label" }, name.length > 48 ? name.slice(0, 47) + "\u2026" : name)
        : svg("text", { x: labelWidth - 8, y: y + 16, "text-anchor": "end", class: "plot__label" }, name);
      if (narrow) text.append(svg("title", {}, name));
      const barY = narrow ? y + 20 : y + 3;
      chart.append(
        text,
        svg("rect", { x: labelWidth, y: barY, width: length, height: narrow ? 16 : rowHeight - 8, class: "bar" }),
        svg("text", { x: labelWidth + length + 6, y: barY + 13, class: "plot__end" }, String(value(item))),
      );
    });
    return chart;
  }

  function dayChart(days) {
    if (!days.length) return element("p", { class: "muted", text: "No submissions yet." });
    const width = 520;
    const height = 140;
    const most = Math.max(...days.map((d) => d.submissions), 1);
    const step = width / days.length;
    const chart = svg("svg", {
      class: "plot day-chart",
      viewBox: "0 0 " + width + " " + (height + 24),
      role: "img",
      "aria-label": "Submissions per day, " + days[0].day + " to " + days[days.length - 1].day,
    });
    days.forEach((day, index) => {
      const tall = (height * day.submissions) / most;
      const bar = svg("rect", {
        x: index * step + step * 0.1,
        y: height - tall,
        width: Math.max(1, step * 0.8),
        height: tall,
        class: "bar",
      });
      bar.append(svg("title", {}, day.day + ": " + day.submissions));
      chart.append(bar);
      // The count above its bar while the bars are wide enough to hold it.
      if (step >= 28) {
        const middle = index * step + step / 2;
        chart.append(svg("text", { x: middle, y: Math.max(12, height - tall - 4), "text-anchor": "middle", class: "plot__label" }, String(day.submissions)));
      }
    });
    const last = days[days.length - 1].day;
    // One day is named once, under its bar; a span by its two ends.
    const labels =
      days.length === 1
        ? [svg("text", { x: width / 2, y: height + 18, "text-anchor": "middle", class: "plot__label" }, last)]
        : [
            svg("text", { x: 0, y: height + 18, class: "plot__label" }, days[0].day),
            svg("text", { x: width, y: height + 18, "text-anchor": "end", class: "plot__label" }, last),
          ];
    chart.append(...labels);
    return chart;
  }

  async function showExercise(id) {
    status("Loading " + id + "\u2026");
    let response;
    try {
      response = await call("/api/instructor/exercises/" + encodeURIComponent(id));
    } catch (error) {
      status("Could not load " + id + ": " + error.message, true);
      return;
    }
    if (!response) return;
    const stats = await response.json();
    current = stats.id;
    $("exercise-stats-title").textContent = stats.title;
    $("exercise-stats-summary").textContent =
      stats.learners + " learner" + (stats.learners === 1 ? "" : "s") + ", " + stats.solved + " solved (" +
      percent(stats.solve_rate) + "), " + stats.submissions + " submissions";
    $("cases-chart").replaceChildren(
      barChart(stats.cases, (c) => (c.name.length > 40 ? c.name.slice(0, 39) + "\u2026" : c.name), (c) => c.failed_by),
    );
    $("case-hints").replaceChildren(
      ...stats.cases
        .filter((c) => c.hint)
        .slice(0, 12)
        .map((c) =>
          element("li", { "data-testid": "case-hint" }, [
            element("strong", { text: c.name + " \u2192 hint " + c.hint.index + ": " }),
            element("span", { text: c.hint.text }),
          ]),
        ),
    );
    $("verdict-list").replaceChildren(
      ...Object.entries(stats.verdicts).map(([verdict, count]) =>
        element("li", {}, [element("span", { text: verdict.replace(/_/g, " ") }), element("strong", { text: String(count) })]),
      ),
    );
    $("days-chart").replaceChildren(dayChart(stats.submissions_per_day));
    $("exercise-view").hidden = false;
    status("Showing " + stats.title + ".");
    $("exercise-view").scrollIntoView({ block: "start" });
    // The exercise in the address, so that the view can be bookmarked, reloaded or gone back to.
    const address = "?exercise=" + encodeURIComponent(stats.id);
    if (location.search !== address) history.pushState({ exercise: stats.id }, "", address);
  }

  function exerciseInAddress() {
    return new URLSearchParams(location.search).get("exercise");
  }

  // Back and Forward move between the exercises shown (or back to the class alone).
  window.addEventListener("popstate", () => {
    const id = exerciseInAddress();
    if (id && token) showExercise(id);
    else $("exercise-view").hidden = true;
  });

  async function download(params, name) {
    let response;
    try {
      response = await call("/api/instructor/submissions.csv" + params);
    } catch (error) {
      status("Could not export: " + error.message, true);
      return;
    }
    if (!response) return;
    const url = URL.createObjectURL(await response.blob());
    const link = element("a", { href: url, download: name });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const typed = $("token-input").value.trim();
    if (!typed) return;
    token = typed;
    session.set(typed);
    $("token-input").value = "";
    openFromAddress();
  });
  $("forget-token").addEventListener("click", () => {
    session.clear();
    token = null;
    askForToken("Token forgotten.");
  });
  $("export-all").addEventListener("click", () => download("", "submissions.csv"));
  $("export-code").addEventListener("click", () => download("?include_code=1", "submissions-with-code.csv"));
  $("export-one").addEventListener("click", () => {
    if (current) download("?exercise=" + encodeURIComponent(current), "submissions-" + current + ".csv");
  });

  async function openFromAddress() {
    await showClass();
    const id = exerciseInAddress();
    if (id && document.body.getAttribute("data-ready") === "true") showExercise(id);
  }

  if (token) openFromAddress();
  else askForToken();
})();
