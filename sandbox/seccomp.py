"""The child's syscall filter, built with libseccomp through a small ctypes binding.

The filter is compiled once in the zygote (``SyscallFilter()``) and exported to raw BPF, so
the forked child only makes one ``prctl(PR_SET_SECCOMP)`` call (``load()``): no libseccomp
code and no BPF generation per child (``seccomp_load()`` regenerates the program from the
context on every call, which is much slower).

Policy: default deny. A child may make only the syscalls that CPython and numpy were seen to
make once confined (``ALLOWED``, derived by ``tools/trace_syscalls.py``, see docs/seccomp.md),
a few of them only with arguments that cannot write a file, inject terminal input or touch
another process (``ARGUMENT_RULES``); everything else fails with EPERM, so a syscall no one
thought of (a new kernel call, page-cache or mount introspection, file watching) is refused too.
"""

from __future__ import annotations

import ctypes
import errno
import os

__all__ = ["ALLOWED", "ARGUMENT_RULES", "NOT_IMPLEMENTED", "SeccompUnavailable", "SyscallFilter"]

_ACT_ALLOW = 0x7FFF0000
_ACT_KILL_PROCESS = 0x80000000
_ATTR_ACT_BADARCH = 2
_ATTR_CTL_NNP = 3
_ATTR_CTL_OPTIMIZE = 8
_CMP_EQ = 4
_CMP_MASKED_EQ = 7
_PR_SET_SECCOMP = 22
_PR_GET_SECCOMP = 21
_SECCOMP_MODE_FILTER = 2

# The same values on x86_64 and aarch64 (asm-generic).
_TCGETS = 0x5401
_MADV_HUGEPAGE = 14
_PROT_EXEC = 0x4
_MAP_ANONYMOUS = 0x20
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_U32 = 0xFFFFFFFF

# Allowed whatever their arguments; each group says who needs it. docs/seccomp.md lists the
# traced runs they come from and how to regenerate the list. The open/ioctl/memory calls that
# are allowed only with some arguments are in ARGUMENT_RULES.
ALLOWED: tuple[str, ...] = (
    # its own end, and the return from a signal handler
    "exit_group", "rt_sigreturn",
    # memory: glibc malloc (brk; mmap, see ARGUMENT_RULES, for large blocks such as numpy's
    # array buffers), growing and freeing them
    "brk", "munmap", "mremap",
    # the descriptors it holds: job and exit pipes (select, read), /dev/null as stdio, the files
    # the import system opens (fstat, lseek); writes go only to these
    "read", "write", "close", "lseek", "pselect6", "newfstatat",
    # the import system and linecache looking around the read-only paths Landlock allows
    "getdents64", "getcwd",
    # numpy.random.default_rng() and secrets without a seed
    "getrandom",
    # time: the vDSO answers these here; where the clock source has no vDSO (some hypervisors)
    # glibc makes the real syscall, and the harness times every case
    "clock_gettime", "clock_getres", "gettimeofday",
    # its own signal dispositions and mask: glibc's abort(), CPython's faulthandler when it is
    # on (it resets its handler before re-raising a fatal signal, or it would loop)
    "rt_sigaction", "rt_sigprocmask",
    # who it is: glibc's raise() asks; nothing here can change it
    "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid",
    "getresuid", "getresgid", "getgroups",
)  # fmt: skip

# Refused with ENOSYS rather than EPERM, so that libc falls back to a call the filter can
# inspect: clone3 passes its flags in a struct (glibc falls back to clone, refused), openat2
# passes its flags in a struct (CPython and glibc fall back to openat, allowed read-only).
NOT_IMPLEMENTED: tuple[str, ...] = ("clone3", "openat2")


_LOW_HALF = (_CMP_MASKED_EQ, _U32)  # the kernel reads these arguments as 32-bit ints

# Allowed only with some arguments: (name, comparisons (argument, operator, a, b) that must all
# hold). Several rules for one syscall are alternatives; the comparisons within one are ANDed.
ARGUMENT_RULES: tuple[tuple[str, tuple[tuple[int, int, int, int], ...]], ...] = (
    # Open for reading only: no write access mode, no creating, truncating or appending.
    ("openat", ((2, _CMP_MASKED_EQ, _WRITE_FLAGS, 0),)),
    # isatty() (io.open asks of every file it opens); no TIOCSTI, TIOCLINUX or any other.
    ("ioctl", ((1, *_LOW_HALF, _TCGETS),)),
    # Reading its own limits (resource.getrlimit); never setting them, never another's.
    ("prlimit64", ((0, _CMP_EQ, 0, 0), (2, _CMP_EQ, 0, 0))),
    # New executable memory only from a file (the loader mapping a library Landlock lets it
    # read), never anonymous: no shellcode pages. mprotect cannot tell the two apart, so it
    # never adds PROT_EXEC.
    ("mmap", ((2, _CMP_MASKED_EQ, _PROT_EXEC, 0),)),
    ("mmap", ((3, _CMP_MASKED_EQ, _MAP_ANONYMOUS, 0),)),
    ("mprotect", ((2, _CMP_MASKED_EQ, _PROT_EXEC, 0),)),
    # numpy asks for transparent huge pages for arrays of 4 MiB and more.
    ("madvise", ((2, *_LOW_HALF, _MADV_HUGEPAGE),)),
)


