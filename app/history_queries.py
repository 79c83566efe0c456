"""The reads of the submission history: a learner's own rows, and the instructor's statistics.

Pure SQL over ``app.databases``' table, the same text on SQLite and PostgreSQL (only the
placeholder and the day's arithmetic differ), each query an index range of
``submissions_by_learner`` or ``submissions_by_exercise_learner``. Blocking: the routes call
these from a thread. A learner is always named by the hash of their id; nothing here can
return a hash to a caller (the instructor's export turns it into a pseudonym).
"""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict
from collections.abc import Collection, Iterator
from datetime import UTC, datetime
from typing import Any, Protocol

from app.learners import pseudonym

DAY_S = 86_400
MAX_DAYS = 366  # the per-day series covers at most the last year of an exercise's history
CSV_PAGE = 1_000  # rows per read of the export: memory stays flat however long the history
RANDOM_CASES = "random cases"  # every random case under one name: each Submit draws new ones
SUMMARY_FIELDS = "id, exercise_id, mode, verdict, status, passed, total, created_at"


class Reader(Protocol):
    """What the queries need of ``app.history.History``."""

    @property
    def database(self) -> str: ...

    @property
    def placeholder(self) -> str: ...

    def read(self, sql: str, args: Any) -> tuple[list[str], list[tuple[Any, ...]]]: ...


