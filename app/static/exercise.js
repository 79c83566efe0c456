/* The exercise page, /exercises/{id}.
 *
 * Loads GET /api/exercises/{id}, renders the statement (Markdown + KaTeX through JudgeRender),
 * sets up the CodeMirror editor (window.JudgeEditor) with the learner's saved code or the
 * starter, runs submissions (POST /api/exercises/{id}/submissions) and renders the report, and
 * reveals hints one at a time (GET /api/exercises/{id}/hints/{n}). Code and revealed hints are
 * kept per exercise in localStorage.
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

  function element(tag, attributes, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "text") node.textContent = value;
      else if (name === "html") node.innerHTML = value;
      else node.setAttribute(name, value === true ? "" : value);
    }
    for (const child of children || []) {
      if (child !== null && child !== undefined) node.append(child);
    }
    return node;
  }

  // ---- storage (a browser with storage disabled still works, it just forgets) ----

  const store = {
    get(key) {
      try {
        return window.localStorage.getItem(key);
      } catch (error) {
        return null;
      }
    },
    set(key, value) {
      try {
        window.localStorage.setItem(key, value);
        return true;
      } catch (error) {
        return false;
      }
    },
    remove(key) {
      try {
        window.localStorage.removeItem(key);
      } catch (error) {
        /* nothing to do */
      }
    },
  };

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

  function errorDetail(body, fallback) {
    if (!body || body.detail === undefined || body.detail === null) return fallback;
    const detail = body.detail;
    if (typeof detail === "string") return detail;
    if (Array.isArray(detail)) {
      return detail
        .map((item) => (item && item.msg ? item.msg : JSON.stringify(item)))
        .join("; ");
    }
    return JSON.stringify(detail);
  }

  async function readJson(response) {
    try {
      return await response.json();
    } catch (error) {
      return null;
    }
  }

  // ---- the page ----

  const path = window.location.pathname.replace(/\/+$/, "");
  const exerciseId = decodeURIComponent(path.slice(path.lastIndexOf("/") + 1));
  const api = "/api/exercises/" + encodeURIComponent(exerciseId);
  const codeKey = "judge.code." + exerciseId;
  const hintsKey = "judge.hints." + exerciseId;

  let exercise = null;
  let editor = null;
  let busy = false;
  let hints = [];
  let hintBusy = false;

  function showLoadProblem(title, text) {
    const status = $("load-status");
    status.replaceChildren(
      element("strong", { class: "not-found__title", text: title }),
      element("span", { text: " " + text + " " }),
      element("a", { href: "/", text: "Back to all exercises" }),
    );
    status.classList.add("status-line--error");
    status.setAttribute("data-testid", "not-found");
    $("exercise-layout").hidden = true;
    document.title = title + " · Judge";
  }

  function renderStatement(markdownText) {
    const container = $("statement");
    container.innerHTML = window.JudgeRender.markdown(markdownText);
    // The page title is the h1: drop a leading heading that repeats it, demote the rest.
    const first = container.firstElementChild;
    if (first && /^H[1-6]$/.test(first.tagName) && first.textContent.trim() === exercise.title.trim()) {
      first.remove();
    }
    for (const heading of container.querySelectorAll("h1, h2, h3, h4, h5")) {
      const level = Math.min(6, Number(heading.tagName[1]) + 1);
      const replacement = document.createElement("h" + level);
      replacement.innerHTML = heading.innerHTML;
      heading.replaceWith(replacement);
    }
    for (const table of container.querySelectorAll("table")) {
      // (Chromium makes a scroll container keyboard-focusable by itself when it overflows.)
      const wrapper = element("div", { class: "table-scroll" });
      table.replaceWith(wrapper);
      wrapper.append(table);
    }
  }

  function renderHeader(titles) {
    document.title = exercise.title + " · Judge";
    $("exercise-title").textContent = exercise.title;
    $("breadcrumb-section").textContent = exercise.section || "";
    const difficulty = $("exercise-difficulty");
    difficulty.textContent = exercise.difficulty;
    difficulty.classList.add("badge--" + String(exercise.difficulty).toLowerCase());
    $("exercise-entry").textContent = exercise.entry_point + "(…)";
    const limits = exercise.limits || {};
    const parts = [];
    if (limits.time_ms) parts.push(formatDuration(limits.time_ms) + " per run");
    if (limits.memory_mb) parts.push(limits.memory_mb + " MB memory");
    $("exercise-limits").textContent = parts.length ? "Limits: " + parts.join(", ") : "";

    const related = exercise.related || [];
    if (related.length) {
      $("related-list").replaceChildren(
        ...related.map((id) =>
          element("li", {}, [
            element("a", {
              href: "/exercises/" + encodeURIComponent(id),
              "data-testid": "related-link",
              text: titles[id] || id,
            }),
          ]),
        ),
      );
      $("related").hidden = false;
    }
  }

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
    if (failing && Number.isInteger(test.hint) && test.hint >= 1 && test.hint <= (exercise.hint_count || 0)) {
      body.append(tiedHint(test.hint));
    }
    const drawn = test.chart && window.JudgeTeaching ? window.JudgeTeaching.chart(test.chart) : null;
    if (drawn) body.append(field("First token: target against yours", drawn, "field--chart"));
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
        rows.push(
          element("li", { class: "test-group", "data-testid": "test-group", "data-group": group }, [
            element("h4", { class: "test-group__title", text: title }),
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
    summary.replaceChildren(...parts);
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
    setSummary("error", [
      element("span", { class: "summary__icon", "aria-hidden": "true", text: "!" }),
      element("strong", { class: "summary__verdict", text: kind }),
      element("span", { class: "summary__detail", "data-testid": "error-detail", text: text }),
    ]);
    $("report-message").hidden = true;
  }

  async function problemFromResponse(response) {
    const body = await readJson(response);
    const detail = errorDetail(body, response.statusText || "HTTP " + response.status);
    switch (response.status) {
      case 413:
        return ["Code too large", detail];
      case 422:
        return ["Submission not accepted", detail];
      case 404:
        return ["Exercise not found", detail];
      case 503: {
        const retry = response.headers.get("Retry-After");
        const wait = retry && /^\d+$/.test(retry) ? " Try again in " + retry + " s." : " Try again shortly.";
        return ["The judge is busy", detail + wait];
      }
      default:
        return ["Not graded (HTTP " + response.status + ")", detail];
    }
  }

  function setBusy(value, mode) {
    busy = value;
    for (const [id, label] of [["run", "Run tests"], ["submit", "Submit"]]) {
      const button = $(id);
      button.disabled = value;
      const active = value && id === (mode === "submit" ? "submit" : "run");
      button.setAttribute("aria-busy", active ? "true" : "false");
      button.querySelector(".button__label").textContent = active ? (id === "run" ? "Running\u2026" : "Submitting\u2026") : label;
    }
    $("summary").setAttribute("aria-busy", value ? "true" : "false");
    $("test-list").setAttribute("aria-busy", value ? "true" : "false");
  }

  function run() {
    return grade("run");
  }

  function submit() {
    return grade("submit");
  }

  // Run grades the six examples; Submit adds the extra cases and fresh random ones.
  async function grade(mode) {
    if (busy || !editor) return;
    const button = $(mode === "submit" ? "submit" : "run");
    const hadFocus = document.activeElement === button;
    setBusy(true, mode);
    editor.markLine(null);
    const count = (exercise.tests || []).length + (mode === "submit" ? exercise.submit_cases || 0 : 0);
    setSummary("running", [
      element("span", { class: "spinner", "aria-hidden": "true" }),
      element("span", { text: "Running your code against " + count + " cases\u2026" }),
    ]);
    const code = editor.getCode();
    try {
      let response;
      try {
        response = await fetch(api + "/submissions", {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify({ code: code, mode: mode }),
        });
      } catch (error) {
        renderHttpProblem("Could not reach the judge", "Check that the judge is running, then try again.");
        return;
      }
      if (response.ok) {
        const report = await readJson(response);
        if (report && typeof report === "object" && "verdict" in report) {
          renderReport(report);
          editor.markLine(blamedLine(report));
          // For submissions.js: the grade is in the learner's history now (or about to be).
          document.dispatchEvent(new CustomEvent("judge:graded", { detail: { mode: mode, code: code } }));
        } else renderHttpProblem("Unexpected answer", "The judge sent a reply this page cannot read.");
      } else {
        const [kind, text] = await problemFromResponse(response);
        renderHttpProblem(kind, text);
      }
    } finally {
      setBusy(false);
      if (hadFocus && (document.activeElement === document.body || document.activeElement === null)) {
        button.focus();
      }
    }
  }

  // ---- hints ----

  function renderHint(hint) {
    return element("li", { class: "hint", "data-testid": "hint" }, [
      element("h4", { class: "hint__label", text: "Hint " + hint.index + " of " + hint.total }),
      element("div", { class: "hint__text", html: window.JudgeRender.markdown(hint.text) }),
    ]);
  }

  function updateHintControls() {
    const total = exercise.hint_count || 0;
    const button = $("hint-button");
    const allShown = hints.length >= total;
    button.disabled = allShown || hintBusy;
    button.textContent = allShown ? (total ? "All hints shown" : "No hints") : hintBusy ? "Loading\u2026" : "Show a hint";
    $("hint-count").textContent = total ? hints.length + " of " + total + " shown" : "";
  }

  function restoreHints() {
    hints = [];
    try {
      const saved = JSON.parse(store.get(hintsKey) || "[]");
      if (Array.isArray(saved)) {
        // Revealed hints in order of index; a hint tied to a failing case may be revealed out
        // of turn, so the list can have gaps.
        let last = 0;
        for (const hint of saved) {
          if (
            hint &&
            Number.isInteger(hint.index) &&
            hint.index > last &&
            hint.index <= exercise.hint_count &&
            hint.total === exercise.hint_count &&
            typeof hint.text === "string"
          ) {
            hints.push(hint);
            last = hint.index;
          }
        }
      }
    } catch (error) {
      hints = [];
    }
    $("hint-list").replaceChildren(...hints.map(renderHint));
    updateHintControls();
  }

  function nextHintIndex() {
    let next = 1;
    for (const hint of hints) if (hint.index === next) next += 1;
    return next;
  }

  function revealedHint(index) {
    return hints.find((hint) => hint.index === index) || null;
  }

  // Fetch hint ``index`` and record it as revealed (kept in order of index); returns it.
  async function fetchHint(index) {
    const known = revealedHint(index);
    if (known) return known;
    const response = await fetch(api + "/hints/" + index, { headers: { Accept: "application/json" } });
    const body = await readJson(response);
    if (!response.ok || !body || typeof body.text !== "string") {
      throw new Error(errorDetail(body, "HTTP " + response.status));
    }
    const hint = { index: body.index || index, total: body.total || exercise.hint_count, text: body.text };
    hints.push(hint);
    hints.sort((a, b) => a.index - b.index);
    store.set(hintsKey, JSON.stringify(hints));
    $("hint-list").replaceChildren(...hints.map(renderHint));
    return hint;
  }

  // A failing row's tied hint: shown in the row and counted as revealed in the hint panel.
  function tiedHint(index) {
    const place = element("div", { class: "tied-hint", "data-testid": "tied-hint" });
    const button = element("button", {
      type: "button",
      class: "button button--secondary button--small",
      "data-testid": "tied-hint-button",
      text: "Show hint " + index + ", about this mistake",
    });
    const show = (hint) => {
      place.replaceChildren(
        element("h4", { class: "hint__label", text: "Hint " + hint.index + " of " + hint.total }),
        element("div", { class: "hint__text", "data-testid": "tied-hint-text", html: window.JudgeRender.markdown(hint.text) }),
      );
    };
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        show(await fetchHint(index));
      } catch (error) {
        button.disabled = false;
        button.textContent = "Could not load hint " + index + ": " + (error.message || error);
      }
      updateHintControls();
    });
    const known = revealedHint(index);
    if (known) show(known);
    else place.append(button);
    return place;
  }

  async function revealHint() {
    if (hintBusy || hints.length >= (exercise.hint_count || 0)) return;
    hintBusy = true;
    updateHintControls();
    let problem = null;
    try {
      await fetchHint(nextHintIndex());
    } catch (error) {
      problem = error.message || String(error);
    } finally {
      hintBusy = false;
    }
    updateHintControls();
    if (problem) {
      $("hint-count").textContent = "Could not load the hint: " + problem;
      return;
    }
    const button = $("hint-button");
    if (button.disabled) {
      // The button just became disabled and lost focus: keep the keyboard user on the last hint.
      const last = $("hint-list").lastElementChild;
      if (last) {
        last.setAttribute("tabindex", "-1");
        last.focus();
      }
    }
  }

  // ---- editor ----

  function saveCode(code) {
    const status = $("save-status");
    if (code === exercise.starter_code) {
      store.remove(codeKey);
      status.textContent = "Starter code";
      return;
    }
    status.textContent = store.set(codeKey, code) ? "Saved in this browser" : "Not saved: browser storage is off";
  }

  function setUpEditor() {
    const saved = store.get(codeKey);
    const initial = saved !== null ? saved : exercise.starter_code;
    const container = $("editor");
    container.replaceChildren();
    if (!window.JudgeEditor) {
      container.append(element("p", { class: "status-line status-line--error", text: "The editor failed to load." }));
      return;
    }
    editor = window.JudgeEditor.create(container, {
      doc: initial,
      label: "Python code for " + exercise.entry_point,
      onRun: run,
      onChange(code) {
        // Saved on every change: synchronously, so a reload right after typing keeps it.
        saveCode(code);
      },
    });
    $("save-status").textContent = saved !== null ? "Restored from this browser" : "Starter code";
  }

  function reset() {
    if (!editor) return;
    editor.setCode(exercise.starter_code);
    saveCode(exercise.starter_code);
    $("save-status").textContent = "Starter code restored (Ctrl+Z in the editor undoes it)";
    editor.focus();
  }

  // ---- start ----

  async function start() {
    if (!exerciseId) {
      showLoadProblem("Exercise not found", "This address names no exercise.");
      return;
    }
    let response;
    try {
      response = await fetch(api, { headers: { Accept: "application/json" } });
    } catch (error) {
      showLoadProblem("The judge is unreachable", "Check that it is running, then reload this page.");
      return;
    }
    if (response.status === 404) {
      showLoadProblem("Exercise not found", "There is no exercise called \u201c" + exerciseId + "\u201d.");
      return;
    }
    if (!response.ok) {
      const body = await readJson(response);
      showLoadProblem("Could not load the exercise", errorDetail(body, "HTTP " + response.status) + ".");
      return;
    }
    exercise = await response.json();

    let titles = {};
    if ((exercise.related || []).length) {
      try {
        const list = await fetch("/api/exercises", { headers: { Accept: "application/json" } });
        if (list.ok) {
          for (const item of await list.json()) titles[item.id] = item.title;
        }
      } catch (error) {
        titles = {};
      }
    }

    renderHeader(titles);
    renderStatement(exercise.statement || "");
    renderPending();
    $("load-status").hidden = true;
    $("exercise-layout").hidden = false;
    setUpEditor();
    restoreHints();

    $("run").addEventListener("click", run);
    $("submit").addEventListener("click", submit);
    $("submit-count").textContent = String(exercise.submit_cases || 0) + " more";
    if (window.JudgeCustomInput) {
      window.JudgeCustomInput.mount({
        exercise: exercise,
        api: api,
        getCode: () => editor.getCode(),
        element: element,
        pretty: pretty,
        readJson: readJson,
        errorDetail: errorDetail,
      });
    }
    $("reset").addEventListener("click", reset);
    $("hint-button").addEventListener("click", revealHint);
    // Ctrl/Cmd+Enter anywhere on the page runs too (the editor handles it itself when focused).
    document.addEventListener("keydown", (event) => {
      // Ctrl/Cmd+Shift+Enter submits: the editor binds only Ctrl/Cmd+Enter, so it reaches here.
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.defaultPrevented) {
        event.preventDefault();
        if (event.shiftKey) submit();
        else run();
      }
    });
    // For scripts and tests: the live editor ({getCode, setCode, focus}) and the run action.
    window.JudgePage = Object.freeze({ editor, run, submit, exerciseId });
    document.dispatchEvent(new CustomEvent("judge:ready"));
    document.body.setAttribute("data-ready", "true");
  }

  start();
})();
