"""The authoring tools as an author meets them: `judge exercises new|check|regen [ID...]`.

Each classic mistake, made in a copy of an exercise folder, is refused by `judge exercises
check` with a message naming the folder; a scaffold passes as it is; regen rewrites only what
changed; the mistakes caught at load are caught in a copy of every exercise folder found.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from app import trusted_code
from app.catalog import EXERCISES_DIR, ExerciseError, load_exercise
from app.grading.exercise_tools import regenerate
from app.grading.judge import Judge
from tests.exercise_copies import standalone_copy

JUDGE = shutil.which("judge", path=str(Path(sys.executable).parent)) or "judge"
FOLDERS = sorted(p for p in EXERCISES_DIR.iterdir() if (p / "exercise.toml").is_file())


def judge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JUDGE, *args], capture_output=True, text=True, timeout=300, check=False)


def copy_of(source: Path, root: Path) -> Path:
    """The exercise folder copied under ``root`` alone (its golden files and its links to the
    exercises left behind)."""
    copy = standalone_copy(source, root, "solutions", "__pycache__")
    text = re.sub(r"^related\s*=\s*\[[^\]]*\][^\n]*\n", "", toml_text(copy), flags=re.M)
    set_toml(copy, text)
    return copy


def toml_text(folder: Path) -> str:
    return (folder / "exercise.toml").read_text()


def set_toml(folder: Path, text: str) -> None:
    (folder / "exercise.toml").write_text(text)


def misspelt_table(folder: Path) -> None:
    set_toml(folder, toml_text(folder) + "\n[comparison]\nrel_tol = 1e-9\n")


def unknown_key(folder: Path) -> None:
    set_toml(folder, "dificulty = 'easy'\n" + toml_text(folder))


def empty_statement(folder: Path) -> None:
    (folder / "statement.md").write_text("  \n")


def nan_expected(folder: Path) -> None:
    path = folder / "cases.json"
    cases = json.loads(path.read_text())
    cases[0]["expected"]["value"] = float("nan")
    path.write_text(json.dumps(cases))  # json writes NaN, which json.loads reads back


def infinite_expected(folder: Path) -> None:
    path = folder / "cases.json"
    cases = json.loads(path.read_text())
    cases[-1]["expected"]["value"] = float("-inf")
    path.write_text(json.dumps(cases))  # json writes -Infinity, which json.loads reads back


def distribution_not_on_a_list(folder: Path) -> None:
    """``[custom] probabilities`` naming a parameter that is no list (or none at all)."""
    kinds = load_exercise(folder).parameters
    name = next((n for n, kind in kinds.items() if kind != "list"), "no_such_parameter")
    text = re.sub(r"^probabilities\s*=.*\n", "", toml_text(folder), flags=re.M)  # its own
    set_toml(folder, text + f"\n[custom.probabilities]\n{name} = 1e-6\n")


def set_custom(folder: Path, key: str, value: str) -> None:
    """``[custom] key = value`` in place of the folder's own ``key`` (a table may be opened
    after its subtables, so a folder with only ``[custom.scalars]`` takes a ``[custom]``)."""
    text = re.sub(rf"^{key}\s*=.*\n", "", toml_text(folder), flags=re.M)
    line = f"{key} = {value}\n"
    if re.search(r"^\[custom\]\n", text, flags=re.M):
        set_toml(folder, re.sub(r"^\[custom\]\n", f"[custom]\n{line}", text, flags=re.M))
    else:
        set_toml(folder, f"{text}\n[custom]\n{line}")


def type_of_no_parameter(folder: Path) -> None:
    set_custom(folder, "types", '{ no_such_parameter = "int" }')


def non_numeric(folder: Path) -> str:
    """A parameter of the folder that is no array of numbers: a generator, or a value of no
    declared type (every exercise has one)."""
    exercise = load_exercise(folder)
    return next(
        name
        for name, kind in exercise.parameters.items()
        if kind == "rng" or (kind == "value" and name not in exercise.input_caps.types)
    )


def bounds_on_a_non_numeric_parameter(folder: Path) -> None:
    set_custom(folder, "bounds", f"{{ {non_numeric(folder)} = {{ max = 0 }} }}")


def same_length_without_a_length(folder: Path) -> None:
    """Every parameter in one group: at least one of them (an rng, a number) has no length."""
    names = ", ".join(f'"{n}"' for n in load_exercise(folder).parameters)
    set_custom(folder, "same_length", f"[[{names}]]")


def generator_off_its_rng(folder: Path) -> None:
    """A generator that draws from Python's random module: its seed would replay nothing."""
    path = folder / "case_generator.py"
    path.write_text(
        path.read_text() + "\n\nimport random as _module\nimport numpy as _np\n\n"
        "_own = random_case\n\n\ndef random_case(rng):\n"
        "    return _own(_np.random.default_rng(_module.randrange(1 << 30)))\n"
    )