def timestamp(created_at: float) -> str:
    """Seconds since the epoch as ISO 8601 in UTC, to the millisecond."""
    moment = datetime.fromtimestamp(created_at, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _summary(row: tuple[Any, ...]) -> dict[str, Any]:
    sid, exercise, mode, verdict, status, passed, total, created_at = row[:8]
    return {
        "id": sid,
        "exercise": exercise,
        "mode": mode,
        "verdict": verdict,
        "status": status,
        "passed": passed,
        "total": total,
        "created_at": timestamp(created_at),
    }


# ---- the learner's own ----


def progress(
    reader: Reader, learner: str, run_solves: Collection[str]
) -> dict[str, dict[str, Any]]:
    """Per exercise the learner tried: attempts, solved, and the best result.

    ``run_solves``: the exercises with no Submit cases, where an accepted Run is a solve.
    """
    p = reader.placeholder
    _, rows = reader.read(
        "SELECT exercise_id, mode, verdict, passed, total, COUNT(*) FROM submissions"
        f" WHERE learner_hash = {p} GROUP BY exercise_id, mode, verdict, passed, total",
        (learner,),
    )
    found: dict[str, dict[str, Any]] = {}
    for exercise, mode, verdict, passed, total, count in rows:
        entry = found.setdefault(
            exercise, {"attempts": 0, "solved": False, "best": {"passed": 0, "total": 0}}
        )
        entry["attempts"] += count
        accepted = verdict == "accepted"
        if accepted and (mode == "submit" or (mode == "run" and exercise in run_solves)):
            entry["solved"] = True
        best = entry["best"]
        if _better(passed, total, best["passed"], best["total"]):
            entry["best"] = {"passed": passed, "total": total}
    return found


def _better(passed: int, total: int, best_passed: int, best_total: int) -> bool:
    """A larger share of cases passed; at the same share, more cases (a Submit over a Run)."""
    if best_total == 0:
        return total > 0 or passed > best_passed
    if total == 0:
        return False
    mine, theirs = passed * best_total, best_passed * total
    return mine > theirs or (mine == theirs and total > best_total)


def submissions(
    reader: Reader, learner: str, exercise: str | None, limit: int
) -> list[dict[str, Any]]:
    """The learner's submissions, newest first, without their code."""
    p = reader.placeholder
    where, args = f"learner_hash = {p}", [learner]
    if exercise is not None:
        where, args = f"{where} AND exercise_id = {p}", [*args, exercise]
    _, rows = reader.read(
        f"SELECT {SUMMARY_FIELDS} FROM submissions WHERE {where}"
        f" ORDER BY created_at DESC, id DESC LIMIT {p}",
        (*args, limit),
    )
    return [_summary(row) for row in rows]


def submission(reader: Reader, learner: str, submission_id: int) -> dict[str, Any] | None:
    """One of the learner's submissions with its code; None if it is not theirs or not there
    (one query for both, so the two cannot be told apart)."""
    p = reader.placeholder
    _, rows = reader.read(
        f"SELECT {SUMMARY_FIELDS}, code FROM submissions WHERE id = {p} AND learner_hash = {p}",
        (submission_id, learner),
    )
    if not rows:
        return None
    found = _summary(rows[0])
    found["code"] = rows[0][8] if rows[0][8] is not None else ""
    return found


# ---- the instructor's ----


def exercise_statistics(
    reader: Reader, run_solves: Collection[str], exercise: str | None = None
) -> dict[str, dict[str, Any]]:
    """Per exercise: submissions, learners, learners who solved it, and the median number of
    grades up to and including each solver's first solve."""
    p = reader.placeholder
    only, args = ("", ()) if exercise is None else (f" AND exercise_id = {p}", (exercise,))
    _, totals = reader.read(
        "SELECT exercise_id, COUNT(*), COUNT(DISTINCT learner_hash) FROM submissions"
        f" WHERE 1 = 1{only} GROUP BY exercise_id",
        args,
    )
    solves = "mode = 'submit'"
    run_only = sorted(run_solves if exercise is None else set(run_solves) & {exercise})
    if run_only:
        marks = ", ".join(p for _ in run_only)
        solves = f"(mode = 'submit' OR (mode = 'run' AND exercise_id IN ({marks})))"
    _, attempts = reader.read(
        "WITH firsts AS (SELECT exercise_id, learner_hash, MIN(created_at) AS solved_at"
        " FROM submissions WHERE learner_hash IS NOT NULL AND verdict = 'accepted'"
        f" AND {solves}{only} GROUP BY exercise_id, learner_hash)"
        " SELECT f.exercise_id, COUNT(*) FROM firsts f JOIN submissions s"
        " ON s.exercise_id = f.exercise_id AND s.learner_hash = f.learner_hash"
        " AND s.created_at <= f.solved_at GROUP BY f.exercise_id, f.learner_hash",
        (*run_only, *args),
    )
    to_solve: dict[str, list[int]] = defaultdict(list)
    for exercise_id, count in attempts:
        to_solve[exercise_id].append(int(count))
    found = {}
    for exercise_id, count, learners in totals:
        solvers = to_solve.get(exercise_id, [])
        found[exercise_id] = {
            "learners": int(learners),
            "solved": len(solvers),
            "solve_rate": round(len(solvers) / learners, 4) if learners else 0.0,
            "median_attempts_to_solve": statistics.median(solvers) if solvers else None,
            "submissions": int(count),
        }
    return found


def empty_statistics() -> dict[str, Any]:
    return {
        "learners": 0,
        "solved": 0,
        "solve_rate": 0.0,
        "median_attempts_to_solve": None,
        "submissions": 0,
    }


def verdicts(reader: Reader, exercise: str) -> dict[str, int]:
    p = reader.placeholder
    _, rows = reader.read(
        f"SELECT verdict, COUNT(*) FROM submissions WHERE exercise_id = {p} GROUP BY verdict",
        (exercise,),
    )
    return {verdict: int(count) for verdict, count in sorted(rows, key=lambda r: -r[1])}


def per_day(reader: Reader, exercise: str) -> list[dict[str, Any]]:
    """Submissions per UTC day, every day from the first to the last (at most MAX_DAYS)."""
    p = reader.placeholder
    day = (
        f"CAST(created_at / {DAY_S} AS INTEGER)"  # SQLite's CAST truncates
        if reader.database == "sqlite"
        else f"CAST(FLOOR(created_at / {DAY_S}) AS BIGINT)"  # PostgreSQL's CAST rounds
    )
    _, rows = reader.read(
        f"SELECT {day} AS day, COUNT(*) FROM submissions WHERE exercise_id = {p}"
        " GROUP BY day ORDER BY day",
        (exercise,),
    )
    if not rows:
        return []
    counts = {int(d): int(c) for d, c in rows}
    last = max(counts)
    first = max(min(counts), last - MAX_DAYS + 1)
    return [
        {"day": timestamp(d * DAY_S)[:10], "submissions": counts.get(d, 0)}
        for d in range(first, last + 1)
    ]


def failed_cases(reader: Reader, exercise: str) -> list[dict[str, Any]]:
    """The cases the learners' latest attempts failed, by how many learners, most first."""
    p = reader.placeholder
    _, rows = reader.read(
        "SELECT s.learner_hash, s.failed FROM submissions s JOIN"
        " (SELECT learner_hash, MAX(created_at) AS last_at FROM submissions"
        f" WHERE exercise_id = {p} AND learner_hash IS NOT NULL GROUP BY learner_hash) l"
        " ON s.learner_hash = l.learner_hash AND s.created_at = l.last_at"
        f" WHERE s.exercise_id = {p}",
        (exercise, exercise),
    )
    latest: dict[str, str | None] = {}
    for learner, failed in rows:
        latest.setdefault(learner, failed)  # two rows at the same instant: either one
    failed_by: Counter[tuple[str, str]] = Counter()
    hints: dict[tuple[str, str], int | None] = {}
    for failed in latest.values():
        seen = set()
        for case in _cases(failed):
            key = (
                (RANDOM_CASES, "random")
                if case["group"] == "random"
                else (
                    case["name"],
                    case["group"],
                )
            )
            if key not in seen:
                seen.add(key)
                failed_by[key] += 1
                hints.setdefault(key, None if key[0] == RANDOM_CASES else case.get("hint"))
    ranked = sorted(failed_by.items(), key=lambda item: (-item[1], item[0]))
    return [
        {"name": name, "group": group, "failed_by": count, "hint": hints[(name, group)]}
        for (name, group), count in ranked
    ]


def _cases(failed: str | None) -> list[dict[str, Any]]:
    if not failed:
        return []
    try:
        cases = json.loads(failed)
    except ValueError:
        return []
    return [
        case
        for case in cases
        if isinstance(case, dict)
        and isinstance(case.get("name"), str)
        and isinstance(case.get("group"), str)
    ]


CSV_HEADER = (
    "created_at",
    "exercise",
    "learner",
    "mode",
    "verdict",
    "passed",
    "total",
    "duration_ms",
)


def export_rows(reader: Reader, exercise: str | None, include_code: bool) -> Iterator[list[object]]:
    """Every submission (of one exercise, or all) in the order stored, read a page at a time;
    the learner as a pseudonym, never the hash."""
    p = reader.placeholder
    code = ", code" if include_code else ""
    only, args = ("", ()) if exercise is None else (f" AND exercise_id = {p}", (exercise,))
    after = 0
    while True:
        _, rows = reader.read(
            "SELECT id, created_at, exercise_id, learner_hash, mode, verdict, passed, total,"
            f" duration_ms{code} FROM submissions WHERE id > {p}{only} ORDER BY id LIMIT {p}",
            (after, *args, CSV_PAGE),
        )
        for row in rows:
            sid, created_at, exercise_id, learner, mode, verdict, passed, total, ms = row[:9]
            line: list[object] = [
                timestamp(created_at),
                exercise_id,
                pseudonym(learner) if learner else "",
                mode or "",
                verdict,
                passed,
                total,
                round(ms, 3),
            ]
            if include_code:
                line.append(row[9] if row[9] is not None else "")
            yield line
            after = sid
        if len(rows) < CSV_PAGE:
            return
