"""`judge serve` with something it cannot use: one clear line on stderr, a non-zero exit.

Each case is a real `judge serve` run with a broken setting or folder; none may print a
traceback or start serving.
"""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
JUDGE = shutil.which("judge", path=str(Path(sys.executable).parent)) or "judge"


def serve(tmp: Path, *where: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    environ["JUDGE_DATABASE_URL"] = f"sqlite:///{tmp / 'h.sqlite3'}"
    # The console script imports `app` from wherever the package was installed (an editable
    # install may point at another checkout): this checkout's code comes first.
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), environ.get("PYTHONPATH")]))
    environ.update(env)
    return subprocess.run(
        # The port is never listened on: each start is refused before.
        [JUDGE, "serve", *(where or ("--port", "1"))],
        cwd=tmp,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert lines[0].startswith("judge: cannot start: ")
    return lines[0]


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"JUDGE_WORKERS": "many"}, "JUDGE_WORKERS: Input should be a valid integer"),
        ({"JUDGE_QUEUE_SIZE": "0"}, "JUDGE_QUEUE_SIZE"),
        ({"JUDGE_DATABASE_URL": "mysql://judge@db/judge"}, "unsupported database URL"),
        ({"JUDGE_DATABASE_URL": "postgresql://u@h/d?bogus=1"}, "invalid database URL"),
        ({"JUDGE_DATABASE_URL": "postgresql://u@h:notaport/d"}, "invalid database URL"),
        ({"JUDGE_DATABASE_URL": "postgresql://u@h:99999/d"}, "Port out of range"),
    ],
)
def test_an_unusable_setting_is_one_line_and_exit_2(
    tmp_path: Path, env: dict[str, str], words: str
) -> None:
    done = serve(tmp_path, **env)
    assert done.returncode == 2
    assert words in one_line(done)


def test_an_unwritable_sqlite_path_is_one_line_and_exit_3(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    done = serve(tmp_path, JUDGE_DATABASE_URL=f"sqlite:///{tmp_path / 'file' / 'h.sqlite3'}")
    assert done.returncode == 3
    assert "cannot open SQLite database" in one_line(done)


def test_a_sqlite_path_through_a_file_or_at_a_folder_says_which(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    through = serve(tmp_path, JUDGE_DATABASE_URL=f"sqlite:///{tmp_path / 'file' / 'h.sqlite3'}")
    assert f"{tmp_path / 'file'} is a file, not a folder" in one_line(through)
    at = serve(tmp_path, JUDGE_DATABASE_URL=f"sqlite:///{tmp_path}")
    assert at.returncode == 3
    assert f"{tmp_path} is a folder, not a database file" in one_line(at)


def test_an_immutable_sqlite_file_is_one_line_and_exit_3(tmp_path: Path) -> None:
    # SQLite would open it and refuse every write: a history that could never take a row.
    path = tmp_path / "h.sqlite3"
    sqlite3.connect(path).close()
    subprocess.run(["chattr", "+i", str(path)], check=True)  # CI runs as root, as chattr needs
    try:
        done = serve(tmp_path, JUDGE_DATABASE_URL=f"sqlite:///{path}")
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)
    assert done.returncode == 3
    assert f"{path} is not writable (read-only, or immutable)" in one_line(done)


def test_an_unwritable_spool_folder_is_one_line_and_exit_3(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    done = serve(tmp_path, JUDGE_HISTORY_SPOOL=str(tmp_path / "file" / "spool"))
    assert done.returncode == 3
    line = one_line(done)
    assert "history spool folder" in line and f"{tmp_path / 'file'} is a file, not a folder" in line


def copy_exercises(tmp: Path) -> Path:
    root = tmp / "exercises"
    shutil.copytree(ROOT / "exercises", root)
    return root


def test_a_broken_exercise_folder_is_one_line_and_exit_3(tmp_path: Path) -> None:
    root = copy_exercises(tmp_path)
    broken = sorted(root.glob("*/exercise.toml"))[0]
    broken.write_text(broken.read_text() + "\nnot toml = [\n")
    done = serve(tmp_path, JUDGE_EXERCISES_DIR=str(root))
    assert done.returncode == 3
    line = one_line(done)
    assert "broken exercise folder" in line and str(broken) in line


def test_a_folder_without_exercises_is_one_line_and_exit_3(tmp_path: Path) -> None:
    # Serving nothing is no judge: most likely the wrong folder was named.
    empty = tmp_path / "exercises"
    empty.mkdir()
    done = serve(tmp_path, JUDGE_EXERCISES_DIR=str(empty))
    assert done.returncode == 3
    assert one_line(done) == f"judge: cannot start: no exercise folders in {empty}"


def test_a_reference_that_fails_its_examples_stops_the_start(tmp_path: Path) -> None:
    root = copy_exercises(tmp_path)
    solution = sorted(root.glob("*/solution.py"))[-1]  # any one shows the rule
    solution.write_text(solution.read_text() + "\nraise RuntimeError('broken on purpose')\n")
    done = serve(tmp_path, JUDGE_EXERCISES_DIR=str(root), JUDGE_DATABASE_URL="")
    assert done.returncode == 3
    line = one_line(done)
    assert f"exercise {solution.parent.name}: its reference solution.py fails its own" in line


def test_a_port_in_use_is_one_line_and_exit_3(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve(tmp_path, "--host", "127.0.0.1", "--port", str(port))
    assert done.returncode == 3
    line = one_line(done)
    assert f"cannot listen on 127.0.0.1:{port}: address already in use" in line


def test_a_host_that_does_not_resolve_is_one_line_and_exit_3(tmp_path: Path) -> None:
    done = serve(tmp_path, "--host", "999.1.1.1", "--port", "8000")
    assert done.returncode == 3
    assert "cannot listen on 999.1.1.1:8000: " in one_line(done)


def test_judge_port_is_in_force_unless_port_is_given(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve(tmp_path, "--host", "127.0.0.1", JUDGE_PORT=str(port))
    assert done.returncode == 3
    assert f"cannot listen on 127.0.0.1:{port}: address already in use" in one_line(done)
