"""The `judge` console script, run as a user runs it: exit codes, output, the JSON report."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.exercise_copies import standalone_copy

ROOT = Path(__file__).resolve().parents[1]
VERIFY = ROOT / "exercises" / "speculative-decoding-verify"
JUDGE = shutil.which("judge", path=str(Path(sys.executable).parent)) or "judge"
REPORT_KEYS = {
    "status", "mode", "seed", "replayed_seed", "verdict", "message", "passed", "total",
    "duration_ms", "tests",
}  # fmt: skip
TEST_KEYS = {
    "name", "status", "group", "hint", "input", "expected", "actual", "message", "output",
    "duration_ms", "chart",
}  # fmt: skip


def judge(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    # The console script imports `app` from wherever the package was installed (an editable
    # install may point at another checkout): this checkout's code comes first.
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return subprocess.run(
        [JUDGE, *args], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        input=stdin, env={**os.environ, "PYTHONPATH": path, **(env or {})},
    )  # fmt: skip


def test_grading_the_reference_prints_an_accepted_report_and_exits_0() -> None:
    done = judge("grade", "speculative-decoding-verify", str(VERIFY / "solution.py"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("accepted: 6/6 tests passed")
    assert sum(line.lstrip().startswith("[PASS]") for line in lines) == 6


def test_grading_the_starter_explains_every_failure_and_exits_1() -> None:
    done = judge("grade", "speculative-decoding-verify", str(VERIFY / "starter.py"))
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert not lines[0].startswith("accepted")
    failing = [i for i, line in enumerate(lines) if line.lstrip().startswith(("[FAIL]", "[ERROR]"))]
    assert len(failing) == 6
    for index in failing:  # each failing case is followed by its message
        assert lines[index + 1].startswith("      ") and lines[index + 1].strip()


def test_values_are_shown_as_python_and_missing_ones_not_at_all(tmp_path: Path) -> None:
    returns_none = tmp_path / "none.py"
    returns_none.write_text(
        "def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):\n"
        "    return None\n"
    )
    done = judge("grade", "speculative-decoding-verify", str(returns_none))
    assert "      expected: [[10], 1]" in done.stdout
    assert "      actual:   None" in done.stdout and "null" not in done.stdout
    broken = tmp_path / "broken.py"
    broken.write_text("def speculative_decode(:\n")
    done = judge("grade", "speculative-decoding-verify", str(broken))
    assert done.stdout.count("not run: your code does not compile") == 6
    assert "actual:" not in done.stdout and "expected:" not in done.stdout


def test_json_report_has_the_contract_shape() -> None:
    done = judge("grade", "speculative-decoding-verify", str(VERIFY / "starter.py"), "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert set(report) == REPORT_KEYS
    assert report["status"] == "fail" and report["total"] == 6
    assert report["verdict"] == "wrong_answer"
    assert [set(test) for test in report["tests"]] == [TEST_KEYS] * 6
    assert all(test["status"] in ("pass", "fail", "error") for test in report["tests"])


def test_broken_code_is_a_report_not_a_crash(tmp_path: Path) -> None:
    source = tmp_path / "broken.py"
    source.write_text("def speculative_decode(:\n")
    done = judge("grade", "speculative-decoding-verify", str(source), "--json")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "compile_error" and report["status"] == "error"
    assert "line 1" in report["message"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("grade", "no-such-exercise", "x.py"), "unknown exercise 'no-such-exercise'"),
        (("grade", "speculative-decoding-verify", "/nonexistent/solution.py"), "cannot read"),
    ],
)
def test_bad_arguments_get_a_clear_message_and_exit_2(args: tuple[str, ...], needle: str) -> None:
    done = judge(*args)
    assert done.returncode == 2
    assert needle in done.stderr and "Traceback" not in done.stderr


CODE_CAP = 64 * 1024  # the verify exercise's limits.code_bytes (the default)


def _oversized(tmp_path: Path) -> str:
    path = tmp_path / "huge.py"
    path.write_text("# " + "x" * 3_600_000 + "\n")
    return str(path)


def _not_utf8(tmp_path: Path) -> str:
    path = tmp_path / "latin1.py"
    path.write_bytes("def speculative_decode(*a):\n    return 'café'\n".encode("latin-1"))
    return str(path)


def _missing(tmp_path: Path) -> str:
    return str(tmp_path / "nowhere.py")


def _directory(tmp_path: Path) -> str:
    return str(tmp_path)


def _empty_name(tmp_path: Path) -> str:
    return ""


@pytest.mark.parametrize(
    ("make", "needle"),
    [
        (_oversized, "is 3600003 bytes; the limit is 65536 bytes"),
        (_missing, "cannot read {path}: No such file or directory"),
        (_directory, "{path} is a directory"),
        (_not_utf8, "is not UTF-8 text (byte 0xe9 at offset"),
        (_empty_name, "judge: no source file given (the file name is empty)\n"),
    ],
    ids=["over the size cap", "missing", "directory", "not UTF-8", "empty name"],
)
def test_a_file_that_cannot_be_a_submission_gets_one_line_and_exit_2(
    tmp_path: Path, make: Any, needle: str
) -> None:
    path = make(tmp_path)
    done = judge("grade", "speculative-decoding-verify", path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("judge: "), done.stderr
    assert needle.format(path=path) in done.stderr


def test_a_byte_order_mark_first_is_dropped_as_python_drops_it(tmp_path: Path) -> None:
    # Some Windows editors save UTF-8 with a BOM; Python runs such a file.
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbf" + (VERIFY / "solution.py").read_bytes())
    done = judge("grade", "speculative-decoding-verify", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("accepted")


def test_an_endless_device_is_not_read_whole() -> None:
    done = judge("grade", "speculative-decoding-verify", "/dev/zero")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "judge: /dev/zero is a character device, not a regular file\n"


def _named_pipe(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.py"
    os.mkfifo(path)
    return path


def _socket(tmp_path: Path) -> Path:
    path = tmp_path / "socket.py"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
    return path


@pytest.mark.parametrize("command", ["grade", "run"])
@pytest.mark.parametrize(
    ("make", "kind"), [(_named_pipe, "a named pipe"), (_socket, "a socket")], ids=["fifo", "socket"]
)
def test_a_path_that_is_no_regular_file_is_refused_unread(
    tmp_path: Path, command: str, make: Any, kind: str
) -> None:
    # A named pipe nobody writes to would block the read forever: refused before it is opened.
    path = make(tmp_path)
    given = ("--input", VERIFY_INPUT) if command == "run" else ()
    done = judge(command, "speculative-decoding-verify", str(path), *given)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"judge: {path} is {kind}, not a regular file\n"


def test_a_file_of_exactly_the_cap_is_graded(tmp_path: Path) -> None:
    solution = (VERIFY / "solution.py").read_text()
    padded = tmp_path / "padded.py"
    padded.write_text(solution + "#" * (CODE_CAP - len(solution.encode()) - 1) + "\n")
    assert padded.stat().st_size == CODE_CAP
    done = judge("grade", "speculative-decoding-verify", str(padded))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("accepted: 6/6 tests passed")


def test_a_reader_that_goes_away_is_not_a_traceback() -> None:
    # `judge grade ... | true`: the reader is gone before the report is written.
    command = f"'{JUDGE}' grade speculative-decoding-verify '{VERIFY / 'starter.py'}' | true"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], cwd=ROOT, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1  # the judge's own status: the grade did not pass
    assert done.stderr == ""


@pytest.mark.parametrize(
    "words",
    [
        ("--exercises", "{root}", "exercises", "new", "my-max"),
        ("exercises", "--exercises", "{root}", "new", "my-max"),
        ("exercises", "new", "--exercises", "{root}", "my-max"),
        ("exercises", "new", "my-max", "--exercises", "{root}"),
    ],
)
def test_exercises_takes_its_folder_before_or_after_the_action(
    tmp_path: Path, words: tuple[str, ...]
) -> None:
    done = judge(*(word.format(root=tmp_path) for word in words))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "my-max" / "exercise.toml").is_file()
    assert not (ROOT / "exercises" / "my-max").exists()


def test_exercises_without_an_action_names_only_the_action_and_its_choices() -> None:
    done = judge("exercises")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == (
        "judge exercises: error: the following arguments are required: {check,regen,new}"
    )


def test_an_unknown_option_is_still_refused() -> None:
    done = judge("exercises", "check", "--no-such-option")
    assert done.returncode == 2
    assert "unrecognized arguments: --no-such-option" in done.stderr


@pytest.mark.parametrize(
    "command",
    [
        ("exercises", "check"),
        ("exercises", "regen", "speculative-decoding-verify"),
        ("grade", "speculative-decoding-verify", str(VERIFY / "solution.py")),
        ("doctor",),
    ],
)
@pytest.mark.parametrize("folder", ["missing", "a-file"])
def test_an_exercises_folder_that_is_not_one_is_one_line(
    tmp_path: Path, command: tuple[str, ...], folder: str
) -> None:
    root = tmp_path / folder
    if folder == "a-file":
        root.write_text("not a folder\n")
    done = judge("--exercises", str(root), *command)
    said = (done.stdout + done.stderr).strip()
    # grade could not grade (2, not "not accepted"); check fails, doctor is not OK (1)
    assert done.returncode == (2 if command[0] == "grade" else 1), said
    assert "Traceback" not in said and len(said.splitlines()) == 1, said
    assert f"{root}: not a folder of exercises" in said


@pytest.mark.parametrize(
    ("flags", "env", "said"),
    [
        (("--port", "99999"), {}, "--port: must be between 1 and 65535 (got 99999)"),
        (("--port", "-1"), {}, "--port: must be between 1 and 65535 (got -1)"),
        (("--host", "local host"), {}, "--host: must not contain whitespace (got 'local host')"),
        ((), {"JUDGE_PORT": "70000"}, "JUDGE_PORT: Input should be less than or equal to 65535"),
    ],
    ids=["port too high", "port negative", "host", "from the environment"],
)
def test_serve_names_a_refused_setting_as_the_user_gave_it(
    flags: tuple[str, ...], env: dict[str, str], said: str
) -> None:
    done = judge("serve", *flags, env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"judge: cannot start: invalid settings: {said}"), done.stderr
    assert done.stderr.count("\n") == 1
    if flags:
        assert "JUDGE_" not in done.stderr


def test_exercises_check_of_a_folder_without_exercises_fails(tmp_path: Path) -> None:
    done = judge("--exercises", str(tmp_path), "exercises", "check")
    assert done.returncode == 1
    assert (
        done.stdout.strip()
        == f"FAIL  no exercise folders in {tmp_path} (none there holds an exercise.toml)"
    )


@pytest.mark.parametrize(
    "command",
    [
        ("grade", "speculative-decoding-verify", str(VERIFY / "solution.py")),
        ("run", "speculative-decoding-verify", str(VERIFY / "solution.py"), "--input", "{}"),
        ("doctor",),
    ],
)
def test_a_folder_without_exercises_is_said_so(tmp_path: Path, command: tuple[str, ...]) -> None:
    (tmp_path / "notes").mkdir()  # a folder, but no exercise.toml in it
    done = judge("--exercises", str(tmp_path), *command)
    assert done.returncode == (1 if command == ("doctor",) else 2) and done.stdout == ""
    assert done.stderr == f"judge: no exercise folders in {tmp_path}\n"


@pytest.mark.parametrize("command", ["grade", "run"])
def test_a_broken_exercises_folder_could_not_grade_exit_2(tmp_path: Path, command: str) -> None:
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "exercise.toml").write_text("title = [\n")
    given = ("--input", VERIFY_INPUT) if command == "run" else ()
    done = judge(
        "--exercises", str(tmp_path), command, "broken", str(VERIFY / "solution.py"), *given
    )
    assert done.returncode == 2 and done.stdout == ""
    assert (
        done.stderr.startswith("judge: invalid exercise folder: ") and done.stderr.count("\n") == 1
    )


def test_exercises_check_reports_each_broken_folder_and_still_checks_the_rest(
    tmp_path: Path,
) -> None:
    broken = tmp_path / "aaa-broken"
    broken.mkdir()
    (broken / "exercise.toml").write_text("title = [\n")
    verify = standalone_copy(VERIFY, tmp_path, "__pycache__")
    toml = verify / "exercise.toml"
    # Related to the broken one: that folder is reported once, not again as a missing relation.
    related = re.sub(r"^related = .*$", 'related = ["aaa-broken"]', toml.read_text(), flags=re.M)
    toml.write_text(related)
    done = judge("--exercises", str(tmp_path), "exercises", "check")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if not line.startswith("note ")]
    assert lines == [
        f"FAIL  aaa-broken  ({broken})",
        f"      {broken / 'exercise.toml'}: not valid TOML (Invalid value (at end of document))",
        f"ok    speculative-decoding-verify  ({verify})",
        "1 of 2 exercises valid",
    ]


def test_exercises_check_passes_on_the_built_in_exercises() -> None:
    done = judge("exercises", "check")
    assert done.returncode == 0, done.stdout + done.stderr


def test_doctor_shows_every_layer_and_grades_each_reference(tmp_path: Path) -> None:
    database = tmp_path / "history.sqlite3"
    done = judge("doctor", env={"JUDGE_DATABASE_URL": f"sqlite:///{database}"})
    assert done.returncode == 0, done.stdout + done.stderr
    for layer in ("rlimits", "clean_env", "no_new_privs", "landlock", "seccomp", "policy"):
        assert any(line.split()[:2] == ["on", layer] for line in done.stdout.splitlines()), layer
    assert "speculative-decoding-verify: accepted" in done.stdout
    assert "speculative-decoding-resample: accepted" in done.stdout
    assert f"on  sqlite:///{database}: {database} will be created on start" in done.stdout


@pytest.mark.parametrize(
    ("workers", "said"), [("2", "2 worker(s) (this check used 1)"), ("1", "1 worker(s)")]
)
def test_doctor_shows_the_workers_the_judge_would_serve_with(workers: str, said: str) -> None:
    done = judge("doctor", env={"JUDGE_WORKERS": workers})
    assert done.returncode == 0, done.stdout + done.stderr
    facts = done.stdout.splitlines()[1]  # python ..., kernel ..., Landlock ABI ..., workers
    assert facts.endswith(f", {said}"), facts


WRONG_VERIFY = ROOT / "tests" / "solutions" / "speculative-decoding-verify"
VERIFY_INPUT = (
    '{"draft_probs": [0.5, 0.5], "target_probs": [0.25, 0.5], "draft_tokens": [3, 4], '
    '"target_dist_next": null}'
)


def test_grade_submit_runs_extra_and_random_cases_and_names_the_catching_case() -> None:
    wrong = WRONG_VERIFY / "wrong_multiply_no_zero_guard.py"
    run = judge("grade", "speculative-decoding-verify", str(wrong))
    assert run.returncode == 0, run.stdout  # the six examples do not catch it
    done = judge("grade", "speculative-decoding-verify", str(wrong), "--submit", "--seed", "7")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert " and of seed 7 replayed, " in lines[0]
    assert sum("] random: replay of seed 7: random " in line for line in lines) == 20
    assert "[FAIL] extra: draft = target = 0: certain acceptance, never 0 < 0" in done.stdout
    assert sum("] random: random " in line for line in lines) == 20


def test_run_with_input_shows_the_reference_beside_the_learner() -> None:
    done = judge(
        "run", "speculative-decoding-verify", str(VERIFY / "solution.py"),
        "--input", VERIFY_INPUT, "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["mode"] == "custom" and report["verdict"] == "accepted"
    (test,) = report["tests"]
    # seed 42's first draw 0.3745 < 0.5 keeps token 3; 0.9507 < 1.0 keeps token 4
    assert (test["group"], test["expected"], test["actual"]) == ("custom", [[3, 4], 2], [[3, 4], 2])


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ('{"draft_probs": [0.5', "--input is not valid JSON"),
        ('{"draft_probs": [0.5]}', "input.target_probs: missing"),
        (VERIFY_INPUT.replace("[3, 4]", '"three"'), "input.draft_tokens: expected a list"),
    ],
)
def test_run_with_a_bad_input_prints_one_line_and_exits_2(given: str, words: str) -> None:
    done = judge(
        "run", "speculative-decoding-verify", str(VERIFY / "solution.py"), "--input", given
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr, done.stderr


RESAMPLE_SOLUTION = str(ROOT / "exercises" / "speculative-decoding-resample" / "solution.py")
RESAMPLE_INPUT = (
    '{"p": P, "q": [[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]], "draft": [0, 2], '
    '"rng": {"scripted": [0.5, 0.8, 0.1]}}'
)


@pytest.mark.parametrize(
    ("given", "words"),
    [
        (VERIFY_INPUT.replace("[3, 4]", "[3, 1" + "0" * 400 + "]"), "integers must lie within"),
        (VERIFY_INPUT.replace("[3, 4]", "[3, 1" + "0" * 5000 + "]"), "a number too long to read"),
        (VERIFY_INPUT.replace("null", "[" * 3000 + "]" * 3000), "nested too deeply"),
        (VERIFY_INPUT.replace("null", '"\\ud800"'), "input.target_dist_next: the text holds"),
        (VERIFY_INPUT.replace("null", '{"\\udfff": 1}'), "lone surrogate"),
    ],
    ids=["400 digits", "5000 digits", "3000 deep", "lone surrogate", "surrogate key"],
)
def test_run_with_a_hostile_input_prints_one_line_and_exits_2(given: str, words: str) -> None:
    done = judge(
        "run", "speculative-decoding-verify", str(VERIFY / "solution.py"), "--input", given,
        "--json",
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr, done.stderr


def test_run_with_huge_probabilities_refuses_the_row_in_one_line() -> None:
    given = RESAMPLE_INPUT.replace("P", "[[1e308, 1e308, 0], [0.5, 0.5, 0], [0.5, 0.5, 0]]")
    done = judge("run", "speculative-decoding-resample", RESAMPLE_SOLUTION, "--input", given)
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
    assert done.stderr.strip() == (
        "judge: bad input: input.p: row 0 is not a probability distribution: "
        "p[0][0] = 1e+308 is above 1"
    )


@pytest.mark.parametrize(
    ("seed", "words"),
    [
        ("-1", "argument --seed: must be an integer from 0 to 2**63 - 1, got -1"),
        (str(2**63), "argument --seed: must be an integer from 0 to 2**63 - 1"),
        ("seven", "argument --seed: expected an integer, got 'seven'"),
    ],
)
def test_a_seed_out_of_range_is_refused_without_a_traceback(seed: str, words: str) -> None:
    done = judge("grade", "speculative-decoding-verify", str(VERIFY / "solution.py"), "--submit",
                 "--seed", seed)  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert words in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_seed_without_submit_is_refused() -> None:
    done = judge("grade", "speculative-decoding-verify", str(VERIFY / "solution.py"), "--seed", "3")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == (
        "judge: --seed replays Submit's random cases: use it with --submit"
    )


def test_the_largest_seed_is_graded() -> None:
    done = judge("grade", "speculative-decoding-verify", str(VERIFY / "solution.py"), "--submit",
                 "--seed", str(2**63 - 1), "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verdict"] == "accepted"
