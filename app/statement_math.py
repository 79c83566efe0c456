"""Math in an exercise's Markdown that the page could not typeset, found before a learner does.

Two passes. The first is plain Python and always runs: it finds the formulas as the page's
``render.js`` does (``$$...$$`` and ``$...$`` outside code, an inline one not starting or ending
with a space nor followed by a digit) and checks their structure: braces balanced (``\\{`` and
``\\}`` aside), ``\\left``/``\\right`` and ``\\begin``/``\\end`` paired, a ``$`` left open. The
second is the page's own renderer: the vendored KaTeX and marked and ``render.js`` in headless
Chromium (through Playwright, where installed), every text rendered exactly as the page renders
it and every KaTeX error reported with its message. Without a browser the first pass stands alone
and ``judge exercises check`` says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]

FENCE = re.compile(r"^ {0,3}(```|~~~)[^\n]*\n.*?^ {0,3}\1[^\n]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
DISPLAY = re.compile(r"\$\$([\s\S]+?)\$\$")
# render.js's inline rule: no space after the opening $ or before the closing one, no backtick
# or newline inside, not followed by a digit ("costs $5 or $6" stays text); it may end with an
# escape ($N = \{3, 1\}$).
INLINE = re.compile(r"\$(?!\s)((?:\\[\s\S]|[^\\$\n`])*?(?:\\[\s\S]|[^\\\s$`]))\$(?!\d)")
BEGIN_END = re.compile(r"\\(begin|end)\s*\{([^}]*)\}")
LEFT_RIGHT = re.compile(r"\\(left|right)(?![A-Za-z])")


def _blanked(text: str, pattern: re.Pattern[str]) -> str:
    """``text`` with every match of ``pattern`` replaced by spaces (newlines kept, so line
    numbers stay right)."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def formulas(text: str) -> list[tuple[str, int]]:
    """Every formula of a Markdown text outside code, with the line it starts on."""
    prose = _blanked(_blanked(text, FENCE), CODE_SPAN)
    found: list[tuple[str, int]] = []
    for match in DISPLAY.finditer(prose):
        found.append((match.group(1), prose.count("\n", 0, match.start()) + 1))
    rest = _blanked(prose, DISPLAY)
    for match in INLINE.finditer(rest):
        found.append((match.group(1), rest.count("\n", 0, match.start()) + 1))
    return sorted(found, key=lambda item: item[1])


def _open_dollar(text: str) -> int | None:
    """The line of a ``$`` that opens no formula the page would typeset, if a formula-like one
    is left: a lone ``$`` followed by a backslash or a letter and a brace (``$\\frac{1}{``)."""
    prose = _blanked(_blanked(_blanked(text, FENCE), CODE_SPAN), DISPLAY)
    prose = _blanked(prose, INLINE)
    match = re.search(r"\$(?=\\[A-Za-z]|[A-Za-z]\w*[_^{])", prose)
    return None if match is None else prose.count("\n", 0, match.start()) + 1


def structure_problem(tex: str) -> str | None:
    """What is structurally wrong with one formula, or None."""
    if not tex.strip():
        return "an empty formula"
    depth = 0
    index = 0
    while index < len(tex):
        char = tex[index]
        if char == "\\":
            index += 2  # an escaped character (\{, \}, \\, \$) is not a brace
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                return "a '}' closes no '{'"
        index += 1
    if depth > 0:
        return f"{depth} '{{' never closed"
    sides = [m.group(1) for m in LEFT_RIGHT.finditer(tex)]
    if sides.count("left") != sides.count("right"):
        return f"{sides.count('left')} \\left against {sides.count('right')} \\right"
    stack: list[str] = []
    for kind, name in BEGIN_END.findall(tex):
        if kind == "begin":
            stack.append(name)
        elif not stack or stack.pop() != name:
            return f"\\end{{{name}}} without its \\begin{{{name}}}"
    if stack:
        return f"\\begin{{{stack[-1]}}} never ended"
    return None


def structural_problems(name: str, text: str) -> list[str]:
    """The first pass on one text (``name`` says where it comes from)."""
    problems = []
    for tex, line in formulas(text):
        problem = structure_problem(tex)
        if problem:
            problems.append(f"{name}, line {line}: math ${tex}$ does not parse: {problem}")
    opened = _open_dollar(text)
    if opened is not None:
        problems.append(f"{name}, line {opened}: a '$' opens a formula that never closes")
    return problems


# The page's renderer on every text; each KaTeX error as [title, source].
RENDER_ALL = """(texts) => texts.map((text) => {
  const box = document.createElement("div");
  box.innerHTML = window.JudgeRender.markdown(text);
  return [...box.querySelectorAll(".katex-error")].map(
    (node) => [node.getAttribute("title") || "KaTeX error", node.textContent || ""]);
})"""


def katex_problems(texts: Mapping[str, str]) -> list[str] | None:
    """The second pass: each text rendered by the page's own code in headless Chromium; None
    when no browser can be started here (Playwright or Chromium missing)."""
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        return None
    if not CHROMIUM.exists():
        return None
    vendor = STATIC / "vendor"
    scripts = [
        next(vendor.glob("katex-*/katex.min.js")),
        next(vendor.glob("marked-*.min.js")),
        STATIC / "render.js",
    ]
    names = list(texts)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
            )
            try:
                page = browser.new_page()
                page.set_content("<!doctype html><html><body></body></html>")
                for script in scripts:
                    page.add_script_tag(content=script.read_text(encoding="utf-8"))
                found = page.evaluate(RENDER_ALL, [texts[name] for name in names])
            finally:
                browser.close()
    except Error:
        return None
    problems = []
    for name, errors in zip(names, found, strict=True):
        for title, source in errors:
            problems.append(f"{name}: KaTeX cannot typeset '{source.strip()}': {title}")
    return problems


def math_problems(texts: Mapping[str, str], use_browser: bool = True) -> tuple[list[str], bool]:
    """Every math problem of the texts (by name), and whether KaTeX itself checked them."""
    problems = [p for name, text in texts.items() for p in structural_problems(name, text)]
    rendered = katex_problems(texts) if use_browser else None
    if rendered is not None:
        problems += [p for p in rendered if p not in problems]
    return problems, rendered is not None