def misspelt_case_key(folder: Path) -> None:
    path = folder / "cases.json"
    path.write_text(path.read_text().replace('"name":', '"nme":', 1))


def items_of_no_parameter(folder: Path) -> None:
    set_custom(folder, "items", '{ prbs = "float" }')


LOAD_MISTAKES: dict[str, tuple[Callable[[Path], None], str]] = {
    "a misspelt case key": (
        misspelt_case_key,
        r"cases.json: case 1 has unknown key 'nme' \(a case holds expected, hint, input, name\)",
    ),
    "items of no parameter": (
        items_of_no_parameter,
        r"\[custom\] items: 'prbs' is not a parameter \(the parameters are ",
    ),
    "a generator off its rng": (
        generator_off_its_rng,
        r"case_generator.py: random_case draws from Python's random module: it must draw from "
        r"its rng alone",
    ),
    "misspelt table": (
        misspelt_table,
        r"unknown table \[comparison\] \(did you mean 'compare'\?\)",
    ),
    "unknown key": (unknown_key, r"unknown key 'dificulty' \(did you mean 'difficulty'\?\)"),
    "empty statement": (empty_statement, r"statement.md: the statement is empty"),
    "nan expected": (nan_expected, r"cases.json: case .*: the expected value holds nan"),
    "infinite expected": (
        infinite_expected,
        r"cases.json: case .*: the expected value holds nan or infinity; set \[compare\] "
        r"allow_nonfinite = true",
    ),
    "distribution not on a list": (
        distribution_not_on_a_list,
        r"\[custom\] probabilities maps list parameters to the tolerance of their sum",
    ),
    "type of no parameter": (
        type_of_no_parameter,
        r"\[custom\] types: 'no_such_parameter' is not a parameter \(the parameters are \w+",
    ),
    "bounds on a non-numeric parameter": (
        bounds_on_a_non_numeric_parameter,
        r"\[custom\] bounds maps ndarray parameters, .* \(either or both\); '\w+' is not such",
    ),
    "same length without a length": (
        same_length_without_a_length,
        r"\[custom\] same_length must be a list of groups of two or more list or ndarray "
        r"parameters .*; '\w+' is not one",
    ),
}


@pytest.mark.parametrize("mistake", sorted(LOAD_MISTAKES))
@pytest.mark.parametrize("source", FOLDERS, ids=lambda p: p.name)
def test_every_folder_with_a_load_mistake_is_refused_naming_it(
    tmp_path: Path, source: Path, mistake: str
) -> None:
    mutate, words = LOAD_MISTAKES[mistake]
    copy = copy_of(source, tmp_path)
    load_exercise(copy)  # the copy loads before the mistake
    mutate(copy)
    with pytest.raises(ExerciseError, match=words) as caught:
        load_exercise(copy)
    assert str(copy) in str(caught.value)


