/* "Your submissions" on the exercise page: the learner's own graded Runs and Submits of this
 * exercise (GET /api/me/submissions, newest first), each restorable into the editor. The judge
 * knows the learner by an HttpOnly cookie, so this script never sees who they are.
 *
 * Restoring asks first when the editor holds work that is in no submission this page knows of
 * (not the starter, not a code graded or restored here, not the newest submission's). */
(function () {
  "use strict";

  const LIMIT = 20;
  const $ = (id) => document.getElementById(id);
  const known = new Set(); // codes that are safe to replace: graded or restored on this page
  let page = null; // window.JudgePage once the exercise page is ready
  let starter = null;
  let pending = null; // the restore waiting for the learner's answer in the dialog
  let newest = null; // id of the newest listed submission

  const { element } = window.JudgeDom;

  function when(iso) {
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return iso;
    const seconds = Math.round((Date.now() - date.getTime()) / 1000);
    if (seconds < 45) return "just now";
    if (seconds < 3600) return Math.round(seconds / 60) + " min ago";
    if (seconds < 86400) return Math.round(seconds / 3600) + " h ago";
    return date.toLocaleString();
  }

  const VERDICTS = {
    accepted: "Accepted",
    wrong_answer: "Wrong answer",
    runtime_error: "Runtime error",
    compile_error: "Compile error",
    time_limit_exceeded: "Time limit",
    memory_limit_exceeded: "Memory limit",
    output_limit_exceeded: "Output limit",
    rejected: "Rejected",
  };

  function item(submission) {
    const badge = submission.status === "pass" ? "pass" : submission.status === "fail" ? "fail" : "error";
    const verdict = VERDICTS[submission.verdict] || submission.verdict;
    const mode = submission.mode === "submit" ? "Submit" : "Run";
    const restore = element("button", {
      type: "button",
      class: "button button--quiet my-submission__restore",
      "data-testid": "restore-submission",
      // Each its own name: a screen reader lists the buttons apart from their rows.
      "aria-label":
        "Restore into the editor the code of the " + mode + " " + when(submission.created_at) + ": " + verdict +
        ", " + submission.passed + "/" + submission.total + " passed",
      text: "Restore",
    });
    restore.addEventListener("click", () => restoreSubmission(submission.id));
    const time = element("time", { datetime: submission.created_at, title: new Date(submission.created_at).toLocaleString(), text: when(submission.created_at) });
    return element("li", { class: "my-submission", "data-testid": "my-submission", "data-submission-id": String(submission.id) }, [
      element("span", { class: "badge badge--" + badge, text: verdict }),
      element("span", { class: "my-submission__mode", text: mode }),
      element("span", { class: "my-submission__score", text: submission.passed + "/" + submission.total + " passed" }),
      time,
      restore,
    ]);
  }

  async function fetchJson(url) {
    const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    if (!response.ok) throw new Error("HTTP " + response.status);
    return response.json();
  }

  function setStatus(text) {
    $("my-submissions-status").textContent = text;
  }

  async function load() {
    let rows;
    try {
      rows = await fetchJson("/api/me/submissions?limit=" + LIMIT + "&exercise=" + encodeURIComponent(page.exerciseId));
    } catch (error) {
      const why = error instanceof TypeError ? "the judge could not be reached" : error.message;
      setStatus("Your earlier submissions could not be loaded (" + why + ").");
      return null;
    }
    $("my-submissions-list").replaceChildren(...rows.map(item));
    setStatus(
      rows.length === 0
        ? "None yet: your graded Runs and Submits of this exercise will be listed here."
        : rows.length === LIMIT
          ? "Your latest " + LIMIT + ", newest first."
          : rows.length + (rows.length === 1 ? " submission" : " submissions") + ", newest first.",
    );
    return rows;
  }

  // The history is written just after the grade is answered: look again until it is listed.
  // A read that fails (a judge just restarted, its history still catching up) is tried again
  // too, not taken as the end.
  async function refreshAfterGrade(before) {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const rows = await load();
      if (rows !== null && rows.length && rows[0].id !== before) {
        newest = rows[0].id;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 150 * (attempt + 1)));
    }
  }

  function replaceCode(code) {
    page.editor.setCode(code);
    known.add(code);
    page.editor.focus();
  }

  async function restoreSubmission(id) {
    let submission;
    try {
      submission = await fetchJson("/api/me/submissions/" + encodeURIComponent(id));
    } catch (error) {
      setStatus("That submission could not be loaded (" + error.message + ").");
      return;
    }
    const current = page.editor.getCode();
    if (current === submission.code) {
      setStatus("The editor already holds that submission's code.");
      return;
    }
    if (current === starter || known.has(current)) {
      replaceCode(submission.code);
      setStatus("Restored your " + (submission.mode === "submit" ? "Submit" : "Run") + " of " + when(submission.created_at) + " (Ctrl+Z in the editor undoes it).");
      return;
    }
    pending = submission;
    $("restore-dialog").showModal();
  }

  function answerDialog(replace) {
    const submission = pending;
    pending = null;
    $("restore-dialog").close();
    if (replace && submission) {
      replaceCode(submission.code);
      setStatus("Restored (Ctrl+Z in the editor brings your previous code back).");
    } else setStatus("Kept the code in the editor.");
  }

  async function start() {
    page = window.JudgePage;
    if (!page || !$("my-submissions")) return;
    $("my-submissions").hidden = false;
    try {
      starter = (await fetchJson("/api/exercises/" + encodeURIComponent(page.exerciseId))).starter_code;
    } catch (error) {
      starter = null;
    }
    const rows = await load();
    if (rows && rows.length) {
      newest = rows[0].id;
      try {
        known.add((await fetchJson("/api/me/submissions/" + encodeURIComponent(newest))).code);
      } catch (error) {
        /* without it, restoring simply asks first */
      }
    }
    $("restore-confirm").addEventListener("click", () => answerDialog(true));
    $("restore-cancel").addEventListener("click", () => answerDialog(false));
    $("restore-dialog").addEventListener("cancel", () => {
      pending = null;
      setStatus("Kept the code in the editor.");
    });
    document.addEventListener("judge:graded", (event) => {
      if (event.detail && typeof event.detail.code === "string") known.add(event.detail.code);
      refreshAfterGrade(newest);
    });
  }

  if (window.JudgePage) start();
  else document.addEventListener("judge:ready", start, { once: true });
})();
