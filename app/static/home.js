/* Home page: the exercises from GET /api/exercises under their sections, each linking to
 * /exercises/{id} (progress.js marks each card solved, attempted or new from the server's
 * record of this learner). The API lists them in their `order`; a section comes where its
 * first exercise does, so the sections follow the path too. */
(function () {
  "use strict";

  const { element } = window.JudgeDom;

  // The exercises under their sections (GET /api/sections); one that no section names (the
  // lists were read a moment apart) goes last, under "Other exercises".
  function sections(exercises, declared) {
    const byId = new Map(exercises.map((exercise) => [exercise.id, exercise]));
    const groups = new Map();
    for (const section of declared) {
      const members = section.exercises.map((id) => byId.get(id)).filter(Boolean);
      members.forEach((exercise) => byId.delete(exercise.id));
      if (members.length) groups.set(section.name, members);
    }
    if (byId.size) groups.set("Other exercises", [...byId.values()]);
    let index = 0;
    return [...groups].map(([name, members]) => {
      index += 1;
      const headingId = "section-" + index;
      return element("section", { class: "section", "aria-labelledby": headingId, "data-testid": "exercise-section" }, [
        element("h2", { id: headingId, class: "section__title", text: name }),
        element("ol", { class: "card-list" }, members.map(card)),
      ]);
    });
  }

  function card(exercise) {
    const link = element("a", {
      href: "/exercises/" + encodeURIComponent(exercise.id),
      class: "card__link",
      "data-testid": "exercise-link",
      "data-exercise-id": exercise.id,
      text: exercise.title,
    });
    const difficulty = element("span", {
      class: "badge badge--difficulty badge--" + String(exercise.difficulty).toLowerCase(),
      text: exercise.difficulty,
    });
    return element("li", { class: "card", "data-testid": "exercise-card" }, [
      element("div", { class: "card__top" }, [
        element("h3", { class: "card__title" }, [link]),
        element("span", { class: "visually-hidden", text: "Difficulty:" }),
        difficulty,
      ]),
      element("p", { class: "card__summary", text: exercise.summary }),
      element("p", { class: "card__id", text: exercise.id }),
    ]);
  }

  async function load() {
    const status = document.getElementById("exercise-status");
    const list = document.getElementById("exercise-list");
    try {
      const headers = { headers: { Accept: "application/json" } };
      const [response, grouped] = await Promise.all([
        fetch("/api/exercises", headers),
        fetch("/api/sections", headers),
      ]);
      if (!response.ok) throw new Error("HTTP " + response.status);
      if (!grouped.ok) throw new Error("HTTP " + grouped.status);
      const exercises = await response.json();
      list.replaceChildren(...sections(exercises, await grouped.json()));
      status.textContent =
        exercises.length === 0
          ? "No exercises are installed yet."
          : exercises.length === 1
            ? "1 exercise"
            : exercises.length + " exercises";
    } catch (error) {
      status.textContent = "Could not load the exercises (" + error.message + "). Reload to try again.";
      status.classList.add("status-line--error");
    }
  }

  load();
})();
