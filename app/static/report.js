/* The report on the exercise page: window.JudgeReport.
 *
 * How a graded report (the JSON of POST /api/exercises/{id}/submissions) is shown: the summary
 * line, the report's message, one row per case (grouped by where the case came from on a
 * Submit), values laid out for reading. exercise.js owns the page around it (the editor, hints,
 * the requests) and hands a view what it needs of that page:
 *
 *   const view = JudgeReport.view({ exercise, tiedHint(index), goToLine(number) })
 *   view.pending() / view.report(report) / view.httpProblem(kind, text) / view.running(count)
 *   view.blamedLine(report)   the learner's line the report names, or null
 *
 * JudgeReport.pretty and .formatDuration are shared with the page's other scripts; elements are
 * built with JudgeDom (dom.js).
 */
(function () {
  "use strict";

  const VERDICTS = {
    accepted: "Accepted",
    wrong_answer: "Wrong answer",
    runtime_error: "Runtime error",
    compile_error: "Compile error",
    time_limit_exceeded: "Time limit exceeded",
    memory_limit_exceeded: "Memory limit exceeded",
    output_limit_exceeded: "Output limit exceeded",
    rejected: "Rejected by the sandbox policy",
  };
  const STATUS_WORDS = { pass: "passed", fail: "failed", error: "error" };

  const $ = (id) => document.getElementById(id);

  const { element } = window.JudgeDom;

  // ---- formatting ----

  function formatDuration(ms) {
    if (typeof ms !== "number" || !isFinite(ms)) return "";
    if (ms >= 1000) return (ms / 1000).toFixed(2) + " s";
    if (ms >= 100) return Math.round(ms) + " ms";
    if (ms >= 10) return ms.toFixed(1) + " ms";
    return ms.toFixed(2) + " ms";
  }

  function isScalar(value) {
    return value === null || typeof value !== "object";
  }

  // A scalar as a Python learner writes it: None, True, False; numbers and strings as JSON.
  function scalar(value) {
    if (value === null || value === undefined) return "None";
    if (value === true) return "True";
    if (value === false) return "False";
    return JSON.stringify(value);
  }

  // Values laid out for reading: short arrays of numbers on one line, a matrix one row a line.
  function pretty(value, indent) {
    indent = indent || "";
    if (isScalar(value)) return scalar(value);
    const inner = indent + "  ";
    if (Array.isArray(value)) {
      if (value.length === 0) return "[]";
      const flat = "[" + value.map((item) => pretty(item, inner)).join(", ") + "]";
      if (flat.length + indent.length <= 76 && !flat.includes("\n")) return flat;
      // A matrix: one row a line, the rows aligned under the first one.
      const rows = value.map((row) => (Array.isArray(row) && row.every(isScalar) ? pretty(row) : null));
      if (rows.every((row) => row !== null && row.length + indent.length < 76)) {
        return "[" + rows.join(",\n" + indent + " ") + "]";
      }
      if (value.every(isScalar)) {
        const lines = [];
        let line = "";
        for (const item of value.map(scalar)) {
          if (line && inner.length + line.length + item.length + 2 > 76) {
            lines.push(line);
            line = "";
          }
          line += (line ? ", " : "") + item;
        }
        lines.push(line);
        return "[\n" + lines.map((l) => inner + l).join(",\n") + "\n" + indent + "]";
      }
      return "[\n" + value.map((item) => inner + pretty(item, inner)).join(",\n") + "\n" + indent + "]";
    }
    const keys = Object.keys(value);
    if (keys.length === 0) return "{}";
    const flat = "{" + keys.map((k) => JSON.stringify(k) + ": " + pretty(value[k], inner)).join(", ") + "}";
    if (flat.length + indent.length <= 76 && !flat.includes("\n")) return flat;
    return (
      "{\n" +
      keys.map((k) => inner + JSON.stringify(k) + ": " + pretty(value[k], inner)).join(",\n") +
      "\n" +
      indent +
      "}"
    );
  }

  // A case's input is an object of arguments: show it as `name = value` lines, like a call.
  function prettyInput(input) {
    if (input && typeof input === "object" && !Array.isArray(input)) {
      return Object.keys(input)
        .map((name) => {
          const value = input[name];
          return name + " = " + (generator(value) || pretty(value, " ".repeat(name.length + 3)));
        })
        .join("\n");
    }
    return pretty(input);
  }

  // A random generator argument, described as the learner's function receives it.
  function generator(value) {
    if (!value || typeof value !== "object" || Array.isArray(value)) return null;
    const keys = Object.keys(value);
    if (keys.length !== 1) return null;
    if (keys[0] === "scripted" && Array.isArray(value.scripted)) {
      return "a scripted generator whose draws are, in order: " + value.scripted.map(scalar).join(", ");
    }
    if (keys[0] === "seed" && Number.isInteger(value.seed)) {
      return "np.random.default_rng(" + value.seed + ")";
    }
    return null;
  }

  // ---- one view per loaded exercise ----

  function view(page) {
    const exercise = page.exercise;
    const tiedHint = page.tiedHint;
    const editor = { goToLine: page.goToLine };

    // ---- results ----

    function renderPending() {
      const rows = (exercise.tests || []).map((test, index) =>
        element("li", { class: "test test--pending", "data-testid": "test-pending" }, [
          element("div", { class: "test__line" }, [
            element("span", { class: "badge badge--pending", text: "not run yet" }),
            element("span", { class: "test__name", text: test.name }),
            element("span", { class: "test__index", text: "#" + (index + 1) }),
          ]),
        ]),
      );
      $("test-list").replaceChildren(...rows);
    }

    function field(label, content, extraClass) {
      return element("div", { class: "field" + (extraClass ? " " + extraClass : "") }, [
        element("h4", { class: "field__label", text: label }),
        content,
      ]);
    }

    function codeBlock(text, testid) {
      return element("pre", { class: "value", "data-testid": testid, text: text });
    }

    function longestLine(text) {
      return Math.max(...String(text).split("\n").map((line) => line.length));
    }

    // Reports name the learner's line as "line N" (compile errors, refused constructs, exceptions
    // and their traceback). Each mention becomes a button that puts the editor's cursor there.
    const LINE_MENTION = /\bline (\d+)\b/g;

    function withLineLinks(text) {
      const parts = [];
      let last = 0;
      for (const match of String(text).matchAll(LINE_MENTION)) {
        parts.push(String(text).slice(last, match.index));
        const number = Number(match[1]);
        const link = element("button", {
          type: "button",
          class: "line-link",
          "data-testid": "line-link",
          "data-line": String(number),
          title: "Show line " + number + " in the editor",
          text: match[0],
        });
        link.addEventListener("click", () => editor && editor.goToLine(number));
        parts.push(link);
        last = match.index + match[0].length;
      }
      parts.push(String(text).slice(last));
      return parts;
    }

    // The line to mark in the editor: the one the report's own message names (compile error,
    // refused code), else the first erroring case's.
    function blamedLine(report) {
      const errors = (Array.isArray(report.tests) ? report.tests : []).filter((test) => test.status === "error");
      for (const text of [report.message, ...errors.map((test) => test.message)]) {
        const match = String(text || "").match(new RegExp(LINE_MENTION.source));
        if (match) return Number(match[1]);
      }
      return null;
    }

    // nothingRan: the whole submission failed before any case (compile error, policy): the report's
    // message says why, so the rows stay collapsed instead of repeating it six times.
    function renderTest(test, index, nothingRan) {
      const status = STATUS_WORDS[test.status] ? test.status : "error";
      const failing = status !== "pass";
      const summaryLine = element("summary", { class: "test__line" }, [
        element("span", { class: "badge badge--" + status, text: STATUS_WORDS[status] }),
        element("span", { class: "test__name", text: test.name }),
        element("span", { class: "test__time", text: formatDuration(test.duration_ms) }),
      ]);
      const body = element("div", { class: "test__body" });
      if (test.message) {
        const multiline = String(test.message).includes("\n");
        body.append(
          element("p", { class: "test__message" + (multiline ? " test__message--pre" : ""), "data-testid": "test-message" }, [
            element("span", { class: "visually-hidden", text: "Message: " }),
            ...withLineLinks(test.message),
          ]),
        );
      }
      // A case's hint is about the mistake its expected answer catches: offered beside a wrong
      // answer, not beside a crash, a time-out or a case that never ran.
      const wrong = status === "fail";
      if (wrong && Number.isInteger(test.hint) && test.hint >= 1 && test.hint <= (exercise.hint_count || 0)) {
        body.append(tiedHint(test.hint));
      }
      const drawn = test.chart && window.JudgeTeaching ? window.JudgeTeaching.chart(test.chart) : null;
      if (drawn) {
        const counted = String(test.chart.counted || "first token");
        const label = counted.charAt(0).toUpperCase() + counted.slice(1) + ": " + (test.chart.law || "target p") + " against yours";
        body.append(field(label, drawn, "field--chart"));
      }
      body.append(field("Input", codeBlock(prettyInput(test.input), "test-input")));
      const expected = pretty(test.expected);
      const actual =
        test.actual === undefined || (test.actual === null && status === "error")
          ? "(no value returned)"
          : pretty(test.actual);
      // Short values side by side for comparison, longer ones one under the other.
      const sideBySide = longestLine(expected) <= 30 && longestLine(actual) <= 30;
      body.append(
        element("div", { class: sideBySide ? "field-pair field-pair--side" : "field-pair" }, [
          field("Expected", codeBlock(expected, "test-expected")),
          field("Your result", codeBlock(actual, "test-actual")),
        ]),
      );
      if (wrong && expected === actual) {
        // JSON writes a tuple and a list alike, and 1.0 as 1: the two look the same here while
        // the message says how they differ.
        body.append(
          element("p", {
            class: "field-note muted",
            "data-testid": "looks-alike",
            text: "These print alike, yet differ: in type (a tuple and a list, a float and an int look the same here). The message above says how.",
          }),
        );
      }
      if (test.output) {
        body.append(field("Printed output", codeBlock(test.output, "test-output"), "field--output"));
      } else {
        body.append(field("Printed output", element("p", { class: "muted", text: "Nothing printed." })));
      }
      body.append(
        element("p", { class: "test__footer muted", text: "Case " + (index + 1) + " ran in " + formatDuration(test.duration_ms) + "." }),
      );
      const details = element(
        "details",
        {
          class: "test test--" + status,
          "data-testid": "test-result",
          "data-status": status,
          "data-group": test.group || "example",
          open: failing && !nothingRan,
        },
        [summaryLine, body],
      );
      return element("li", {}, [details]);
    }

    const GROUP_TITLES = { example: "Examples", extra: "Extra cases", random: "Random cases", check: "Checks" };

    // A Submit report's rows under one heading per group (examples, extra, random), the random
    // cases' seed beside theirs so a failure can be replayed; a Run report has no headings.
    function groupedRows(report, tests, nothingRan) {
      const rows = [];
      const several = new Set(tests.map((test) => test.group || "example")).size > 1;
      let current = null;
      tests.forEach((test, index) => {
        const group = test.group || "example";
        if (several && group !== current) {
          current = group;
          const members = tests.filter((t) => (t.group || "example") === group);
          const passed = members.filter((t) => t.status === "pass").length;
          let title = (GROUP_TITLES[group] || group) + " \u2014 " + passed + "/" + members.length + " passed";
          if (group === "random" && report.seed !== null && report.seed !== undefined) {
            title += " (seed " + report.seed + ")";
          }
          // A failure among random cases can be sent again: a Submit replaying this seed.
          const replay =
            group === "random" && Number.isInteger(report.seed) && passed < members.length
              ? element("button", {
                  type: "button",
                  class: "button button--small test-group__replay",
                  "data-testid": "replay-seed",
                  text: "Submit again with seed " + report.seed,
                })
              : null;
          if (replay) {
            replay.addEventListener("click", () => {
              document.dispatchEvent(new CustomEvent("judge:replay", { detail: { seed: report.seed } }));
            });
          }
          rows.push(
            element("li", { class: "test-group", "data-testid": "test-group", "data-group": group }, [
              element("h4", { class: "test-group__title", text: title }),
              replay,
            ]),
          );
        }
        rows.push(renderTest(test, index, nothingRan));
      });
      return rows;
    }

    function setSummary(kind, parts) {
      const summary = $("summary");
      summary.className = "summary summary--" + kind;
      summary.replaceChildren(...parts.filter((part) => part !== null));
    }

    function renderReport(report) {
      const status = ["pass", "fail", "error"].includes(report.status) ? report.status : "error";
      const verdict = VERDICTS[report.verdict] || String(report.verdict || "Unknown verdict");
      const icon = status === "pass" ? "\u2713" : status === "fail" ? "\u2717" : "!";
      setSummary(status, [
        element("span", { class: "summary__icon", "aria-hidden": "true", text: icon }),
        element("strong", { class: "summary__verdict", "data-testid": "verdict", text: verdict }),
        element("span", {
          class: "summary__count",
          text: (report.passed ?? 0) + "/" + (report.total ?? 0) + " tests passed",
        }),
        element("span", { class: "summary__time", text: "in " + formatDuration(report.duration_ms) }),
        report.mode === "submit"
          ? element("span", {
              class: "summary__mode",
              "data-testid": "report-seed",
              text: "Submit" + (report.seed !== null && report.seed !== undefined ? ", random seed " + report.seed : ""),
            })
          : null,
      ]);
      const message = $("report-message");
      if (report.message) {
        message.replaceChildren(...withLineLinks(report.message));
        message.hidden = false;
      } else {
        message.textContent = "";
        message.hidden = true;
      }
      const tests = Array.isArray(report.tests) ? report.tests : [];
      if (tests.length) {
        const nothingRan = status === "error" && tests.every((test) => test.status !== "pass" && test.status !== "fail") &&
          ["compile_error", "rejected"].includes(report.verdict);
        $("test-list").replaceChildren(...groupedRows(report, tests, nothingRan));
      } else {
        renderPending();
        for (const badge of $("test-list").querySelectorAll(".badge--pending")) {
          badge.textContent = "not run";
        }
      }
    }

    function renderHttpProblem(kind, text) {
      // The code in the editor was not graded: the last report's rows must not stand under it.
      renderPending();
      setSummary("error", [
        element("span", { class: "summary__icon", "aria-hidden": "true", text: "!" }),
        element("strong", { class: "summary__verdict", text: kind }),
        element("span", { class: "summary__detail", "data-testid": "error-detail", text: text }),
      ]);
      $("report-message").hidden = true;
    }
    function running(count) {
      setSummary("running", [
        element("span", { class: "spinner", "aria-hidden": "true" }),
        element("span", { text: "Running your code against " + count + " cases\u2026" }),
      ]);
    }

    return Object.freeze({
      pending: renderPending,
      report: renderReport,
      httpProblem: renderHttpProblem,
      running: running,
      blamedLine: blamedLine,
    });
  }

  window.JudgeReport = Object.freeze({ view, pretty, formatDuration });
})();
