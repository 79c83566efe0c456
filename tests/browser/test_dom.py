"""The element builders every page's scripts share (app/static/dom.js), in the real pages."""

from __future__ import annotations

from typing import Any

import pytest

BUILT = """() => {
  const { element, svg } = window.JudgeDom;
  const attributes = { text: "<b>not markup</b>", hidden: false, "data-x": null, open: true };
  const ours = element("span", { html: "<i>ours</i>" });
  const made = element("p", attributes, [null, "!", undefined, ours]);
  const mark = svg("rect", { x: 1.5, width: 0 }, "title");
  return { html: made.outerHTML, svg: mark.outerHTML, ns: mark.namespaceURI };
}"""


@pytest.mark.parametrize("path", ["/", "/exercises/speculative-decoding-verify", "/instructor"])
def test_every_page_builds_its_elements_with_one_builder(page: Any, path: str) -> None:
    page.goto(path)
    page.page.wait_for_function("() => window.JudgeDom !== undefined")
    built = page.page.evaluate(BUILT)
    # Text goes in as text; a false or null attribute and a null child are left out.
    assert built["html"] == '<p open="">&lt;b&gt;not markup&lt;/b&gt;!<span><i>ours</i></span></p>'
    assert built["svg"] == '<rect x="1.5" width="0">title</rect>'
    assert built["ns"] == "http://www.w3.org/2000/svg"
