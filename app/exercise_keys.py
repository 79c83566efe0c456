"""Which keys and tables ``exercise.toml`` may hold, and the nearest valid one to a misspelling.

A misspelt table is worse than a missing one: ``[comparison]`` for ``[compare]`` would leave
floats compared exactly, silently. So every key is checked against this list at load, and the
error names the nearest valid spelling.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from typing import Any

from sandbox import Limits

TOP_LEVEL = (
    "title",
    "section",
    "difficulty",
    "summary",
    "entry_point",
    "returns",
    "return_names",
    "related",
    "order",
    "hints",
    "theory",
)
# [custom]: the caps of a learner's own input (app/grading/custom_caps.py reads them).
CUSTOM_KEYS = (
    "max_length",
    "max_elements",
    "items",
    "distributions",
    "scalars",
    "ndim",
    "nonempty",
    "probabilities",
    "types",
    "bounds",
    "same_length",
    "shapes",
    "indices",
    "support",
)
# Each table and its keys (None: its keys are the exercise's own names, e.g. parameters).
TABLES: Mapping[str, tuple[str, ...] | None] = {
    "parameters": None,
    "random": ("mode", "argument"),
    "compare": ("rel_tol", "abs_tol", "allow_nonfinite"),
    "submit": ("random_cases",),
    "limits": tuple(field.name for field in dataclasses.fields(Limits)),
    "custom": CUSTOM_KEYS,
    "feedback": ("extra", "missing", "differs", "empty"),
    "distribution": ("pairs", "hints", "words"),
    "sampler": ("inputs", "hints", "lesson"),
}


def nearest(name: str, valid: tuple[str, ...] | list[str]) -> str:
    """' (did you mean X?)' for the closest valid name, or '' when none is close."""
    close = difflib.get_close_matches(name, list(valid), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def unknown_key_problem(meta: Mapping[str, Any]) -> str | None:
    """The first key or table of ``meta`` that exercise.toml does not define, in words."""
    for key, value in meta.items():
        if key in TABLES:
            keys = TABLES[key]
            if keys is None or not isinstance(value, dict):
                continue  # a non-table where a table goes is the table's own loader's to say
            for inner in value:
                if inner not in keys:
                    return (
                        f"[{key}] has an unknown key {inner!r}{nearest(inner, keys)}; it may "
                        f"set {', '.join(keys)}"
                    )
        elif key not in TOP_LEVEL:
            kind = "table" if isinstance(value, dict) else "key"
            shown = f"[{key}]" if kind == "table" else repr(key)
            return f"unknown {kind} {shown}{nearest(key, [*TOP_LEVEL, *TABLES])}"
    return None
