/* What this browser has graded, per exercise: window.JudgeProgress.
 *
 *   JudgeProgress.record(id, mode, report, submitCases)  after a graded Run or Submit
 *   JudgeProgress.state(id) -> "solved" | "attempted" | "new"
 *
 * Kept in localStorage under "judge:progress:<id>" as {"attempts": n, "solved": bool}. Solved
 * follows the judge's own rule: an accepted Submit, or an accepted Run where the exercise has no
 * Submit cases. Custom-input runs are not attempts. A browser with storage off records nothing.
 */
(function () {
  "use strict";

  const PREFIX = "judge:progress:";

  function read(id) {
    try {
      const saved = JSON.parse(window.localStorage.getItem(PREFIX + id) || "null");
      if (saved && typeof saved === "object") {
        return { attempts: Number(saved.attempts) || 0, solved: saved.solved === true };
      }
    } catch (error) {
      /* unreadable or storage off: nothing recorded */
    }
    return { attempts: 0, solved: false };
  }

  function record(id, mode, report, submitCases) {
    if (mode !== "run" && mode !== "submit") return;
    const saved = read(id);
    const accepted = report && report.verdict === "accepted";
    const solves = accepted && (mode === "submit" || !submitCases);
    const next = { attempts: saved.attempts + 1, solved: saved.solved || Boolean(solves) };
    try {
      window.localStorage.setItem(PREFIX + id, JSON.stringify(next));
    } catch (error) {
      /* storage off: the page still works, it just forgets */
    }
  }

  function state(id) {
    const saved = read(id);
    if (saved.solved) return "solved";
    return saved.attempts > 0 ? "attempted" : "new";
  }

  window.JudgeProgress = Object.freeze({ record, state });
})();
