"""Landlock through raw syscalls: a read-only view of a few directories, no TCP, no signals out.

The ruleset is built once in the zygote (``Ruleset(...)``); the forked child only calls
``restrict_self()`` (one syscall). Every access right the running kernel's ABI knows is
handled, so anything not granted by a rule is denied, including rights added by newer ABIs.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
from collections.abc import Iterable

__all__ = ["LandlockUnavailable", "Ruleset", "abi_version"]

# Same numbers on x86_64 and aarch64 (syscalls added after the table unification).
_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1

FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
_FS_ABI1 = (1 << 13) - 1  # EXECUTE .. MAKE_SYM
_FS_REFER = 1 << 13  # ABI 2
_FS_TRUNCATE = 1 << 14  # ABI 3
_FS_IOCTL_DEV = 1 << 15  # ABI 5
# Rights that make sense on a file (not a directory) as a rule's parent.
_FS_FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV
_NET_BIND_TCP = 1 << 0  # ABI 4
_NET_CONNECT_TCP = 1 << 1  # ABI 4
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
_SCOPE_SIGNAL = 1 << 1  # ABI 6


class LandlockUnavailable(OSError):
    """The kernel has no Landlock, or it is disabled at boot."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _long_args(*args: object) -> tuple[object, ...]:
    # syscall(2) reads every argument as a long: pass full-width integers, never C ints.
    return tuple(ctypes.c_long(a) if isinstance(a, int) else a for a in args)


def _syscall(nr: int, *args: object) -> int:
    rc = _libc.syscall(*_long_args(nr, *args))
    if rc < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return int(rc)


def abi_version() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is missing or disabled."""
    try:
        return _syscall(_SYS_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    except OSError as exc:
        if exc.errno in (errno.ENOSYS, errno.EOPNOTSUPP):
            return 0
        raise


def handled_rights(abi: int) -> tuple[int, int, int]:
    """(filesystem, network, scope) rights an ABI version knows; all of them get handled."""
    fs = _FS_ABI1
    if abi >= 2:
        fs |= _FS_REFER
    if abi >= 3:
        fs |= _FS_TRUNCATE
    if abi >= 5:
        fs |= _FS_IOCTL_DEV
    net = _NET_BIND_TCP | _NET_CONNECT_TCP if abi >= 4 else 0
    scope = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if abi >= 6 else 0
    return fs, net, scope


class Ruleset:
    """A prepared ruleset fd: reading under ``read_paths``, read+write on ``rw_files``."""

    def __init__(self, read_paths: Iterable[str], rw_files: Iterable[str] = ("/dev/null",)):
        self.abi = abi_version()
        if self.abi < 1:
            raise LandlockUnavailable(errno.EOPNOTSUPP, "Landlock is not enabled in this kernel")
        fs, net, scope = handled_rights(self.abi)
        attr = _RulesetAttr(fs, net, scope)
        # The struct grew with the ABI; an older kernel refuses the fields it does not know.
        size = 8 if self.abi < 4 else 16 if self.abi < 6 else 24
        self.fd = _syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), size, 0)
        # Built here, not per child: objects a child creates cost it page faults.
        self._restrict_args = _long_args(_SYS_RESTRICT_SELF, self.fd, 0)
        self.skipped: list[str] = []  # paths missing or unreachable here: nothing granted
        try:
            for path in read_paths:
                self._allow(path, FS_READ_FILE | FS_READ_DIR)
            for path in rw_files:
                self._allow(path, FS_READ_FILE | FS_WRITE_FILE)
        except BaseException:
            self.close()
            raise

    def _allow(self, path: str, access: int) -> None:
        try:
            parent = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except (FileNotFoundError, PermissionError, NotADirectoryError):
            self.skipped.append(path)  # what this process cannot reach, the child cannot read
            return
        try:
            if not stat.S_ISDIR(os.fstat(parent).st_mode):
                access &= _FS_FILE_RIGHTS
            rule = _PathBeneathAttr(access, parent)
            _syscall(_SYS_ADD_RULE, self.fd, _RULE_PATH_BENEATH, ctypes.byref(rule), 0)
        finally:
            os.close(parent)

    def restrict_self(self) -> None:
        """Enforce the ruleset on the calling thread (needs no_new_privs), then drop the fd."""
        if _libc.syscall(*self._restrict_args) < 0:
            code = ctypes.get_errno()
            raise OSError(code, f"landlock_restrict_self: {os.strerror(code)}")
        self.close()

    def close(self) -> None:
        """Close the ruleset fd (idempotent)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
