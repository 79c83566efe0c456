"""A broken `[custom]` declaration of a value's type, bounds, a shape or indices, made in a copy
of each exercise folder that has a parameter it could be declared on, is refused at load with
one line naming the file and the declaration; `judge exercises check` reports it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from app.catalog import ExerciseError, load_exercise
from tests.test_authoring import FOLDERS, copy_of, judge, set_custom


def _value(folder: Path) -> str | None:
    kinds = load_exercise(folder).parameters
    return next((n for n, kind in kinds.items() if kind == "value"), None)


def _not_value(folder: Path) -> str | None:
    kinds = load_exercise(folder).parameters
    return next((n for n, kind in kinds.items() if kind != "value"), None)


def _numeric(folder: Path) -> str | None:
    exercise = load_exercise(folder)
    arrays = [n for n, kind in exercise.parameters.items() if kind == "ndarray"]
    return next(iter([*arrays, *exercise.input_caps.item_types]), None)


def _array(folder: Path) -> str | None:
    kinds = load_exercise(folder).parameters
    return next((n for n, kind in kinds.items() if kind == "ndarray"), None)


def _int_list(folder: Path) -> str | None:
    caps = load_exercise(folder).input_caps
    return next((n for n, t in caps.item_types.items() if t == "int"), None)


def _scalar(folder: Path) -> str | None:
    return next(iter(load_exercise(folder).input_caps.scalars), None)


# Each mistake: which parameter it needs, how it is made on it, the words of its refusal.
MISTAKES: dict[str, tuple[Callable[[Path], str | None], Callable[[str], tuple[str, str]], str]] = {
    "a type that does not parse": (
        _value,
        lambda name: ("types", f'{{ {name} = "list[tuple[int, float]" }}'),
        r"\[custom\] types: {name}: 'list\[tuple\[int, float\]' is not a type of the returns "
        r"grammar \(unbalanced brackets",
    ),
    "an unknown type": (
        _value,
        lambda name: ("types", f'{{ {name} = "array[float]" }}'),
        r"\[custom\] types: {name}: 'array\[float\]' is not a type .*\(unknown type 'array'\)",
    ),
    "a type on a non-value parameter": (
        _not_value,
        lambda name: ("types", f'{{ {name} = "list[float]" }}'),
        r"\[custom\] types maps value parameters to a type .*; '{name}' is not a value parameter",
    ),
    "a type beside a scalar range": (
        _scalar,
        lambda name: ("types", f'{{ {name} = "float" }}'),
        r"\[custom\] {name}: both types and scalars; declare one",
    ),
    "bounds with min above max": (
        _numeric,
        lambda name: ("bounds", f"{{ {name} = {{ min = 1, max = 0 }} }}"),
        r"\[custom\] bounds: {name}: min 1 is above max 0",
    ),
    "bounds of no number": (
        _numeric,
        lambda name: ("bounds", f'{{ {name} = {{ max = "0" }} }}'),
        r"\[custom\] bounds maps ndarray parameters.* \({name}\)",
    ),
    "a shape with no dimension it can read": (
        _array,
        lambda name: ("shapes", f'{{ {name} = ["gamma * 2"] }}'),
        r"\[custom\] shapes: {name}: 'gamma \* 2' is not a dimension",
    ),
    "a shape of a list with two dimensions": (
        _int_list,
        lambda name: ("shapes", f'{{ {name} = ["K", "V"] }}'),
        r"\[custom\] shapes: {name} is a list: one dimension",
    ),
    "indices of a size no shape declares": (
        _int_list,
        lambda name: ("indices", f'{{ {name} = "vocabulary" }}'),
        r"\[custom\] indices: {name}: 'vocabulary' is not a size of \[custom\] shapes",
    ),
    "support of a list that is no array": (
        _int_list,
        lambda name: ("support", f'{{ {name} = "{name}" }}'),
        r"\[custom\] support maps list parameters of integers to a 2-dimensional ndarray .*; "
        r"'{name}' is not one",
    ),
    "bounds of neither min nor max": (
        _numeric,
        lambda name: ("bounds", f"{{ {name} = {{ most = 0 }} }}"),
        r"\[custom\] bounds maps ndarray parameters.* \({name}\)",
    ),
}
CASES = [
    (source, mistake)
    for mistake, (needs, _, _) in MISTAKES.items()
    for source in FOLDERS
    if needs(source) is not None
]


def test_every_mistake_has_a_folder_to_be_made_in() -> None:
    assert {mistake for _, mistake in CASES} == set(MISTAKES)


def _broken(source: Path, mistake: str, root: Path) -> tuple[Path, str]:
    """A copy of ``source`` with ``mistake`` made in it, and the words its refusal must match."""
    needs, declare, words = MISTAKES[mistake]
    name = needs(source)
    assert name is not None
    copy = copy_of(source, root)
    load_exercise(copy)  # the copy loads before the mistake
    set_custom(copy, *declare(name))
    return copy, words.format(name=name)


@pytest.mark.parametrize(("source", "mistake"), CASES, ids=[f"{s.name}-{m}" for s, m in CASES])
def test_a_broken_declaration_is_refused_at_load_naming_the_file(
    tmp_path: Path, source: Path, mistake: str
) -> None:
    copy, words = _broken(source, mistake, tmp_path)
    with pytest.raises(ExerciseError, match=words) as caught:
        load_exercise(copy)
    assert str(caught.value).startswith(str(copy / "exercise.toml"))
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_check_reports_a_broken_declaration(tmp_path: Path, mistake: str) -> None:
    source = next(s for s, m in CASES if m == mistake)
    copy, words = _broken(source, mistake, tmp_path)
    done = judge("--exercises", str(tmp_path), "exercises", "check", source.name)
    assert done.returncode == 1 and str(copy) in done.stdout, done.stdout
    assert re.search(words, done.stdout), done.stdout