class SeccompUnavailable(OSError):
    """libseccomp or the kernel's seccomp filter mode is missing."""


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("comparison", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _errno_action(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


def _load_libseccomp() -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError as exc:
        raise SeccompUnavailable(f"libseccomp.so.2 not found: {exc}") from exc
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.restype = None
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_attr_set.restype = ctypes.c_int
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_rule_add_array.restype = ctypes.c_int
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_export_bpf.restype = ctypes.c_int
    return lib


def _check(rc: int, what: str) -> None:
    if rc < 0:
        raise SeccompUnavailable(-rc, f"{what}: {os.strerror(-rc)}")


class SyscallFilter:
    """The compiled filter: build in the zygote, ``load()`` in each child."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._libc.prctl.restype = ctypes.c_int
        if self._libc.prctl(_PR_GET_SECCOMP, 0, 0, 0, 0) < 0:
            raise SeccompUnavailable(ctypes.get_errno(), "kernel without seccomp")
        lib = _load_libseccomp()
        ctx = lib.seccomp_init(_errno_action(errno.EPERM))  # the default: refused
        if not ctx:
            raise SeccompUnavailable(errno.ENOMEM, "seccomp_init failed")
        self.skipped: list[str] = []  # syscalls this architecture does not have
        try:
            # No-new-privs is set by the caller, explicitly and observably, before loading.
            _check(lib.seccomp_attr_set(ctx, _ATTR_CTL_NNP, 0), "seccomp_attr_set(CTL_NNP)")
            # Another ABI on this CPU (e.g. int 0x80 on x86_64) would dodge every rule.
            _check(
                lib.seccomp_attr_set(ctx, _ATTR_ACT_BADARCH, _ACT_KILL_PROCESS),
                "seccomp_attr_set(ACT_BADARCH)",
            )
            # A binary tree instead of a linear chain: the kernel emulates the filter for every
            # syscall number when it is attached, so a shorter path halves the load time.
            # Older libseccomp (< 2.5) lacks the attribute; the linear filter is as correct.
            lib.seccomp_attr_set(ctx, _ATTR_CTL_OPTIMIZE, 2)
            self._rules(lib, ctx)
            self._bpf = self._export(lib, ctx)
        finally:
            lib.seccomp_release(ctx)
        self._prog = _SockFprog(len(self._bpf) // 8, ctypes.addressof(self._bpf))
        # Arguments built here, not per child: every object a child creates or touches after
        # fork costs it a copy-on-write page fault.
        self._load_args = (
            ctypes.c_int(_PR_SET_SECCOMP),
            ctypes.c_ulong(_SECCOMP_MODE_FILTER),
            ctypes.byref(self._prog),
            ctypes.c_ulong(0),
            ctypes.c_ulong(0),
        )

    def _rules(self, lib: ctypes.CDLL, ctx: int) -> None:
        def add(name: str, action: int, *cmps: tuple[int, int, int, int]) -> None:
            nr = lib.seccomp_syscall_resolve_name(name.encode())
            if nr < 0:  # unknown here, or a pseudo-syscall of another architecture
                self.skipped.append(name)
                return
            array = (_ArgCmp * len(cmps))(*(_ArgCmp(*c) for c in cmps)) if cmps else None
            _check(lib.seccomp_rule_add_array(ctx, action, nr, len(cmps), array), name)

        for name in ALLOWED:
            add(name, _ACT_ALLOW)
        for name, cmps in ARGUMENT_RULES:
            add(name, _ACT_ALLOW, *cmps)
        for name in NOT_IMPLEMENTED:
            add(name, _errno_action(errno.ENOSYS))

    @staticmethod
    def _export(lib: ctypes.CDLL, ctx: int) -> ctypes.Array[ctypes.c_char]:
        fd = os.memfd_create("judge-seccomp-bpf", os.MFD_CLOEXEC)
        try:
            _check(lib.seccomp_export_bpf(ctx, fd), "seccomp_export_bpf")
            size = os.lseek(fd, 0, os.SEEK_CUR)
            raw = os.pread(fd, size, 0)
        finally:
            os.close(fd)
        if not raw or len(raw) % 8 or len(raw) // 8 > 0xFFFF:
            raise SeccompUnavailable(errno.EINVAL, f"unexpected BPF program of {len(raw)} bytes")
        return ctypes.create_string_buffer(raw, len(raw))

    @property
    def instructions(self) -> int:
        """Length of the BPF program, in instructions."""
        return len(self._bpf) // 8

    def load(self) -> None:
        """Install the filter on the calling thread (no_new_privs must already be set)."""
        if self._libc.prctl(*self._load_args):
            code = ctypes.get_errno()
            raise OSError(code, f"prctl(PR_SET_SECCOMP): {os.strerror(code)}")
