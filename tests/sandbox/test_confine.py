"""The OS confinement on its own (no RestrictedPython): each test forks a child, confines it,
tries one forbidden thing in plain Python and reports the outcome as JSON over a pipe; the
parent checks the outcome and that nothing happened outside the child."""

from __future__ import annotations

import importlib
import json
import os
import resource
import select
import signal
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy
import pytest

from sandbox.confine import LAYERS, Confinement, ConfinementError, default_read_paths
from sandbox.limits import Limits

REPO = Path(__file__).resolve().parents[2]
LIMITS = Limits()
IS_ROOT = os.geteuid() == 0
CHILD_DEADLINE_S = 10.0

# numpy.random pulls these stdlib modules in. Import them before forking, as the zygote does:
# after the uid drop the stdlib may be unreachable (pyenv keeps it under /root, mode 0700).
for _name in ("base64", "bisect", "hashlib", "hmac", "random", "secrets", "zlib"):
    importlib.import_module(_name)


@pytest.fixture(scope="module")
def conf() -> Iterator[Confinement]:
    confinement = Confinement(default_read_paths())
    yield confinement
    confinement.close()


def attempt(action: Callable[[], Any]) -> dict[str, Any]:
    """Run one action in the child: what it returned, or which error it raised."""
    try:
        value = action()
    except BaseException as exc:  # whatever it is, the outcome is the point
        return {"raised": type(exc).__name__, "errno": getattr(exc, "errno", None)}
    if not isinstance(value, str | int | float | bool | None):
        value = repr(value)
    return {"returned": value}


def run_confined(
    conf: Confinement,
    probe: Callable[[], Any],
    *,
    keep: tuple[int, ...] = (),
    limits: Limits = LIMITS,
) -> tuple[dict[str, Any] | None, int]:
    """Fork, confine, run ``probe`` and return (its JSON result or None, the wait status)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        try:
            os.close(read_fd)
            layers = conf.apply(limits, keep_fds=[write_fd, *keep])
            result: dict[str, Any] = {"layers": layers, "value": probe()}
        except BaseException as exc:  # reported, never raised into pytest's frames
            result = {"error": f"{type(exc).__name__}: {exc}"}
        try:
            os.write(write_fd, json.dumps(result).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    chunks = []
    deadline = time.monotonic() + CHILD_DEADLINE_S
    try:
        while True:
            ready, _, _ = select.select([read_fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                pytest.fail("the confined child did not answer in time")
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
        _, status = os.waitpid(pid, 0)  # every child is reaped, whatever happened
    raw = b"".join(chunks)
    return (json.loads(raw) if raw else None), status


def confined_value(conf: Confinement, probe: Callable[[], Any], **kwargs: Any) -> Any:
    """The probe's result from a child that confined itself fully and exited normally."""
    result, status = run_confined(conf, probe, **kwargs)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    assert result is not None and "error" not in result, result
    assert result["layers"] == conf.available()
    return result["value"]


def refused(outcome: dict[str, Any], error: str = "PermissionError") -> bool:
    return outcome.get("raised") == error


# --- what is on ------------------------------------------------------------------------------


def test_every_layer_available_as_root_on_this_machine(conf: Confinement) -> None:
    if not IS_ROOT:
        pytest.skip("the uid drop only exists when the judge starts as root (as in CI)")
    assert conf.available() == dict.fromkeys(LAYERS, True), conf.reasons()
    assert conf.landlock_abi >= 1


def test_apply_turns_on_what_available_promised(conf: Confinement) -> None:
    result, status = run_confined(conf, lambda: None)
    assert status == 0 and result is not None, result
    assert result["layers"] == conf.available()
    assert list(result["layers"]) == list(LAYERS)


# --- network ---------------------------------------------------------------------------------


def test_socket_creation_refused(conf: Confinement) -> None:
    outcome = confined_value(conf, lambda: attempt(lambda: socket.socket().fileno()))
    assert refused(outcome), outcome
    unix = confined_value(conf, lambda: attempt(lambda: socket.socketpair()))
    assert refused(unix), unix


def test_connecting_to_a_local_listener_never_reaches_it(conf: Confinement) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        outcome = confined_value(
            conf, lambda: attempt(lambda: socket.create_connection(("127.0.0.1", port), 1).close())
        )
        assert "raised" in outcome, outcome
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()