def broken_math(folder: Path) -> None:
    path = folder / "statement.md"
    path.write_text(path.read_text() + "\n\nThe mean is $\\frac{1}{$ per step.\n")


def reference_fails(folder: Path) -> None:
    """A reference that raises: the expected outputs cannot come from it."""
    exercise = load_exercise(folder)
    parameters = ", ".join(exercise.parameters)
    (folder / "solution.py").write_text(
        f"def {exercise.entry_point}({parameters}):\n    raise ValueError('unfinished')\n"
    )


def golden_disagrees(folder: Path) -> None:
    """A golden correct submission beside the exercise that is the starter (it fails)."""
    (folder / "solutions").mkdir()
    shutil.copy(folder / "starter.py", folder / "solutions" / "correct_but_not.py")


def stored_input_of_the_wrong_kind(folder: Path) -> None:
    """The first example's first array or list given a string: the case's fault, said so."""
    exercise = load_exercise(folder)
    name = next(n for n, kind in exercise.parameters.items() if kind in ("ndarray", "list"))
    path = folder / "cases.json"
    cases = json.loads(path.read_text())
    cases[0]["input"][name] = "abc"
    path.write_text(json.dumps(cases))


CHECK_MISTAKES: dict[str, tuple[Callable[[Path], None], str]] = {
    "stored input of the wrong kind": (
        stored_input_of_the_wrong_kind,
        r"case '[^']+' does not fit the exercise's own \[custom\] caps: input\.\w+: expected a "
        r"\(nested\) list of numbers, got a string",
    ),
    "broken math": (broken_math, r"statement.md, line \d+: math \$\\frac\{1\}\{\$ does not parse"),
    "reference fails": (
        reference_fails,
        r"reference failed on .*: ValueError \(line 2\): unfinished",
    ),
    "golden correct refused": (golden_disagrees, r"golden correct_but_not.py fails its Submit"),
}


@pytest.mark.parametrize("mistake", sorted(CHECK_MISTAKES))
def test_check_refuses_each_mistake_with_the_folder_named(tmp_path: Path, mistake: str) -> None:
    mutate, words = CHECK_MISTAKES[mistake]
    source = FOLDERS[0]
    copy = copy_of(source, tmp_path)
    mutate(copy)
    done = judge("--exercises", str(tmp_path), "exercises", "check", source.name)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"FAIL  {source.name}  ({copy})" in done.stdout, done.stdout
    assert re.search(words, done.stdout), done.stdout


@pytest.mark.parametrize("mistake", sorted(LOAD_MISTAKES))
def test_check_names_the_folder_of_a_load_mistake(tmp_path: Path, mistake: str) -> None:
    mutate, words = LOAD_MISTAKES[mistake]
    copy = copy_of(FOLDERS[0], tmp_path)
    mutate(copy)
    done = judge("--exercises", str(tmp_path), "exercises", "check")
    assert done.returncode == 1 and str(copy) in done.stdout, done.stdout
    assert re.search(words, done.stdout), done.stdout


def test_a_scaffold_passes_regen_and_check_and_regen_touches_only_what_changed(
    tmp_path: Path,
) -> None:
    made = judge("--exercises", str(tmp_path), "exercises", "new", "my-first-exercise")
    assert made.returncode == 0, made.stdout + made.stderr
    folder = tmp_path / "my-first-exercise"
    assert judge("--exercises", str(tmp_path), "exercises", "regen").returncode == 0
    checked = judge("--exercises", str(tmp_path), "exercises", "check", "my-first-exercise")
    assert checked.returncode == 0, checked.stdout
    assert "1 of 1 exercises valid" in checked.stdout
    # A second exercise beside it: regenerating one leaves the other's file as it was.
    assert judge("--exercises", str(tmp_path), "exercises", "new", "another-one").returncode == 0
    before = (folder / "cases.json").stat().st_mtime_ns
    again = judge("--exercises", str(tmp_path), "exercises", "regen")
    assert f"same     {folder / 'cases.json'}" in again.stdout, again.stdout
    assert f"updated  {tmp_path / 'another-one' / 'cases.json'}" in again.stdout
    assert (folder / "cases.json").stat().st_mtime_ns == before
    # Its golden files live in its folder, and check ran them.
    assert sorted(p.name for p in (folder / "solutions").iterdir()) == [
        "correct_builtin_max.py",
        "wrong_starts_at_zero.py",
    ]


