/* Home page: lists the exercises from GET /api/exercises, each linking to /exercises/{id}. */
(function () {
  "use strict";

  function element(tag, attributes, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (name === "text") node.textContent = value;
      else node.setAttribute(name, value);
    }
    for (const child of children || []) node.append(child);
    return node;
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
      const response = await fetch("/api/exercises", { headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error("HTTP " + response.status);
      const exercises = await response.json();
      list.replaceChildren(...exercises.map(card));
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
