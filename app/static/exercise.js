/* The exercise page, /exercises/{id}.
 *
 * Loads GET /api/exercises/{id}, renders the statement (Markdown + KaTeX through JudgeRender),
 * sets up the CodeMirror editor (window.JudgeEditor) with the learner's saved code or the
 * starter, runs submissions (POST /api/exercises/{id}/submissions) and has report.js show the
 * report; hints.js keeps the hints panel and custom_input.js the "Try your own input" panel.
 * The code is kept per exercise in localStorage.
 */
(function () {
  "use strict";

  const { element } = window.JudgeDom;
  const { pretty, formatDuration } = window.JudgeReport;
  const $ = (id) => document.getElementById(id);
  // A grade answers in milliseconds, a busy judge's within its queue's wait, a saturated one at
  // once (503): past this, the judge has stopped answering, and the page says so.
  const ANSWER_WITHIN_S = 30;

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

  let exercise = null;
  let editor = null;
  let view = null; // the report's view (report.js), made once the exercise is loaded
  let busy = false;

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
    // The page title is the h1: drop a leading heading that repeats it, and move the rest so
    // that the statement's top level is h2, under the title (no level skipped for a reader).
    const first = container.firstElementChild;
    if (first && /^H[1-6]$/.test(first.tagName) && first.textContent.trim() === exercise.title.trim()) {
      first.remove();
    }
    const headings = [...container.querySelectorAll("h1, h2, h3, h4, h5, h6")];
    const top = Math.min(...headings.map((heading) => Number(heading.tagName[1])));
    for (const heading of headings) {
      const level = Math.min(6, Number(heading.tagName[1]) - top + 2);
      if (level === Number(heading.tagName[1])) continue;
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
      case 429: // the detail says how many are running and when to try again
        return ["Your other grades are still running", detail];
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

  // Run grades the six examples; Submit adds the extra cases and fresh random ones, and with a
  // seed also the random cases of that seed again (report.js's replay button).
  async function grade(mode, seed) {
    if (busy || !editor) return;
    const button = $(mode === "submit" ? "submit" : "run");
    const hadFocus = document.activeElement === button;
    setBusy(true, mode);
    editor.markLine(null);
    const count = (exercise.tests || []).length + (mode === "submit" ? exercise.submit_cases || 0 : 0);
    view.running(count);
    const code = editor.getCode();
    try {
      let response;
      try {
        const request = {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify(Number.isInteger(seed) ? { code, mode, seed } : { code, mode }),
        };
        response = await JudgeDom.fetchWithin(api + "/submissions", request, ANSWER_WITHIN_S);
      } catch (error) {
        if (error.name === "TimeoutError") {
          view.httpProblem(
            "The judge did not answer",
            "No answer in " + ANSWER_WITHIN_S + " s: it may be overloaded or stopped. Your code is kept here; try again in a moment.",
          );
        } else view.httpProblem("Could not reach the judge", "Check that the judge is running, then try again.");
        return;
      }
      if (response.ok) {
        const report = await readJson(response);
        if (report && typeof report === "object" && "verdict" in report) {
          view.report(report);
          editor.markLine(view.blamedLine(report));
          // For submissions.js: the grade is in the learner's history now (or about to be).
          document.dispatchEvent(new CustomEvent("judge:graded", { detail: { mode: mode, code: code } }));
        } else view.httpProblem("Unexpected answer", "The judge sent a reply this page cannot read.");
      } else {
        const [kind, text] = await problemFromResponse(response);
        view.httpProblem(kind, text);
      }
    } finally {
      setBusy(false);
      if (hadFocus && (document.activeElement === document.body || document.activeElement === null)) {
        button.focus();
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
    const hints = window.JudgeHints.mount({
      exercise: exercise,
      api: api,
      store: store,
      key: "judge.hints." + exerciseId,
      readJson: readJson,
      errorDetail: errorDetail,
    });
    view = window.JudgeReport.view({
      exercise: exercise,
      tiedHint: hints.tiedHint,
      goToLine: (number) => editor && editor.goToLine(number),
    });
    view.pending();
    $("load-status").hidden = true;
    $("exercise-layout").hidden = false;
    setUpEditor();

    $("run").addEventListener("click", run);
    $("submit").addEventListener("click", submit);
    document.addEventListener("judge:replay", (event) => grade("submit", event.detail.seed));
    $("submit-count").textContent = String(exercise.submit_cases || 0) + " more";
    if (window.JudgeCustomInput) {
      window.JudgeCustomInput.mount({
        exercise: exercise,
        api: api,
        getCode: () => editor.getCode(),
        pretty: pretty,
        readJson: readJson,
        errorDetail: errorDetail,
      });
    }
    $("reset").addEventListener("click", reset);
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