def test_check_refuses_caps_that_refuse_the_exercises_own_cases(tmp_path: Path) -> None:
    # The scaffold's values are integers such as [9, 2, 3]: no distribution, so a learner who
    # copied an example into "Try your own input" would be refused.
    assert judge("--exercises", str(tmp_path), "exercises", "new", "my-max").returncode == 0
    folder = tmp_path / "my-max"
    assert judge("--exercises", str(tmp_path), "exercises", "regen").returncode == 0
    set_toml(folder, toml_text(folder) + "\n[custom.probabilities]\nvalues = 1e-6\n")
    done = judge("--exercises", str(tmp_path), "exercises", "check", "my-max")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"FAIL  my-max  ({folder})" in done.stdout, done.stdout
    assert (
        "case 'one number' does not fit the exercise's own [custom] caps: input.values: not a "
        "probability distribution: values[0] = 7 is above 1"
    ) in done.stdout, done.stdout


def test_new_refuses_a_bad_id_or_an_existing_folder(tmp_path: Path) -> None:
    bad = judge("--exercises", str(tmp_path), "exercises", "new", "Top_P")
    assert bad.returncode == 1 and "is not an exercise id" in bad.stdout
    assert judge("--exercises", str(tmp_path), "exercises", "new", "x").returncode == 0
    again = judge("--exercises", str(tmp_path), "exercises", "new", "x")
    assert again.returncode == 1 and "already exists" in again.stdout


def test_check_of_an_unknown_id_names_the_nearest(tmp_path: Path) -> None:
    assert judge("--exercises", str(tmp_path), "exercises", "new", "top-p").returncode == 0
    done = judge("--exercises", str(tmp_path), "exercises", "check", "top-q")
    assert done.returncode == 1 and "no exercise 'top-q'" in done.stdout
    assert "did you mean 'top-p'?" in done.stdout


def test_an_exercise_that_means_a_nonfinite_expectation_says_so(tmp_path: Path) -> None:
    copy = copy_of(FOLDERS[0], tmp_path)
    infinite_expected(copy)
    text = toml_text(copy)
    if re.search(r"^\[compare\]", text, flags=re.M):
        set_toml(
            copy, re.sub(r"^\[compare\]\n", "[compare]\nallow_nonfinite = true\n", text, flags=re.M)
        )
    else:
        set_toml(copy, text + "\n[compare]\nallow_nonfinite = true\n")
    assert load_exercise(copy).allow_nonfinite


def new_exercise(root: Path, exercise_id: str = "my-max") -> Path:
    """A scaffold, regenerated: a folder that passes check, for one mistake at a time."""
    assert judge("--exercises", str(root), "exercises", "new", exercise_id).returncode == 0
    assert judge("--exercises", str(root), "exercises", "regen", exercise_id).returncode == 0
    return root / exercise_id


