"""An exercise's theory page, as data: ``theory.md`` or the blocks ``theory.py`` computes.

A folder may hold ``theory.md`` (Markdown with KaTeX, its first ``# `` line the title) or
``theory.py``, trusted code run here on the host when the exercise loads (never in the sandbox),
whose ``theory()`` returns ``{"title": str, "blocks": [...]}``; each block is one of

    {"markdown": str}
    {"heading": str}
    {"table": {"caption": md, "header": [str], "rows": [[str]], "checks"?: {"header": str,
               "passed": [bool per row]}, "footer"?: [str], "key"?: md}}
    {"plot": {"title": str, "x_label": str, "y_label": str, "caption"?: md,
              "series": [{"name": str, "points": [[x, y], ...]}]}}

The page draws them generically (``app/static/theory.js``): tables with a check column marked
per row, line plots in SVG with the plotted values as a table beside them. A ``theory.py`` that
checks its numbers raises when they do not add up, and the folder does not load.

Exercises that share one page keep one copy: the others name it in exercise.toml
(``theory = "../<another exercise>/theory.py"``), a path relative to the folder that must stay
inside the exercises root (the folder's parent), so a catalog never runs code from elsewhere.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

MARKDOWN_FILE = "theory.md"
CODE_FILE = "theory.py"
MAX_BLOCKS = 40
MAX_ROWS = 200
MAX_SERIES = 8
MAX_POINTS = 200
MAX_TEXT = 20_000

Theory = dict[str, Any]


def load_theory(folder: Path, shared: Any = None) -> Theory | None:
    """The folder's theory page (its own file, or the one ``shared`` names: exercise.toml's
    ``theory`` key), validated; raises ValueError naming the file and the problem."""
    markdown, code = folder / MARKDOWN_FILE, folder / CODE_FILE
    own = [path.name for path in (markdown, code) if path.is_file()]
    if len(own) == 2:
        raise ValueError(f"{folder}: holds both {MARKDOWN_FILE} and {CODE_FILE}; keep one")
    if shared is not None:
        if own:
            raise ValueError(f"'theory' names a shared page, but the folder holds {own[0]}")
        markdown = code = shared_page(folder, shared)
    if markdown.is_file() and markdown.name.endswith(".md"):
        return _from_markdown(markdown)
    if not code.is_file():
        return None
    namespace: dict[str, Any] = {"__name__": f"theory_{code.parent.name}"}
    try:
        exec(compile(code.read_text(encoding="utf-8"), str(code), "exec"), namespace)
        made = namespace["theory"]()
    except Exception as exc:  # trusted, but a mistake in it should name the file
        raise ValueError(f"{code}: raised {type(exc).__name__}: {exc}") from exc
    try:
        return _valid(made)
    except ValueError as exc:
        raise ValueError(f"{code}: theory() {exc}") from None


def shared_page(folder: Path, named: Any) -> Path:
    """The file exercise.toml's ``theory`` names: a relative path to a ``theory.py`` or
    ``theory.md`` in another folder of the same exercises root (links resolved first, so a link
    cannot lead out of it)."""
    if not isinstance(named, str) or not named.strip():
        raise ValueError("'theory' must be a path such as \"../other-exercise/theory.py\"")
    path = Path(named)
    if path.is_absolute() or path.name not in (MARKDOWN_FILE, CODE_FILE):
        raise ValueError(
            f"'theory' must be a relative path to a {CODE_FILE} or {MARKDOWN_FILE}, got {named!r}"
        )
    root = folder.parent.resolve()
    target = (folder / path).resolve()
    if not target.is_relative_to(root) or target.parent == root:
        raise ValueError(f"'theory' = {named!r} leads out of the exercise folders under {root}")
    if not target.is_file():
        raise ValueError(f"'theory' = {named!r}: no such file ({target})")
    return target


def _from_markdown(path: Path) -> Theory:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    title = "Theory"
    if lines and lines[0].startswith("# "):
        title, text = lines[0][2:].strip(), "\n".join(lines[1:])
    if not text.strip():
        raise ValueError(f"{path}: empty")
    return {"title": title, "blocks": [{"markdown": text}]}


def _text(value: Any, what: str, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value.strip()) or len(value) > MAX_TEXT:
        raise ValueError(f"{what} must be a non-empty string of at most {MAX_TEXT} characters")
    return value


def _strings(value: Any, what: str, length: int | None = None) -> list[str]:
    if not (isinstance(value, list) and all(isinstance(item, str) for item in value)):
        raise ValueError(f"{what} must be a list of strings")
    if length is not None and len(value) != length:
        raise ValueError(f"{what} must hold {length} cells, one per column")
    return list(value)


def _table(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict) or not {"header", "rows"} <= set(raw):
        raise ValueError("a table needs header and rows")
    header = _strings(raw["header"], "a table's header")
    rows = raw["rows"]
    if not (isinstance(rows, list) and 1 <= len(rows) <= MAX_ROWS):
        raise ValueError(f"a table needs 1 to {MAX_ROWS} rows")
    table: dict[str, Any] = {
        "caption": _text(raw.get("caption", ""), "a table's caption", empty=True),
        "header": header,
        "rows": [_strings(row, "a table row", len(header)) for row in rows],
    }
    if "checks" in raw:
        checks = raw["checks"]
        if not (
            isinstance(checks, dict)
            and isinstance(checks.get("passed"), list)
            and len(checks["passed"]) == len(rows)
            and all(type(x) is bool for x in checks["passed"])
        ):
            raise ValueError("a table's checks need a header and one true or false per row")
        table["checks"] = {
            "header": _text(checks.get("header", "check"), "a check column's header"),
            "passed": list(checks["passed"]),
        }
    if "footer" in raw:
        table["footer"] = _strings(raw["footer"], "a table's footer", len(header))
    if "key" in raw:
        table["key"] = _text(raw["key"], "a table's key")
    return table


def _plot(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict) or not {"title", "x_label", "y_label", "series"} <= set(raw):
        raise ValueError("a plot needs title, x_label, y_label and series")
    series = raw["series"]
    if not (isinstance(series, list) and 1 <= len(series) <= MAX_SERIES):
        raise ValueError(f"a plot needs 1 to {MAX_SERIES} series")
    drawn = []
    for item in series:
        points = item.get("points") if isinstance(item, dict) else None
        if not (isinstance(points, list) and 2 <= len(points) <= MAX_POINTS):
            raise ValueError(f"a series needs 2 to {MAX_POINTS} points")
        pairs = []
        for point in points:
            if not (
                isinstance(point, (list, tuple))
                and len(point) == 2
                and all(
                    isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c)
                    for c in point
                )
            ):
                raise ValueError("a point is [x, y], two finite numbers")
            pairs.append([float(point[0]), float(point[1])])
        drawn.append({"name": _text(item.get("name"), "a series' name"), "points": pairs})
    return {
        "title": _text(raw["title"], "a plot's title"),
        "x_label": _text(raw["x_label"], "a plot's x_label"),
        "y_label": _text(raw["y_label"], "a plot's y_label"),
        "caption": _text(raw.get("caption", ""), "a plot's caption", empty=True),
        "series": drawn,
    }


def _valid(made: Any) -> Theory:
    if not (isinstance(made, dict) and set(made) == {"title", "blocks"}):
        raise ValueError("must return {'title': str, 'blocks': [...]}")
    blocks = made["blocks"]
    if not (isinstance(blocks, list) and 1 <= len(blocks) <= MAX_BLOCKS):
        raise ValueError(f"needs 1 to {MAX_BLOCKS} blocks")
    checked: list[dict[str, Any]] = []
    for block in blocks:
        if not (isinstance(block, dict) and len(block) == 1):
            raise ValueError("each block is one of markdown, heading, table, plot")
        ((kind, value),) = block.items()
        if kind in ("markdown", "heading"):
            checked.append({kind: _text(value, f"a {kind} block")})
        elif kind == "table":
            checked.append({"table": _table(value)})
        elif kind == "plot":
            checked.append({"plot": _plot(value)})
        else:
            raise ValueError(f"has an unknown block {kind!r} (markdown, heading, table, plot)")
    return {"title": _text(made["title"], "its title"), "blocks": checked}


def texts(theory: Theory | None) -> list[str]:
    """Every Markdown text of a theory page, for the math check of `judge exercises check`."""
    if theory is None:
        return []
    found = []
    for block in theory["blocks"]:
        if "markdown" in block:
            found.append(block["markdown"])
        elif "table" in block:
            table = block["table"]
            found += [table["caption"], table.get("key", "")]
        elif "plot" in block:
            found.append(block["plot"]["caption"])
    return [text for text in found if text]
