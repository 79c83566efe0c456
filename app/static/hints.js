/* The hints panel on the exercise page: window.JudgeHints.
 *
 * Hints come one at a time (GET /api/exercises/{id}/hints/{n}), and the revealed ones are kept
 * per exercise in this browser. A failing row of the report can offer the hint tied to its
 * mistake, out of turn; it then counts as revealed in the panel too. exercise.js mounts it:
 *
 *   const hints = JudgeHints.mount({ exercise, api, store, key, readJson, errorDetail })
 *   hints.tiedHint(index)   the element a report row shows for hint ``index``
 */
(function () {
  "use strict";

  const { element } = window.JudgeDom;
  const $ = (id) => document.getElementById(id);

  function mount(options) {
    const { exercise, api, store, key, readJson, errorDetail } = options;
    let hints = [];
    let hintBusy = false;

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
        const saved = JSON.parse(store.get(key) || "[]");
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
      store.set(key, JSON.stringify(hints));
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
          // The button is gone: the keyboard goes on from the hint it showed.
          place.setAttribute("tabindex", "-1");
          place.focus();
        } catch (error) {
          button.disabled = false;
          button.textContent = "Could not load hint " + index + ": " + (error.message || error);
          button.focus();
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
        // fetch() itself fails with a TypeError ("Failed to fetch") when the judge is unreachable.
        problem = error instanceof TypeError ? "the judge could not be reached" : error.message || String(error);
      } finally {
        hintBusy = false;
      }
      updateHintControls();
      if (problem) {
        $("hint-count").textContent = "Could not load the hint: " + problem + ".";
        if (document.activeElement === document.body || document.activeElement === null) $("hint-button").focus();
        return;
      }
      const button = $("hint-button");
      if (!button.disabled && (document.activeElement === document.body || document.activeElement === null)) {
        button.focus(); // disabled while it fetched, it lost the focus: more hints are left
      } else if (button.disabled) {
        // The button just became disabled and lost focus: keep the keyboard user on the last hint.
        const last = $("hint-list").lastElementChild;
        if (last) {
          last.setAttribute("tabindex", "-1");
          last.focus();
        }
      }
    }

    restoreHints();
    $("hint-button").addEventListener("click", revealHint);
    return Object.freeze({ tiedHint });
  }

  window.JudgeHints = Object.freeze({ mount });
})();