def test_check_refuses_a_reference_that_fails_only_on_the_random_cases(tmp_path: Path) -> None:
    # The stored cases hold at most 14 numbers; the generator draws 20 to 30, on which this
    # reference raises: regen and the examples cannot see it, its own Submit does.
    folder = new_exercise(tmp_path)
    (folder / "case_generator.py").write_text(
        "def random_case(rng):\n"
        "    size = int(rng.integers(20, 31))\n"
        "    return {'values': [int(v) for v in rng.integers(-99, 100, size)]}\n"
    )
    set_toml(folder, toml_text(folder) + "\n[submit]\nrandom_cases = 5\n")
    solution = folder / "solution.py"
    solution.write_text(
        solution.read_text().replace(
            "    best = values[0]\n",
            "    if len(values) > 15:\n        raise ValueError('long lists: not done yet')\n"
            "    best = values[0]\n",
        )
    )
    done = judge("--exercises", str(tmp_path), "exercises", "check", "my-max")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"FAIL  my-max  ({folder})" in done.stdout, done.stdout
    assert (
        "random case 1 of seed 0: the reference raised ValueError: long lists: not done yet"
    ) in done.stdout, done.stdout
    assert "the reference fails its Submit (runtime_error)" in done.stdout, done.stdout


def test_check_refuses_a_changed_reference_that_golden_submissions_disagree_with(
    tmp_path: Path,
) -> None:
    # The author changes the reference and regenerates: the stored cases now agree with it,
    # the golden correct submission beside it (max(values)) does not.
    folder = new_exercise(tmp_path)
    (folder / "solution.py").write_text("def largest(values):\n    return sorted(values)[-2:][0]\n")
    assert judge("--exercises", str(tmp_path), "exercises", "regen", "my-max").returncode == 0
    done = judge("--exercises", str(tmp_path), "exercises", "check", "my-max")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"FAIL  my-max  ({folder})" in done.stdout, done.stdout
    assert "golden correct_builtin_max.py fails its Submit (wrong_answer)" in done.stdout
    assert "stored expected" not in done.stdout  # regen did its part: only the golden differs


def test_check_proves_the_wrong_golden_files_beside_the_exercise(tmp_path: Path) -> None:
    # The scaffold's wrong_starts_at_zero.py fails first at 'negative numbers only' (check
    # passes on the scaffold, above); an expect line naming another case is refused.
    folder = new_exercise(tmp_path)
    wrong = folder / "solutions" / "wrong_starts_at_zero.py"
    lines = wrong.read_text().splitlines(keepends=True)
    wrong.write_text("# expect: wrong_answer a long list\n" + "".join(lines[1:]))
    done = judge("--exercises", str(tmp_path), "exercises", "check", "my-max")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"FAIL  my-max  ({folder})" in done.stdout, done.stdout
    assert (
        "golden wrong_starts_at_zero.py fails Submit with wrong_answer at 'negative numbers "
        "only'; its first line expects wrong_answer at 'a long list'"
    ) in done.stdout, done.stdout


@pytest.fixture
def grader(judge: Judge) -> Judge:
    """The tests' warm judge (conftest's ``judge``; here that name is the command line's)."""
    return judge


def second_expectation(text: str) -> tuple[int, int]:
    """Where the second case's ``expected`` value lies in a cases file, however it is laid
    out (on one line or over many, as an author's own ``json.dump(indent=2)`` writes it)."""
    start = [m.end() for m in re.finditer(r'"expected"\s*:\s*', text)][1]
    _, end = json.JSONDecoder().raw_decode(text, start)
    return start, end


@pytest.mark.parametrize("source", FOLDERS, ids=lambda p: p.name)
def test_regen_rewrites_only_the_expectation_that_changed(
    tmp_path: Path, source: Path, grader: Judge
) -> None:
    copy = copy_of(source, tmp_path)
    files = [copy / "cases.json", copy / "extra_cases.json"]
    files = [path for path in files if path.exists()]
    stored = {path: path.read_text() for path in files}
    spans = {path: second_expectation(text) for path, text in stored.items()}
    for path, text in stored.items():
        start, end = spans[path]  # an author's stale expectation
        path.write_text(text[:start] + '{"value": null}' + text[end:])
    regenerate(grader, load_exercise(copy))
    for path, text in stored.items():
        after, (start, end) = path.read_text(), spans[path]
        # Everything around the stale value stays byte for byte; the value itself comes back
        # (written compactly, so a value its author spread over many lines takes one).
        assert json.loads(after) == json.loads(text)
        assert after.startswith(text[:start]) and after.endswith(text[end:]), (
            f"{path} is not as its author laid it out"
        )


