"""The `judge` command: serve, grade, run, exercises new|check|regen, doctor; bench from a
checkout."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from app.catalog import EXERCISES_DIR, Catalog, Exercise, ExerciseError
from app.schemas import SEED_RANGE, Report, Status

if TYPE_CHECKING:
    from app.grading import Judge


def _load_catalog(root: Path, *, status: int) -> Catalog:
    """The exercises under ``root``; else one stderr line, and exit ``status``."""
    try:
        catalog = Catalog.load(root)
    except ExerciseError as exc:
        problem = f"invalid exercise folder: {exc}"
    else:
        if len(catalog):
            return catalog
        problem = f"no exercise folders in {root}"  # else "unknown exercise 'x' (known: )"
    print(f"judge: {problem}", file=sys.stderr)
    raise SystemExit(status)


def print_report(report: Report, stream=sys.stdout) -> None:  # type: ignore[no-untyped-def]
    """A human-readable report: summary line, then one line per case with its message."""
    marks = {Status.passed: "PASS", Status.failed: "FAIL", Status.error: "ERROR"}
    seed = f", random cases of seed {report.seed}" if report.seed is not None else ""
    if report.replayed_seed is not None:
        seed += f" and of seed {report.replayed_seed} replayed"
    print(
        f"{report.verdict.value}: {report.passed}/{report.total} tests passed "
        f"({report.mode.value}{seed}, {report.duration_ms:.1f} ms)",
        file=stream,
    )
    if report.message:
        print(f"  {report.message}", file=stream)
    for test in report.tests:
        group = "" if test.group.value == "example" else f"{test.group.value}: "
        print(f"  [{marks[test.status]}] {group}{test.name}", file=stream)
        if test.status != Status.passed and test.message:
            for line in test.message.splitlines():
                print(f"      {line}", file=stream)
            if test.status == Status.error and test.actual is None:
                continue  # nothing came back: the message says why, "actual: None" would not
            # Python's spelling (None, True, [1, 2]), as the learner wrote and the page shows.
            print(f"      expected: {test.expected!r}", file=stream)
            print(f"      actual:   {test.actual!r}", file=stream)


class SubmissionFileError(ValueError):
    """The file given to ``judge grade`` cannot be a submission; the message says why."""


# What a path is when it is no regular file. Such a path is refused before it is read: a named
# pipe without a writer blocks the read forever, a device may never end or may wait for input.
_NOT_REGULAR = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_a_source_file(name: str, mode: int) -> SubmissionFileError | None:
    """Why a path of this mode cannot be read as a submission (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return SubmissionFileError(f"{name} is a directory, not a source file")
    kind = next((what for test, what in _NOT_REGULAR if test(mode)), "not a regular file")
    return SubmissionFileError(f"{name} is {kind}, not a regular file")


def read_submission(name: str, cap: int) -> str:
    """The file's text, if it is a regular file of readable UTF-8 of at most ``cap`` bytes."""
    from app.errors import code_over_cap

    if not name:  # else it names the current directory: " is a directory, not a source file"
        raise SubmissionFileError("no source file given (the file name is empty)")
    try:
        refused = _not_a_source_file(name, os.stat(name).st_mode)
        if refused is not None:
            raise refused
        # O_NONBLOCK: should the path have become a named pipe since the stat, the open does
        # not wait for a writer (and the fstat below refuses it); a regular file ignores it.
        with open(os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb") as source:
            status = os.fstat(source.fileno())
            refused = _not_a_source_file(name, status.st_mode)
            if refused is not None:
                raise refused
            size = status.st_size
            # Never more than the cap and one byte: a file that grows, or one whose size says
            # nothing (as under /proc), is not read whole.
            data = source.read(cap + 1)
    except OSError as exc:
        raise SubmissionFileError(f"cannot read {name}: {exc.strerror or exc}") from None
    if len(data) > cap:
        if size > cap:  # its size is known
            raise SubmissionFileError(code_over_cap(size, cap, name))
        raise SubmissionFileError(f"{name} is over the size limit of {cap} bytes")
    # A byte-order mark some Windows editors put first is dropped, as Python itself does when
    # it runs the file.
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SubmissionFileError(
            f"{name} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads it


def _exercise_and_code(args: argparse.Namespace) -> tuple[Exercise, str] | None:
    """The named exercise and the file's code, or None after one stderr line."""
    # 2 as for any other reason the command could not grade: 1 would say "not accepted".
    catalog = _load_catalog(args.exercises, status=2)
    exercise = catalog.get(args.exercise_id)
    if exercise is None:
        known = ", ".join(e.id for e in catalog)
        print(f"judge: unknown exercise {args.exercise_id!r} (known: {known})", file=sys.stderr)
        return None
    try:
        code = read_submission(args.file, exercise.limits.code_bytes)
    except SubmissionFileError as exc:
        print(f"judge: {exc}", file=sys.stderr)
        return None
    return exercise, code


def cmd_grade(args: argparse.Namespace) -> int:
    from app.schemas import Mode

    if args.seed is not None and not args.submit:
        print("judge: --seed replays Submit's random cases: use it with --submit", file=sys.stderr)
        return 2
    found = _exercise_and_code(args)
    if found is None:
        return 2
    exercise, code = found
    mode = Mode.submit if args.submit else Mode.run
    # Submit's extra and random cases and the reference beside the learner: two children.
    return _graded(
        lambda judge: judge.grade(exercise, code, mode, args.seed),
        workers=2 if args.submit else 1,
        what=f"grade {args.file}",
        as_json=args.json,
    )


def cmd_run(args: argparse.Namespace) -> int:
    from app.grading import BadInput, validate

    found = _exercise_and_code(args)
    if found is None:
        return 2
    exercise, code = found
    try:
        raw = json.loads(args.input)
        validate(exercise, raw)  # before a child is started
    except json.JSONDecodeError as exc:
        print(f"judge: --input is not valid JSON: {exc}", file=sys.stderr)
        return 2
    except RecursionError:
        print("judge: --input is nested too deeply to read", file=sys.stderr)
        return 2
    except ValueError:  # Python refuses to read an integer of more than 4300 digits
        print("judge: --input holds a number too long to read", file=sys.stderr)
        return 2
    except BadInput as exc:
        print(f"judge: bad input: {exc.detail}", file=sys.stderr)
        return 2
    return _graded(
        lambda judge: judge.run_custom(exercise, code, raw),
        workers=2,
        what=f"run {args.file}",
        as_json=args.json,
    )


def _graded(grade: Callable[[Judge], Report], *, workers: int, what: str, as_json: bool) -> int:
    """Start a judge, grade with it, print the report: exit 0 if it passed, 1 if not, 2 when
    the sandbox could not grade at all (down or busy: one line, no traceback)."""
    from app.errors import JudgeError
    from app.grading import BadInput, Judge

    judge = Judge.create(workers=workers, queue_size=2)
    try:
        report = grade(judge)
    except BadInput as exc:  # found only once the reference ran on it
        print(f"judge: bad input: {exc.detail}", file=sys.stderr)
        return 2
    except JudgeError as exc:
        print(f"judge: could not {what}: {exc.detail}", file=sys.stderr)
        return 2
    finally:
        judge.close()
    if as_json:
        print(report.model_dump_json(indent=2))
    else:
        print_report(report)
    return 0 if report.status == Status.passed else 1


def cmd_exercises(args: argparse.Namespace) -> int:
    from app.grading import check_all, regenerate_all

    if args.action == "new":
        return _new_exercise(args.exercises, args.ids)
    if args.action == "check":
        return check_all(args.exercises, args.ids)
    return regenerate_all(args.exercises, args.ids)


def _new_exercise(root: Path, ids: list[str]) -> int:
    from app.exercise_scaffold import scaffold

    if len(ids) != 1:
        print("judge: `judge exercises new ID` makes one folder: give exactly one id")
        return 2
    try:
        folder = scaffold(root, ids[0])
    except ValueError as exc:
        print(f"judge: {exc}")
        return 1
    print(f"created {folder}")
    print(f"next: edit it, then `judge --exercises {root} exercises regen {ids[0]}` and `check`")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from app.doctor import doctor

    return doctor(_load_catalog(args.exercises, status=1), as_json=args.json)  # 1: not OK


def _tooling() -> None:
    """Make the top-level ``bench`` package importable: it lives in a source checkout, beside
    ``app/``, and is not part of the installed product."""
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / "bench" / "__init__.py").is_file() and str(checkout) not in sys.path:
        sys.path.insert(0, str(checkout))
    if importlib.util.find_spec("bench") is None:
        raise SystemExit(
            "judge: the benchmarks come with a source checkout of the judge, not with the "
            "installed package (clone the repository and run `make bench`)"
        )


def cmd_bench(args: argparse.Namespace) -> int:
    _tooling()
    from bench.sandbox_step import run_bench

    return run_bench(
        args.exercises,
        n=args.n,
        concurrency=args.concurrency,
        as_json=args.json,
        fresh_n=args.fresh_n,
        same_source=args.same_source,
    )


def cmd_serve(args: argparse.Namespace) -> int:
    from app.server import serve

    serve(
        args.host,
        args.port,
        allow_unconfined=args.allow_unconfined,
        exercises=args.exercises,
        reload_exercises=args.reload,
    )
    return 0


def _seed(text: str) -> int:
    """A --seed: an integer in the range the HTTP API accepts."""
    from app.schemas import MAX_SEED

    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not 0 <= seed <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be {SEED_RANGE}, got {text}")
    return seed


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="judge", description=__doc__)
    parser.add_argument(
        "--exercises",
        type=Path,
        default=Path(os.environ.get("JUDGE_EXERCISES_DIR", EXERCISES_DIR)),
        help="folder of exercise folders (default: $JUDGE_EXERCISES_DIR or the built-in ones)",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="start the web judge")
    serve.add_argument("--host", help="interface to listen on (default: $JUDGE_HOST or 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default: $JUDGE_PORT or 8000)")
    serve.add_argument(
        "--allow-unconfined",
        action="store_true",
        help="start even when a mandatory sandbox layer is unavailable (development only)",
    )
    serve.add_argument(
        "--exercises",
        type=Path,
        default=argparse.SUPPRESS,  # else the global --exercises (given before `serve`) stands
        help="folder of exercise folders to serve",
    )
    serve.add_argument(
        "--reload",
        action="store_true",
        help="development: reload the exercises when a folder changes (a broken one is "
        "reported and the last good catalog kept)",
    )
    serve.set_defaults(func=cmd_serve)

    grade = commands.add_parser("grade", help="grade a file against an exercise")
    grade.add_argument("exercise_id")
    grade.add_argument("file")
    grade.add_argument("--json", action="store_true", help="print the report as JSON")
    grade.add_argument(
        "--submit", action="store_true", help="grade as Submit: examples, extra, random cases"
    )
    grade.add_argument(
        "--seed",
        type=_seed,
        default=None,
        help=f"with --submit: run the random cases of a seed again ({SEED_RANGE}), beside "
        "fresh ones, as the page's replay does",
    )
    grade.set_defaults(func=cmd_grade)

    run = commands.add_parser("run", help="run a file and the reference on an input of yours")
    run.add_argument("exercise_id")
    run.add_argument("file")
    run.add_argument(
        "--input", required=True, help="JSON object, one value per parameter, e.g. '{\"x\": [1]}'"
    )
    run.add_argument("--json", action="store_true", help="print the report as JSON")
    run.set_defaults(func=cmd_run)

    exercises = commands.add_parser(
        "exercises",
        help="scaffold, validate or regenerate exercise folders",
        description="new ID: write a folder ID/ to edit from (`regen ID` then passes `check`); "
        "check [ID...]: every rule of exercises/README.md, through the real sandbox; "
        "regen [ID...]: rewrite the cases' expected outputs from solution.py",
    )
    actions = ("check", "regen", "new")
    # The metavar is what usage shows anyway; argparse's "required" error would say "action".
    exercises.add_argument("action", choices=actions, metavar="{" + ",".join(actions) + "}")
    exercises.add_argument(
        "ids",
        nargs="*",
        default=[],  # else argparse counts a `*` positional as required and names it missing too
        metavar="ID",
        help="the exercises (new: exactly one; check, regen: every one when none)",
    )
    exercises.add_argument(
        "--exercises",
        type=Path,
        default=argparse.SUPPRESS,  # else the global --exercises (given before `exercises`)
        help="folder of exercise folders to work in (default: as for `judge --exercises`)",
    )
    exercises.set_defaults(func=cmd_exercises)

    doctor = commands.add_parser("doctor", help="show the confinement layers and limits in force")
    doctor.add_argument("--json", action="store_true")
    doctor.set_defaults(func=cmd_doctor)

    bench = commands.add_parser("bench", help="warm pool versus a fresh interpreter per grade")
    bench.add_argument("--n", type=int, default=400, help="grades through the warm pool")
    bench.add_argument("--concurrency", type=int, default=2)
    bench.add_argument(
        "--fresh-n", type=int, default=None, help="grades through fresh interpreters (default n/8)"
    )
    bench.add_argument(
        "--same-source",
        action="store_true",
        help="send one identical source again and again (labelled; default: each its own)",
    )
    bench.add_argument("--json", action="store_true")
    bench.set_defaults(func=cmd_bench)

    load = commands.add_parser(
        "loadtest",
        help="HTTP load: the real server vs a fresh interpreter per grade (source checkout only)",
        add_help=False,
    )
    load.add_argument("arguments", nargs=argparse.REMAINDER)
    load.set_defaults(func=cmd_loadtest)
    return parser


def cmd_loadtest(args: argparse.Namespace) -> int:
    _tooling()
    from bench import loadtest

    return loadtest.main(args.arguments)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, left = parser.parse_known_args(argv)
    if left and args.command == "exercises" and not any(word.startswith("-") for word in left):
        # `judge exercises check --exercises DIR ID`: argparse gives the ids no second chance
        # after an option that follows the action; they are ids all the same.
        args.ids = [*args.ids, *left]
    elif left:
        parser.error(f"unrecognized arguments: {' '.join(left)}")
    try:
        status = int(args.func(args) or 0)
        sys.stdout.flush()  # here, not at exit, so that a closed pipe is caught below
        return status
    except BrokenPipeError:
        # The reader went away (`judge grade ... | head`): stop quietly, and point stdout at
        # /dev/null so that flushing it at exit does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
