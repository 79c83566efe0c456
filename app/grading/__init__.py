"""Grading: the exercise's cases run through the sandbox, compared with the reference, and
worded into a report.

The rest of the app uses only the names below (``tests/app/test_grading_boundary.py`` holds it
to that); what is behind them (how cases are drawn, compared, and turned into sentences) may
change without the routes, the CLI or the catalog noticing.

Names are resolved on first use, so that the catalog (which grading reads) can import the
types it declares exercises with without loading the whole package.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the same names, for type checkers (at run time they load on first use)
    from app.grading.compare import TypeSpec, parse_type
    from app.grading.custom_caps import CapsError, InputCaps, ScalarRange, read_caps
    from app.grading.custom_input import CUSTOM_CASE_NAME, BadInput, validate
    from app.grading.distribution import DistributionCheck, load_check
    from app.grading.exercise_tools import check_all, regenerate_all
    from app.grading.judge import Judge
    from app.grading.sampler import SamplerCheck, load_sampler
    from app.grading.tolerance import EXACT, Tolerance

_HOMES = {
    "TypeSpec": "app.grading.compare",
    "parse_type": "app.grading.compare",
    "CapsError": "app.grading.custom_caps",
    "InputCaps": "app.grading.custom_caps",
    "ScalarRange": "app.grading.custom_caps",
    "read_caps": "app.grading.custom_caps",
    "BadInput": "app.grading.custom_input",
    "CUSTOM_CASE_NAME": "app.grading.custom_input",
    "validate": "app.grading.custom_input",
    "DistributionCheck": "app.grading.distribution",
    "load_check": "app.grading.distribution",
    "check_all": "app.grading.exercise_tools",
    "regenerate_all": "app.grading.exercise_tools",
    "Judge": "app.grading.judge",
    "SamplerCheck": "app.grading.sampler",
    "load_sampler": "app.grading.sampler",
    "EXACT": "app.grading.tolerance",
    "Tolerance": "app.grading.tolerance",
}
__all__ = [
    "BadInput",
    "CUSTOM_CASE_NAME",
    "CapsError",
    "InputCaps",
    "ScalarRange",
    "read_caps",
    "DistributionCheck",
    "EXACT",
    "Judge",
    "SamplerCheck",
    "Tolerance",
    "TypeSpec",
    "check_all",
    "load_check",
    "load_sampler",
    "parse_type",
    "regenerate_all",
    "validate",
]
assert sorted(__all__) == sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'app.grading' has no attribute {name!r}")