# --- processes and threads -------------------------------------------------------------------


def test_fork_refused(conf: Confinement) -> None:
    def probe() -> dict[str, Any]:
        def fork() -> int:
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
            return pid

        return attempt(fork)

    outcome = confined_value(conf, probe)
    assert refused(outcome), outcome


def test_subprocess_system_and_exec_refused(conf: Confinement, tmp_path: Path) -> None:
    import subprocess

    markers = [tmp_path / name for name in ("subprocess", "system", "execv")]

    def probe() -> dict[str, Any]:
        return {
            "subprocess": attempt(lambda: subprocess.run(["/usr/bin/touch", str(markers[0])])),
            "system": attempt(lambda: os.system(f"/usr/bin/touch {markers[1]}")),
            "execv": attempt(lambda: os.execv("/usr/bin/touch", ["touch", str(markers[2])])),
        }

    outcome = confined_value(conf, probe)
    assert refused(outcome["subprocess"]), outcome
    assert outcome["system"].get("returned") not in (None, 0), outcome  # -1: spawn failed
    assert refused(outcome["execv"]), outcome
    assert not any(marker.exists() for marker in markers)


def test_thread_start_refused(conf: Confinement) -> None:
    import threading

    outcome = confined_value(conf, lambda: attempt(lambda: threading.Thread(target=int).start()))
    assert refused(outcome, "RuntimeError"), outcome


def test_clone3_and_openat2_answer_enosys(conf: Confinement) -> None:
    import ctypes

    def probe() -> list[int]:
        libc = ctypes.CDLL(None, use_errno=True)
        codes = []
        for number in (435, 437):  # clone3, openat2 (same on x86_64 and aarch64)
            ctypes.set_errno(0)
            libc.syscall(ctypes.c_long(number), None, ctypes.c_size_t(0))
            codes.append(ctypes.get_errno())
        return codes

    import errno

    assert confined_value(conf, probe) == [errno.ENOSYS, errno.ENOSYS]


def test_signalling_the_parent_refused(conf: Confinement) -> None:
    outcome = confined_value(conf, lambda: attempt(lambda: os.kill(os.getppid(), 0)))
    assert refused(outcome), outcome


def test_segfault_kills_the_child_and_the_parent_sees_it(conf: Confinement) -> None:
    import ctypes

    result, status = run_confined(conf, lambda: ctypes.string_at(0))
    assert result is None
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSEGV, status


# --- files -----------------------------------------------------------------------------------


def test_writing_files_refused_and_nothing_created(conf: Confinement, tmp_path: Path) -> None:
    target = tmp_path / "written.txt"

    def probe() -> dict[str, Any]:
        return {
            "tmp": attempt(lambda: open(target, "w").write("x")),
            "tmp_append": attempt(lambda: open(target, "a").write("x")),
            "tmp_os_open": attempt(lambda: os.open(target, os.O_CREAT | os.O_WRONLY)),
            "cwd": attempt(lambda: open("written.txt", "w").write("x")),
            "cwd_mkdir": attempt(lambda: os.mkdir("made")),
            "cwd_path": os.getcwd(),
            "cwd_listing": attempt(lambda: len(os.listdir("."))),
        }

    outcome = confined_value(conf, probe)
    for key in ("tmp", "tmp_append", "tmp_os_open", "cwd", "cwd_mkdir"):
        assert refused(outcome[key]), (key, outcome)
    assert outcome["cwd_listing"] == {"returned": 0}
    assert list(tmp_path.iterdir()) == []
    assert os.listdir(outcome["cwd_path"]) == []


def test_reading_outside_the_read_paths_refused(conf: Confinement) -> None:
    if not conf.available()["landlock"]:
        pytest.skip(f"Landlock is off here: {conf.reasons().get('landlock')}")
    repo_files = sorted(p for p in (REPO / "exercises").rglob("*") if p.is_file())
    private = str(repo_files[0] if repo_files else REPO / "pyproject.toml")

    def probe() -> dict[str, Any]:
        return {
            "passwd": attempt(lambda: open("/etc/passwd").read()),
            "repo": attempt(lambda: open(private).read()),
            "repo_listing": attempt(lambda: os.listdir(REPO)),
            "proc_environ": attempt(lambda: open("/proc/self/environ", "rb").read()),
        }

    outcome = confined_value(conf, probe)
    for key, value in outcome.items():
        assert refused(value), (key, outcome)


