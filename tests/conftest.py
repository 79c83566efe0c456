"""Shared fixtures: the real exercise catalog and one real, warm judge for the session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.catalog import Catalog
from app.grading.judge import Judge


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return Catalog.load()


@pytest.fixture(scope="session")
def judge() -> Iterator[Judge]:
    """A real pool (zygote + confined children), shared: starting one costs ~0.3 s."""
    active = Judge.create(workers=2, queue_size=16)
    yield active
    active.close()
