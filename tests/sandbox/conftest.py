"""Fixtures of the hostile test modules (``test_hostile_*.py``, helpers in ``hostile.py``).

One warm judge serves every hostile module: it is started once for the package, with a canary in
the environment, and ``test_hostile_zygote.py`` (collected last, and kept last by
``pytest_collection_modifyitems`` below) checks that it survived them all, then closes it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.grading.judge import Judge
from tests.sandbox.hostile import SECRET, canary_in_environment, children, settled_children

# Closes the shared hostile judge: must run after every other test that uses it.
CLOSING_MODULE = Path(__file__).with_name("test_hostile_zygote.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the closing module right after the module of the last other hostile-judge test.

    pytest collects it last among the hostile modules anyway (a no-op then); this keeps it last
    whatever order the files are given in on the command line.
    """
    closing = [item for item in items if item.path == CLOSING_MODULE]
    if not closing:
        return
    rest = [item for item in items if item.path != CLOSING_MODULE]
    users = [
        index
        for index, item in enumerate(rest)
        if "hostile_judge" in getattr(item, "fixturenames", ())
    ]
    if not users:
        return
    after = users[-1] + 1
    while after < len(rest) and rest[after].path == rest[users[-1]].path:
        after += 1  # the rest of that module
    items[:] = rest[:after] + closing + rest[after:]


@pytest.fixture(scope="module")
def open_dir() -> Iterator[Path]:
    """A directory anyone may read and write, holding a world-readable secret file.

    It lives directly under /tmp so that the unprivileged uid could reach it: whatever keeps
    learner code out of it is the sandbox, not a 0700 parent directory.
    """
    path = Path(tempfile.mkdtemp(prefix="judge-hostile-", dir="/tmp"))
    path.chmod(0o777)
    secret = path / "secret.txt"
    secret.write_text(f"{SECRET}\n1.0 2.0\n")
    secret.chmod(0o644)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="package")
def shared_hostile_judge() -> Iterator[Judge]:
    """One warm judge for all the hostile modules, started with a canary in the environment."""
    with canary_in_environment():
        judge = Judge.create(workers=2)
    try:
        yield judge
    finally:
        judge.close()


@pytest.fixture(scope="module")
def canary_environment() -> Iterator[None]:
    """The canary stays in the test process's environment while a hostile module runs."""
    with canary_in_environment():
        yield


@pytest.fixture
def hostile_judge(shared_hostile_judge: Judge, canary_environment: None) -> Judge:
    """The shared hostile judge, the canary in the environment."""
    return shared_hostile_judge


@pytest.fixture(autouse=True)
def nothing_survives(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each grading test: the zygote holds at most its idle spares, none of them busy."""
    yield
    if "hostile_judge" not in request.fixturenames:
        return
    judge: Judge = request.getfixturevalue("shared_hostile_judge")
    status = judge.pool.status()
    if not status["alive"]:
        return  # the closing test checks that case itself
    zygote = status["zygote_pid"]
    # Spares: confined, waiting for a job, one per worker at most. A child that outlived its
    # verdict would be one more, and one still running learner code would be burning CPU.
    table, kids = settled_children(zygote, judge.pool.workers)
    assert len(kids) <= judge.pool.workers, f"zygote children after the verdict: {kids}"
    ticks = os.sysconf("SC_CLK_TCK")
    for kid in kids:
        assert children(kid, table) == [], f"child {kid} of the zygote has children"
        assert table[kid][2] / ticks < 0.5, f"child {kid} of the zygote is busy"