def _unmapped_numpy_extension() -> str:
    """A numpy C extension this process has not mapped yet (the child maps it first)."""
    with open("/proc/self/maps") as maps:
        mapped = {line.split()[-1] for line in maps if "/" in line}
    root = Path(numpy.__file__).parent
    for path in sorted(root.rglob("*.so")):
        if str(path) not in mapped and "tests" not in path.parts:
            return str(path)
    pytest.skip("every numpy extension is already loaded in this process")


def test_numpy_still_readable_and_importable(conf: Confinement) -> None:
    import ctypes

    numpy_init = numpy.__file__
    extension = _unmapped_numpy_extension()

    def probe() -> dict[str, Any]:
        import numpy.random

        with open(numpy_init) as source:
            head = source.read(100)
        # Mapped with PROT_EXEC after Landlock: reading is enough, no EXECUTE right needed.
        ctypes.CDLL(extension)
        values = numpy.random.default_rng(3).integers(0, 10, size=4)
        return {
            "read": len(head),
            "random": values.tolist(),
            "matmul": float((numpy.ones((3, 3)) @ numpy.arange(3.0)).sum()),
        }

    outcome = confined_value(conf, probe)
    assert outcome["read"] == 100
    assert outcome["random"] == numpy.random.default_rng(3).integers(0, 10, size=4).tolist()
    assert outcome["matmul"] == 9.0


# --- process state ---------------------------------------------------------------------------


def test_environment_is_empty(conf: Confinement, monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes

    monkeypatch.setenv("JUDGE_TEST_SECRET", "hunter2")

    def probe() -> dict[str, Any]:
        getenv = ctypes.CDLL(None).getenv
        getenv.restype = ctypes.c_char_p
        return {
            "python": dict(os.environ),
            "bytes": len(os.environb),
            "c": getenv(b"JUDGE_TEST_SECRET"),
        }

    assert confined_value(conf, probe) == {"python": {}, "bytes": 0, "c": None}


def test_uid_is_nobody_when_started_as_root(conf: Confinement) -> None:
    if not IS_ROOT:
        pytest.skip("the uid drop only happens when the judge runs as root")
    outcome = confined_value(
        conf, lambda: [os.getresuid(), os.getresgid(), os.getgroups(), os.geteuid() == 0]
    )
    uids, gids, groups, is_root = outcome
    assert uids == [uids[0]] * 3 and uids[0] != 0
    assert gids == [gids[0]] * 3 and gids[0] != 0
    assert groups == [] and is_root is False


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def test_only_kept_descriptors_survive(conf: Confinement, tmp_path: Path) -> None:
    null = os.stat(os.devnull)
    kept = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    dropped = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:

        def probe() -> dict[str, Any]:
            stdio = [os.fstat(fd) for fd in (0, 1, 2)]
            return {
                "kept": attempt(lambda: os.fstat(kept).st_ino),
                "dropped": attempt(lambda: os.fstat(dropped).st_ino),
                "stdio_is_null": all(s.st_rdev == null.st_rdev for s in stdio),
                "open": [fd for fd in range(4096) if _is_open(fd)],
            }

        outcome = confined_value(conf, probe, keep=(kept,))
    finally:
        os.close(kept)
        os.close(dropped)
    assert outcome["kept"] == {"returned": tmp_path.stat().st_ino}
    assert outcome["dropped"] == {"raised": "OSError", "errno": 9}  # EBADF
    assert outcome["stdio_is_null"] is True
    assert len(outcome["open"]) == 5 and outcome["open"][:3] == [0, 1, 2]  # + reply, kept


def test_memory_bomb_raises_memory_error(conf: Confinement) -> None:
    outcome = confined_value(conf, lambda: attempt(lambda: len(bytearray(2 * 1024**3))))
    assert refused(outcome, "MemoryError"), outcome


def test_rlimits_as_set(conf: Confinement) -> None:
    def probe_limits() -> dict[str, Any]:
        names = ("CPU", "AS", "FSIZE", "NOFILE", "CORE", "NPROC", "STACK")
        limits: dict[str, Any] = {
            n: resource.getrlimit(getattr(resource, f"RLIMIT_{n}")) for n in names
        }
        limits["SIGXFSZ_ignored"] = signal.getsignal(signal.SIGXFSZ) == signal.SIG_IGN
        return limits

    got = confined_value(conf, probe_limits)
    cpu = LIMITS.cpu_seconds
    assert got["CPU"] == [cpu, cpu + 1]
    assert got["FSIZE"] == [0, 0]
    assert got["NOFILE"] == [LIMITS.open_files] * 2
    assert got["CORE"] == [0, 0]
    assert got["NPROC"] == ([0, 0] if IS_ROOT else list(resource.getrlimit(resource.RLIMIT_NPROC)))
    assert got["STACK"] == list(resource.getrlimit(resource.RLIMIT_STACK))
    soft, hard = got["AS"]
    budget = LIMITS.memory_mb * 1024 * 1024
    assert soft == hard and budget < soft < budget + 64 * 1024**3
    assert got["SIGXFSZ_ignored"] is True


# --- prepare / close -------------------------------------------------------------------------


def test_apply_refuses_when_not_a_child_of_the_preparer(conf: Confinement) -> None:
    # A grandchild: its parent is not the process that prepared the confinement.
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_fd)
            grandchild = os.fork()
            if grandchild == 0:
                try:
                    conf.apply(LIMITS, keep_fds=[write_fd])
                    os.write(write_fd, b"applied")
                except ConfinementError:
                    os.write(write_fd, b"refused")
                finally:
                    os._exit(0)
            os.waitpid(grandchild, 0)
        finally:
            os._exit(0)
    os.close(write_fd)
    try:
        select.select([read_fd], [], [], CHILD_DEADLINE_S)
        answer = os.read(read_fd, 100)
    finally:
        os.close(read_fd)
        os.waitpid(pid, 0)
    assert answer == b"refused"


