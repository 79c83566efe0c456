"""Test doubles for the in-process HTTP contract tests ONLY (the real-server tests use the real
Judge), plus a writer of small, valid exercise folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.catalog import Exercise
from app.errors import Saturated
from app.schemas import CaseResult, Report, Status, Verdict

# Markers planted in the private parts of the fake exercises: no response may ever contain them.
SECRET_SOLUTION = "SECRET-SOLUTION-MARKER"
SECRET_EXPECTED = "SECRET-EXPECTED-MARKER"
ALL_LAYERS = {
    "rlimits": True,
    "uid_drop": True,
    "clean_env": True,
    "seccomp": True,
    "landlock": True,
    "policy": True,
}


def write_exercise(
    root: Path, exercise_id: str, *, hints: int = 3, related: tuple[str, ...] = ()
) -> Path:
    """A valid exercise folder (six cases) whose solution and expected outputs carry markers."""
    folder = root / exercise_id
    folder.mkdir(parents=True)
    hint_lines = ", ".join(f'"Hint number {i} for {exercise_id}."' for i in range(1, hints + 1))
    related_list = ", ".join(f'"{r}"' for r in related)
    (folder / "exercise.toml").write_text(
        f'title = "Title of {exercise_id}"\n'
        'section = "Basics"\n'
        'difficulty = "easy"\n'
        f'summary = "Summary of {exercise_id}."\n'
        'entry_point = "add"\n'
        'returns = "int"\n'
        f"related = [{related_list}]\n"
        f"hints = [{hint_lines}]\n\n"
        '[parameters]\na = "value"\nb = "value"\n',
        encoding="utf-8",
    )
    (folder / "statement.md").write_text(f"# {exercise_id}\n\nAdd $a$ and $b$.\n")
    (folder / "starter.py").write_text("def add(a, b):\n    return 0\n")
    (folder / "solution.py").write_text(
        f"def add(a, b):\n    # {SECRET_SOLUTION}\n    return a + b\n"
    )
    cases = [
        {
            "name": f"case {i}",
            "input": {"a": i, "b": 2 * i},
            "expected": {"value": 3 * i, "note": SECRET_EXPECTED},
        }
        for i in range(6)
    ]
    (folder / "cases.json").write_text(json.dumps(cases), encoding="utf-8")
    return folder


class FakeJudge:
    """Returns a fixed passing report; records what it was asked to grade."""

    def __init__(self, layers: dict[str, bool] | None = None) -> None:
        self.layers = dict(ALL_LAYERS if layers is None else layers)
        self.graded: list[tuple[str, str]] = []
        self.seeds: list[int | None] = []
        self.closed = False

    async def grade_async(
        self, exercise: Exercise, code: str, mode: Any = "run", seed: int | None = None
    ) -> Report:
        self.graded.append((exercise.id, code))
        self.seeds.append(seed)
        tests = [
            CaseResult(
                name=case.name,
                status=Status.passed,
                input=case.input,
                expected=3,
                actual=3,
                duration_ms=0.1,
            )
            for case in exercise.cases
        ]
        return Report(
            status=Status.passed,
            verdict=Verdict.accepted,
            passed=len(tests),
            total=len(tests),
            duration_ms=1.5,
            tests=tests,
        )

    def health(self) -> dict[str, Any]:
        return {
            "layers": dict(self.layers),
            "pool": {  # the shape sandbox.Pool.status() has (schemas.PoolHealth holds it to it)
                "alive": True,
                "workers": 2,
                "capacity": 14,
                "lanes": {
                    "fast": {"in_use": 0, "capacity": 2},
                    "slow": {"in_use": 0, "capacity": 8, "memory_mb_bound": 2048},
                    "queue": {"in_use": 0, "capacity": 4},
                },
                "in_flight": 0,
                "completed": 0,
                "restarts": 0,
                "zygote_pid": 4242,
            },
        }

    def close(self) -> None:
        self.closed = True


class SaturatedJudge(FakeJudge):
    """A judge whose queue is always full."""

    async def grade_async(self, exercise: Exercise, code: str, *args: Any) -> Report:
        raise Saturated(retry_after=2)


class BrokenJudge(FakeJudge):
    """A judge with a bug: exercises the last-resort 500 handler."""

    async def grade_async(self, exercise: Exercise, code: str, *args: Any) -> Report:
        raise RuntimeError("boom: a bug in the judge")
