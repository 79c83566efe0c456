/* Home page: marks each exercise card solved, attempted or new for this learner, from
 * GET /api/me/progress (the judge knows the learner by an HttpOnly cookie). The cards are the
 * list's [data-testid=exercise-card] elements, found whenever they appear. */
(function () {
  "use strict";

  const LABELS = { solved: "Solved", attempted: "Attempted", new: "New" };
  let progress = null;

  function markFor(id) {
    const entry = progress && progress.exercises ? progress.exercises[id] : undefined;
    if (!entry) return { kind: "new", title: "Not tried yet" };
    const best = entry.best || { passed: 0, total: 0 };
    const tries = entry.attempts + (entry.attempts === 1 ? " attempt" : " attempts");
    if (entry.solved) return { kind: "solved", title: "Solved (" + tries + ")" };
    return { kind: "attempted", title: tries + "; best " + best.passed + "/" + best.total + " cases" };
  }

  function decorate(card) {
    const link = card.querySelector("[data-exercise-id]");
    if (!link || !progress) return;
    const mark = markFor(link.getAttribute("data-exercise-id"));
    // One mark per card: a mark another script made (from this browser's own record) is
    // taken over, since the server's history is the learner's on every browser.
    let badge = card.querySelector("[data-testid=progress-mark], [data-progress]");
    if (!badge) {
      badge = document.createElement("span");
      badge.setAttribute("data-testid", "progress-mark");
      const top = card.querySelector(".card__top") || card;
      top.append(badge);
    }
    badge.setAttribute("data-testid", "progress-mark");
    badge.className = "progress-mark progress-mark--" + mark.kind;
    badge.setAttribute("data-progress", mark.kind);
    badge.title = mark.title;
    badge.textContent = LABELS[mark.kind];
  }

  function decorateAll() {
    for (const card of document.querySelectorAll("[data-testid=exercise-card]")) decorate(card);
  }

  async function load() {
    try {
      const response = await fetch("/api/me/progress", { headers: { Accept: "application/json" } });
      if (!response.ok) return;
      progress = await response.json();
    } catch (error) {
      return; // the list still works; it just carries no marks
    }
    decorateAll();
    new MutationObserver((changes) => {
      if (changes.some((c) => Array.from(c.addedNodes).some((n) => n.nodeType === 1))) decorateAll();
    }).observe(document.getElementById("main") || document.body, { childList: true, subtree: true });
  }

  load();
})();
