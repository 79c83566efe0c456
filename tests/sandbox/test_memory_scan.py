"""No learner's source outlives their grade in the zygote or in a spare child.

Twelve learners each send their (correct) code twice, as learners do, through a real pool; then,
as root, the memory of the zygote and of every spare child (where the next learners' code runs)
is read through /proc/PID/mem and searched for each learner's marker. A policy escape in a later
child would find whatever is there: nothing of theirs may be.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Iterator

import pytest

from app.catalog import Catalog
from app.grading.judge import Judge
from app.grading.reports import build_report
from sandbox.rehearsal import REHEARSAL_SOURCE
from tests.procfs import memory_matches
from tests.sandbox.hostile import children, process_table

LEARNERS = 12
WORKERS = 2
EXERCISES = ("speculative-decoding-verify", "speculative-decoding-resample")
SETTLE_S = 20.0

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="reading another uid's /proc/PID/mem needs root (as in CI)"
)


@pytest.fixture(scope="module")
def scan_judge() -> Iterator[Judge]:
    """A pool of its own: no other test's jobs ran through it."""
    judge = Judge.create(workers=WORKERS, queue_size=2 * LEARNERS)
    yield judge
    judge.close()


def learner_source(catalog: Catalog, exercise_id: str, marker: str) -> str:
    """The reference solution as one learner's own file: a comment and a constant name them."""
    exercise = catalog.get(exercise_id)
    assert exercise is not None
    return f"# {marker}: my solution\nAUTHOR = {marker!r}\n{exercise.solution_code}"


def settled_spares(zygote: int) -> list[int]:
    """The zygote's children once one spare per worker waits, asleep, for its job."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        table = process_table()
        kids = children(zygote, table)
        if len(kids) == WORKERS and all(table[kid][1] == "S" for kid in kids):
            time.sleep(0.2)  # still the same ones, still waiting: the rehearsal is over
            again = process_table()
            if children(zygote, again) == kids and all(again[k][1] == "S" for k in kids):
                return kids
        if time.monotonic() > deadline:
            pytest.fail(f"the zygote's spares did not settle: {kids}")
        time.sleep(0.05)


def test_no_learner_source_in_the_zygote_or_the_spares(scan_judge: Judge, catalog: Catalog) -> None:
    run = secrets.token_hex(6)
    prefix = f"memscan-{run}-".encode()
    learners = [(EXERCISES[i % len(EXERCISES)], f"memscan-{run}-{i:02d}") for i in range(LEARNERS)]
    for _attempt in range(2):  # all twelve in flight at once, as a class sends them
        pending = []
        for exercise_id, marker in learners:
            exercise = catalog.get(exercise_id)
            assert exercise is not None
            source = learner_source(catalog, exercise_id, marker)
            pending.append((marker, exercise, scan_judge.submit(exercise, source)))
        for marker, exercise, future in pending:
            report = build_report(exercise, future.result(timeout=60), 0.0)
            assert report.verdict.value == "accepted", (marker, report.message)

    zygote = scan_judge.pool.status()["zygote_pid"]
    spares = settled_spares(zygote)
    rehearsal = REHEARSAL_SOURCE.encode()
    found: dict[int, list[bytes]] = {}
    for pid in (zygote, *spares):
        # The scan must see where Python keeps its strings: the harness's own rehearsal source
        # (trusted, the same for all) is there in every one of these processes.
        assert memory_matches(pid, rehearsal), f"the scan of pid {pid} read nothing useful"
        hits = memory_matches(pid, prefix, tail=3)
        if hits:
            found[pid] = sorted(set(hits))
    assert not found, f"learners' markers left in memory (zygote {zygote}): {found}"