def test_close_removes_the_empty_directory() -> None:
    confinement = Confinement(default_read_paths())
    cwd = confined_value(confinement, os.getcwd)
    assert os.path.isdir(cwd) and os.listdir(cwd) == []
    confinement.close()
    confinement.close()  # idempotent
    assert not os.path.exists(cwd)
    with pytest.raises(ConfinementError):
        confinement.apply(LIMITS, keep_fds=[])  # refused before it touches anything


def test_empty_directories_of_dead_zygotes_are_swept() -> None:
    pid = os.fork()
    if pid == 0:
        Confinement([])  # a zygote that dies without close()
        os._exit(0)
    os.waitpid(pid, 0)
    stale = list(Path(tempfile.gettempdir()).glob(f"judge-cwd-{pid}-*"))
    assert stale, "the dead zygote's directory should still be there"
    Confinement([]).close()
    assert not any(p.exists() for p in stale)


def test_unprivileged_start_skips_the_uid_drop_and_keeps_the_rest() -> None:
    if not IS_ROOT:
        pytest.skip("already unprivileged: the other tests cover this path")
    paths = [*default_read_paths(), "/nonexistent/judge-read-path"]
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # become an ordinary user, then prepare and apply as the zygote would
        try:
            os.close(read_fd)
            os.setgroups([])
            os.setresgid(65534, 65534, 65534)
            os.setresuid(65534, 65534, 65534)
            confinement = Confinement(paths)
            result, status = run_confined(confinement, lambda: os.getresuid())
            report = {"available": confinement.available(), "child": result, "status": status}
            confinement.close()
            os.write(write_fd, json.dumps(report).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    try:
        select.select([read_fd], [], [], CHILD_DEADLINE_S)
        report = json.loads(os.read(read_fd, 65536) or b"null")
    finally:
        os.close(read_fd)
        os.waitpid(pid, 0)
    assert report is not None
    assert report["available"]["uid_drop"] is False
    assert report["available"]["seccomp"] is True
    assert report["status"] == 0
    assert report["child"]["layers"] == report["available"]
    assert report["child"]["value"] == [65534] * 3