def test_regen_lays_out_anew_only_a_file_it_cannot_edit_in_place(
    tmp_path: Path, grader: Judge
) -> None:
    assert judge("--exercises", str(tmp_path), "exercises", "new", "my-max").returncode == 0
    folder = tmp_path / "my-max"
    path = folder / "cases.json"
    cases = json.loads(path.read_text())
    for case in cases:
        del case["expected"]  # the scaffold's "expected": {} left out altogether
    path.write_text(json.dumps(cases))
    regenerate(grader, load_exercise(folder))
    assert json.loads(path.read_text())[0]["expected"] == {"value": 7}


def test_a_generator_that_draws_from_the_global_generators_even_rarely_is_refused(
    tmp_path: Path,
) -> None:
    # Its draws from numpy's global generator change the case only once in a hundred: seen by
    # the draw itself, not by comparing cases.
    copy = copy_of(FOLDERS[0], tmp_path)
    path = copy / "case_generator.py"
    path.write_text(
        path.read_text() + "\n\nimport numpy as _np\n\n_own = random_case\n\n\n"
        "def random_case(rng):\n    _np.random.random()\n    return _own(rng)\n"
    )
    with pytest.raises(ExerciseError, match=r"random_case draws from numpy's global generator"):
        load_exercise(copy)


def hanging_generator(folder: Path) -> None:
    path = folder / "case_generator.py"
    path.write_text(path.read_text() + "\n\ndef random_case(rng):\n    while True:\n        pass\n")


def test_a_generator_that_never_returns_is_refused_at_load_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trusted_code, "LOAD_LIMIT_S", 0.5)
    copy = copy_of(FOLDERS[0], tmp_path)
    hanging_generator(copy)
    with pytest.raises(ExerciseError, match=r"random_case on seed 0 did not finish within 0.5 s"):
        load_exercise(copy)


def test_check_and_grade_end_with_one_line_on_a_generator_that_never_returns(
    tmp_path: Path,
) -> None:
    # The author's loop used to hang every command that loads the exercises, silently.
    copy = copy_of(FOLDERS[0], tmp_path)
    hanging_generator(copy)
    checked = judge("--exercises", str(tmp_path), "exercises", "check")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert f"{copy / 'case_generator.py'}: random_case on seed 0 did not finish within 10 s" in (
        checked.stdout
    )
    graded = judge("--exercises", str(tmp_path), "grade", copy.name, str(copy / "starter.py"))
    assert graded.returncode == 2 and "did not finish within 10 s" in graded.stderr, graded.stderr
    assert "Traceback" not in graded.stderr + checked.stdout


def test_a_copy_elsewhere_of_a_built_in_exercise_is_not_held_to_the_repositorys_goldens(
    tmp_path: Path,
) -> None:
    # The author copies an exercise to change its rule: the repository's golden submissions
    # (tests/solutions/<id>/) belong to the original, not to the copy that has its id.
    source = EXERCISES_DIR / "softmax-temperature"
    copy = copy_of(source, tmp_path)
    solution = copy / "solution.py"
    doubled = (
        "\n\noriginal_softmax = softmax_with_temperature\n\n\n"
        "def softmax_with_temperature(logits, temperature):\n"
        "    return original_softmax(logits, 2 * temperature)\n"
    )
    solution.write_text(solution.read_text() + doubled)
    assert judge("--exercises", str(tmp_path), "exercises", "regen", copy.name).returncode == 0
    done = judge("--exercises", str(tmp_path), "exercises", "check", copy.name)
    assert "golden" not in done.stdout, done.stdout
    assert done.returncode == 0 and f"ok    {copy.name}  ({copy})" in done.stdout, done.stdout
