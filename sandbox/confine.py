"""OS confinement of one child process, in two phases because children are forked per grade.

``Confinement(read_paths)`` runs once in the trusted zygote and does everything slow: it
compiles the seccomp filter, builds the Landlock ruleset, opens /dev/null and an empty,
unwritable working directory, and finds the unprivileged ids. ``apply()`` runs in each freshly
forked child before any learner code and only makes cheap syscalls with what was prepared.

Layer order in ``apply()``: descriptors and environment first (while everything is still
reachable), rlimits, the uid/gid drop, the prctls (the death
signal after the drop, which clears it), Landlock, and the seccomp filter last because it
forbids the calls made before it.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import pwd
import resource
import signal
import sys
import tempfile
from collections.abc import Collection, Sequence

from sandbox.landlock import Ruleset
from sandbox.limits import Limits
from sandbox.seccomp import SyscallFilter

__all__ = ["LAYERS", "Confinement", "ConfinementError", "default_read_paths"]

LAYERS = ("rlimits", "clean_env", "uid_drop", "no_new_privs", "landlock", "seccomp")

_NOBODY = 65534
_CWD_PREFIX = "judge-cwd-"
_FD_CEILING = 2**31 - 1
_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_SET_NO_NEW_PRIVS = 38
_PR_GET_NO_NEW_PRIVS = 39

_libc = ctypes.CDLL(None, use_errno=True)
_prctl = _libc.prctl
_prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_prctl.restype = ctypes.c_int
_clearenv = _libc.clearenv
_clearenv.argtypes = []
_clearenv.restype = ctypes.c_int


class ConfinementError(RuntimeError):
    """A layer that ``available()`` promised failed in the child: learner code must not run."""


def _prctl_checked(option: int, value: int) -> None:
    if _prctl(option, value, 0, 0, 0) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"prctl({option}, {value}): {os.strerror(code)}")


def default_read_paths() -> list[str]:
    """Directories a child needs to read: the interpreter's lib dir, numpy, RestrictedPython.

    Plus the system shared-library dirs, for the loader. Only existing directories, resolved
    and deduplicated. Site-packages as a whole is not included on purpose.
    """
    candidates = [os.path.join(sys.base_prefix, "lib"), os.path.join(sys.base_exec_prefix, "lib")]
    for package in ("numpy", "RestrictedPython"):
        spec = importlib.util.find_spec(package)
        for location in (spec.submodule_search_locations or []) if spec else []:
            candidates += [location, location + ".libs"]  # numpy.libs: its bundled OpenBLAS
    multiarch = getattr(sys.implementation, "_multiarch", "")
    for root in ("/lib", "/usr/lib", "/usr/local/lib"):
        candidates.append(os.path.join(root, multiarch) if multiarch else root)
    candidates += ["/lib64", "/usr/lib64"]
    paths: list[str] = []
    for path in candidates:
        real = os.path.realpath(path)
        if os.path.isdir(real) and real not in paths:
            paths.append(real)
    return paths


def _make_empty_dir() -> str:
    """A fresh empty directory nobody can write to (root-owned, 0555), named after our pid."""
    base = tempfile.gettempdir()
    _remove_stale_empty_dirs(base)
    path = tempfile.mkdtemp(prefix=f"{_CWD_PREFIX}{os.getpid()}-", dir=base)
    os.chmod(path, 0o555)
    return path


def _remove_stale_empty_dirs(base: str) -> None:
    """Remove the empty directories of zygotes that died without ``close()`` (pid gone)."""
    try:
        entries = list(os.scandir(base))
    except OSError:
        return
    for entry in entries:
        pid = entry.name.removeprefix(_CWD_PREFIX).partition("-")[0]
        if entry.name == pid or not pid.isdigit() or os.path.exists(f"/proc/{pid}"):
            continue
        try:
            if entry.stat(follow_symlinks=False).st_uid == os.geteuid():
                os.rmdir(entry.path)  # refuses anything that is not an empty directory
        except OSError:
            pass


def _unprivileged_ids() -> tuple[int, int]:
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return _NOBODY, _NOBODY
    if entry.pw_uid == 0 or entry.pw_gid == 0:
        return _NOBODY, _NOBODY
    return entry.pw_uid, entry.pw_gid


def _close_all_but(spare: Collection[int]) -> None:
    low = 0
    for fd in sorted(spare):
        if fd > low:
            os.closerange(low, fd)
        low = max(low, fd + 1)
    os.closerange(low, _FD_CEILING)


def _set_rlimit(which: int, soft: int, hard: int) -> None:
    try:
        resource.setrlimit(which, (soft, hard))
    except ValueError:  # above the current hard limit, which only root may raise
        _, current_hard = resource.getrlimit(which)
        resource.setrlimit(which, (min(soft, current_hard), current_hard))


class Confinement:
    """Prepared confinement layers: build once in the zygote, ``apply()`` in every child."""

    def __init__(self, read_paths: Sequence[str]) -> None:
        """Prepare every layer this machine supports; a missing one is recorded, not raised."""
        self._zygote_pid = os.getpid()
        self._page_size = os.sysconf("SC_PAGE_SIZE")
        self._reasons: dict[str, str] = {}
        self._empty_dir = _make_empty_dir()
        self._cwd_fd = os.open(self._empty_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self._devnull = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        # The zygote's statm, opened once: a child's address space is the zygote's at fork,
        # and reading it through this fd is much cheaper than a /proc/self lookup per child.
        try:
            self._statm_fd = os.open(f"/proc/{self._zygote_pid}/statm", os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            self._statm_fd = -1
            self._reasons["rlimits"] = f"no /proc to size RLIMIT_AS from ({exc}); others set"

        self._ids: tuple[int, int] | None = None
        if os.geteuid() == 0:
            self._ids = _unprivileged_ids()
        else:
            self._reasons["uid_drop"] = "not running as root: nothing to drop"

        self._nnp = _prctl(_PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) >= 0
        if not self._nnp:
            self._reasons["no_new_privs"] = "prctl(PR_GET_NO_NEW_PRIVS) unsupported"

        self._ruleset: Ruleset | None = None
        self.landlock_abi = 0
        try:
            self._ruleset = Ruleset([*read_paths, self._empty_dir])
            self.landlock_abi = self._ruleset.abi
        except OSError as exc:
            self._reasons["landlock"] = f"Landlock unavailable: {exc}"

        self._filter: SyscallFilter | None = None
        try:
            self._filter = SyscallFilter()
        except OSError as exc:
            self._reasons["seccomp"] = f"seccomp unavailable: {exc}"

        # Both kernel layers may only be entered unprivileged with no_new_privs set.
        if not self._nnp:
            for layer in ("landlock", "seccomp"):
                self._reasons.setdefault(layer, "needs no_new_privs")
            if self._ruleset is not None:
                self._ruleset.close()
            self._ruleset = self._filter = None

        # Signal dispositions survive fork: ignore SIGXFSZ once here rather than per child,
        # so a write past RLIMIT_FSIZE returns EFBIG instead of killing the child.
        self._ignore_xfsz_in_child = False
        try:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        except ValueError:  # not the main thread: do it in each child instead
            self._ignore_xfsz_in_child = True

        # FSIZE 0: writes to regular files fail with EFBIG (SIGXFSZ is ignored).
        fixed = [(resource.RLIMIT_FSIZE, 0, 0), (resource.RLIMIT_CORE, 0, 0)]
        if self._ids is not None:
            fixed.append((resource.RLIMIT_NPROC, 0, 0))  # no fork even if seccomp were off
        self._fixed_rlimits = tuple(fixed)
        self._on = self.available()

    def available(self) -> dict[str, bool]:
        """For each of ``LAYERS``, whether ``apply()`` will really turn it on here."""
        return {layer: layer not in self._reasons for layer in LAYERS}

    def reasons(self) -> dict[str, str]:
        """Why each unavailable layer is off (for ``judge doctor`` and the health report)."""
        return dict(self._reasons)

    def apply(self, limits: Limits, keep_fds: Collection[int]) -> dict[str, bool]:
        """Confine the calling, freshly forked child; returns which layers are now on.

        Raises ConfinementError when a layer that ``available()`` promised fails. Must run
        in a direct child of the process that built this object, single-threaded.
        """
        # Every object touched after fork costs a copy-on-write page fault: keep this lean.
        if not self._empty_dir:
            raise ConfinementError("this Confinement was closed")
        layer = "rlimits"
        try:
            virtual = -1  # read before _clean() closes the fd
            if self._statm_fd >= 0:
                virtual = int(os.pread(self._statm_fd, 64, 0).split()[0]) * self._page_size
            layer = "clean_env"
            self._clean(keep_fds)
            layer = "rlimits"
            self._set_rlimits(limits, virtual)
            if self._ids is not None:
                layer = "uid_drop"
                uid, gid = self._ids
                os.setgroups([])
                os.setresgid(gid, gid, gid)
                os.setresuid(uid, uid, uid)  # raises unless all three ids changed
            layer = "no_new_privs"
            # After the uid drop: a credential change clears the parent-death signal.
            _prctl_checked(_PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != self._zygote_pid:
                raise OSError("the parent exited before the death signal was armed")
            _prctl_checked(_PR_SET_DUMPABLE, 0)
            if self._nnp:
                _prctl_checked(_PR_SET_NO_NEW_PRIVS, 1)
            if self._ruleset is not None:
                layer = "landlock"
                self._ruleset.restrict_self()
            if self._filter is not None:
                layer = "seccomp"
                self._filter.load()
        except Exception as exc:
            raise ConfinementError(f"confinement layer {layer!r} failed: {exc}") from exc
        return dict(self._on)

    def _clean(self, keep_fds: Collection[int]) -> None:
        os.fchdir(self._cwd_fd)
        spare = {0, 1, 2}
        for fd in keep_fds:
            spare.add(fd)
        for std in (0, 1, 2):
            if std not in keep_fds:
                os.dup2(self._devnull, std)
        if self._ruleset is not None:
            spare.add(self._ruleset.fd)  # closed by restrict_self() once used
        _close_all_but(spare)
        _clearenv()
        # clearenv() emptied the C environ; empty Python's mirror of it (shared by os.environ
        # and os.environb) to match. os.environ.clear() would unsetenv() key by key instead.
        data = getattr(os.environ, "_data", None)
        if isinstance(data, dict):
            data.clear()
        else:
            os.environ.clear()

    def _set_rlimits(self, limits: Limits, virtual: int) -> None:
        cpu = limits.cpu_seconds
        if self._ignore_xfsz_in_child:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        # CPU soft below hard: SIGXCPU (catchable, reportable) a second before SIGKILL.
        _set_rlimit(resource.RLIMIT_CPU, cpu, cpu + 1)
        if virtual >= 0:
            address_space = virtual + limits.memory_mb * 1024 * 1024
            _set_rlimit(resource.RLIMIT_AS, address_space, address_space)
        _set_rlimit(resource.RLIMIT_NOFILE, limits.open_files, limits.open_files)
        for which, soft, hard in self._fixed_rlimits:
            _set_rlimit(which, soft, hard)

    def close(self) -> None:
        """Zygote shutdown: release the prepared descriptors and remove the empty directory."""
        if self._ruleset is not None:
            self._ruleset.close()
            self._ruleset = None
        self._filter = None
        for attr in ("_cwd_fd", "_devnull", "_statm_fd"):
            fd = getattr(self, attr)
            if fd >= 0:
                os.close(fd)
                setattr(self, attr, -1)
        if self._empty_dir:
            try:
                os.rmdir(self._empty_dir)
            except FileNotFoundError:
                pass
            self._empty_dir = ""
