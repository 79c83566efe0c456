"""Container tests: the Dockerfile's facts, its lint, and a replay of its install and start."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: installs requirements.lock into a fresh venv from the package index (~1 min)",
    )
