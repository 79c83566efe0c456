/* The "Try your own input" panel: one field per argument (Python or JSON literals), prefilled
 * from the first example; POST /api/exercises/{id}/runs runs the learner's function and the
 * reference on it, and the panel shows the two results side by side. */
(function () {
  "use strict";

  const { element } = window.JudgeDom;
  const ANSWER_WITHIN_S = 30; // as a Run's or Submit's (exercise.js): past it, the judge stopped

  // A Python literal as JSON: None/True/False, tuples as lists, a trailing comma, 'strings'.
  // Numbers, lists and dicts are already spelled alike.
  function pythonToJson(text) {
    let out = "";
    let quote = null;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (quote) {
        if (ch === "\\") {
          out += ch + (text[i + 1] || "");
          i++;
        } else if (ch === quote) {
          out += '"';
          quote = null;
        } else out += ch === '"' ? '\\"' : ch;
        continue;
      }
      if (ch === "'" || ch === '"') {
        quote = ch;
        out += '"';
      } else if (ch === "(") out += "[";
      else if (ch === ")") out += "]";
      else out += ch;
    }
    return out
      .replace(/\bNone\b/g, "null")
      .replace(/\bTrue\b/g, "true")
      .replace(/\bFalse\b/g, "false")
      .replace(/,\s*([\]}])/g, "$1");
  }

  function parseLiteral(text) {
    const trimmed = String(text).trim();
    if (!trimmed) throw new Error("is empty");
    let value;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      try {
        value = JSON.parse(pythonToJson(trimmed));
      } catch (again) {
        throw new Error("is not a Python or JSON literal");
      }
    }
    // 1e400 parses as Infinity, which JSON would send as null: say so here instead.
    if (!allFinite(value)) throw new Error("holds a number too large for a float (beyond about 1.8e308)");
    return value;
  }

  function allFinite(value) {
    if (typeof value === "number") return Number.isFinite(value);
    if (Array.isArray(value)) return value.every(allFinite);
    if (value !== null && typeof value === "object") return Object.values(value).every(allFinite);
    return true;
  }

  function isGeneratorSpec(value) {
    return (
      value !== null &&
      typeof value === "object" &&
      !Array.isArray(value) &&
      Object.keys(value).length === 1 &&
      ("seed" in value || "scripted" in value)
    );
  }

  // A generator field holds a seed (7) or the scripted numbers ([0.5, 0.8]).
  function generatorFromText(text) {
    const value = parseLiteral(text);
    if (Number.isInteger(value)) return { seed: value };
    if (Array.isArray(value)) return { scripted: value };
    if (isGeneratorSpec(value)) return value;
    throw new Error("must be a seed (an integer) or a list of scripted numbers");
  }

  function mount(options) {
    const { exercise, api, getCode, pretty, readJson, errorDetail } = options;
    const form = document.getElementById("custom-form");
    const result = document.getElementById("custom-result");
    const button = document.getElementById("custom-run");
    const example = ((exercise.tests || [])[0] || {}).input || {};
    const fields = [];
    for (const name of Object.keys(example)) {
      const value = example[name];
      const generator = isGeneratorSpec(value);
      const shown = generator ? ("seed" in value ? String(value.seed) : pretty(value.scripted)) : pretty(value);
      const id = "custom-field-" + name;
      const input = element("textarea", {
        id: id,
        class: "custom-input__field",
        "data-testid": "custom-field",
        "data-name": name,
        rows: String(Math.min(6, shown.split("\n").length)),
        spellcheck: "false",
      });
      input.value = shown;
      // A value that wraps on a narrow screen would hide its end in a box of its line count.
      const fit = () => {
        input.style.height = "auto";
        input.style.height = Math.min(input.scrollHeight + 2, 240) + "px";
      };
      input.addEventListener("input", fit);
      requestAnimationFrame(fit);
      window.addEventListener("resize", fit);
      const hint = generator ? " (a seed, or a list of scripted numbers)" : "";
      form.append(
        element("label", { class: "custom-input__label", for: id }, [
          element("code", { text: name }),
          element("span", { class: "muted", text: hint }),
        ]),
        input,
      );
      fields.push({ name, input, generator });
    }

    function show(kind, children) {
      result.className = "custom-input__result custom-input__result--" + kind;
      result.replaceChildren(...children);
    }

    function value(label, text, testid) {
      return element("div", { class: "field" }, [
        element("h4", { class: "field__label", text: label }),
        element("pre", { class: "value", "data-testid": testid, text: text }),
      ]);
    }

    // The field a problem names, marked for assistive technology and focused.
    function blame(name) {
      const field = fields.find((candidate) => candidate.name === name);
      if (!field) return false;
      field.input.setAttribute("aria-invalid", "true");
      field.input.setAttribute("aria-describedby", "custom-result");
      field.input.focus();
      return true;
    }

    async function runCustom() {
      const input = {};
      const hadFocus = document.activeElement === button;
      for (const field of fields) {
        field.input.removeAttribute("aria-invalid");
        field.input.removeAttribute("aria-describedby");
      }
      for (const field of fields) {
        try {
          input[field.name] = field.generator ? generatorFromText(field.input.value) : parseLiteral(field.input.value);
        } catch (error) {
          show("error", [element("p", { "data-testid": "custom-problem", text: field.name + ": " + error.message })]);
          blame(field.name);
          return;
        }
      }
      button.disabled = true;
      show("running", [element("p", { text: "Running your function and the reference\u2026" })]);
      try {
        let response;
        try {
          const request = {
            method: "POST",
            headers: { "Content-Type": "application/json", Accept: "application/json" },
            body: JSON.stringify({ code: getCode(), input: input }),
          };
          response = await JudgeDom.fetchWithin(api + "/runs", request, ANSWER_WITHIN_S);
        } catch (error) {
          const words =
            error.name === "TimeoutError"
              ? "The judge did not answer in " + ANSWER_WITHIN_S + " s: it may be overloaded or stopped. Try again in a moment."
              : "Could not reach the judge.";
          show("error", [element("p", { text: words })]);
          return;
        }
        const body = await readJson(response);
        if (!response.ok) {
          // The API names a parameter as input.<name>; the page names the field as it is labelled.
          const detail = errorDetail(body, "HTTP " + response.status);
          const named = /^input\.([A-Za-z_][A-Za-z0-9_]*)/.exec(detail);
          show("error", [
            element("p", { "data-testid": "custom-problem", text: detail.replace(/^input\./, "") }),
          ]);
          if (named) blame(named[1]);
          return;
        }
        const test = (body.tests || [])[0] || {};
        const status = test.status || body.status;
        const words = { pass: "Same as the reference", fail: "Differs from the reference", error: "Error" };
        const children = [
          element("p", { class: "custom-input__verdict", "data-testid": "custom-verdict", text: words[status] || status }),
        ];
        if (body.message && body.message !== test.message) children.push(element("p", { text: body.message }));
        // Code that did not load says why once, in the report's message: the row's own "not run:
        // your code does not compile" would only repeat it.
        const repeats = body.message && typeof test.message === "string" && test.message.startsWith("not run:");
        if (test.message && !repeats) children.push(element("p", { "data-testid": "custom-message", text: test.message }));
        const nothing = test.actual === null && status === "error" ? "(no value returned)" : pretty(test.actual);
        children.push(
          element("div", { class: "field-pair field-pair--side" }, [
            value("Your result", nothing, "custom-actual"),
            value("Reference", test.expected === null && status === "error" ? "(no value)" : pretty(test.expected), "custom-expected"),
          ]),
        );
        if (test.output) children.push(value("Printed output", test.output, "custom-output"));
        show(status === "pass" ? "pass" : status === "fail" ? "fail" : "error", children);
      } finally {
        button.disabled = false;
        // Disabled while it ran, the button lost the keyboard's focus to the page: give it back.
        if (hadFocus && (document.activeElement === document.body || document.activeElement === null)) {
          button.focus();
        }
      }
    }

    button.addEventListener("click", runCustom);
  }

  window.JudgeCustomInput = Object.freeze({ mount, parseLiteral, generatorFromText });
})();
