"""One submission as the history stores it: the few fields of its report the instructor's
statistics read, its code and the code's SHA-256, and the hash of the learner's id."""

from __future__ import annotations

import hashlib
import json
import secrets
import time

from app.databases import Row
from app.schemas import Report, Status

NOT_RUN_PREFIX = "not run:"  # app.grading's not-run rows: after the case that spent the budget


def failed_cases(report: Report) -> str | None:
    """The cases of ``report`` that ran and failed, as JSON, for the instructor's statistics.

    A report where nothing ran (a compile error, refused code) fails no case in particular, and
    a case left unrun because an earlier one spent the budget was not failed by the learner.
    """
    if report.status is Status.error:
        return None
    failed = [
        {"name": test.name, "group": test.group.value, "hint": test.hint}
        for test in report.tests
        if test.status is not Status.passed and not (test.message or "").startswith(NOT_RUN_PREFIX)
    ]
    return json.dumps(failed, separators=(",", ":"))


def row_values(exercise_id: str, report: Report, code: str, learner: str | None = None) -> Row:
    """One submission as the database stores it, in ``app.databases.COLUMNS`` order.

    Made when the submission is recorded, so the backlog holds a few fields and the code per
    row, not the whole report. ``learner`` is the learner id's hash (``app.learners``).
    """
    text = code.encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(text).hexdigest()
    return (
        exercise_id,
        time.time(),
        report.status.value,
        report.verdict.value,
        report.passed,
        report.total,
        report.duration_ms,
        digest,
        secrets.token_hex(16),
        learner,
        report.mode.value,
        # Stored as the learner can get it back; a lone surrogate (valid in JSON, not in UTF-8)
        # or a NUL (PostgreSQL's text cannot hold one) would make an insert fail, so each is
        # replaced by U+FFFD, in every database alike. Code with a NUL never compiles anyway.
        text.decode("utf-8", "replace").replace("\x00", "\ufffd"),
        failed_cases(report),
    )
