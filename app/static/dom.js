/* Building the page's elements: window.JudgeDom, used by every page's scripts.
 *
 *   JudgeDom.element(tag, attributes, children) -> an HTML element. An attribute of null,
 *     undefined or false is left off and true is present with no value; "text" sets the text and
 *     "html" the markup (only ever markup the page made itself: JudgeRender's Markdown). A null
 *     or undefined child is skipped, so a part that does not apply can be written inline.
 *   JudgeDom.svg(tag, attributes, text) -> an SVG element, its attributes and optional text.
 *   JudgeDom.fetchWithin(url, options, seconds) -> fetch's promise, rejected with an Error whose
 *     name is "TimeoutError" when no answer has come in that many seconds (a judge that stopped
 *     answering would otherwise leave the page waiting, its buttons off, for ever).
 *
 * Text always goes in as text, never as markup: a learner's value or an exercise's name cannot
 * add elements to the page.
 */
(function () {
  "use strict";

  const SVG_NS = "http://www.w3.org/2000/svg";

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

  function svg(tag, attributes, text) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  async function fetchWithin(url, options, seconds) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), seconds * 1000);
    try {
      return await fetch(url, { ...options, signal: controller.signal });
    } catch (error) {
      if (controller.signal.aborted) {
        const late = new Error("no answer in " + seconds + " s");
        late.name = "TimeoutError";
        throw late;
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  window.JudgeDom = Object.freeze({ element, svg, fetchWithin });
})();
