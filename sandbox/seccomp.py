"""The child's syscall filter, built with libseccomp through a small ctypes binding.

The filter is compiled once in the zygote (``SyscallFilter()``) and exported to raw BPF, so
the forked child only makes one ``prctl(PR_SET_SECCOMP)`` call (``load()``): no libseccomp
code and no BPF generation per child (``seccomp_load()`` regenerates the program from the
context on every call: about five times slower here).

Policy: allow by default, refuse with an errno what a learner's program never needs and an
attacker always does (sockets, exec, new processes and threads, signals to others, ptrace,
namespaces, kernel keyrings, filesystem changes, opening files for writing, ...).
"""

from __future__ import annotations

import ctypes
import errno
import os

__all__ = ["SeccompUnavailable", "SyscallFilter", "BLOCKED", "NOT_IMPLEMENTED"]

_ACT_ALLOW = 0x7FFF0000
_ACT_KILL_PROCESS = 0x80000000
_ATTR_ACT_BADARCH = 2
_ATTR_CTL_NNP = 3
_ATTR_CTL_OPTIMIZE = 8
_CMP_NE = 1
_CMP_MASKED_EQ = 7
_PR_SET_SECCOMP = 22
_PR_GET_SECCOMP = 21
_SECCOMP_MODE_FILTER = 2

_PR_SET_DUMPABLE = 4
_TIOCSTI = 0x5412
_TIOCLINUX = 0x541C
_WRITE_FLAGS = (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC, os.O_APPEND)
_U32 = 0xFFFFFFFF

# Refused with EPERM whatever their arguments.
BLOCKED: tuple[str, ...] = (
    # networking (the reply travels over an inherited pipe with read/write)
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
    "sendto", "sendmsg", "sendmmsg", "recvfrom", "recvmsg", "recvmmsg",
    "getsockopt", "setsockopt", "getsockname", "getpeername", "shutdown",
    # new programs, processes and threads (clone3 is in NOT_IMPLEMENTED)
    "execve", "execveat", "fork", "vfork", "clone",
    # reaching other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise",
    "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
    "pidfd_open", "pidfd_send_signal", "pidfd_getfd", "kcmp",
    "setpriority", "sched_setscheduler", "sched_setparam", "sched_setattr",
    "sched_setaffinity", "ioprio_set", "migrate_pages", "move_pages",
    # namespaces, mounts, kernel objects
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "bpf", "perf_event_open", "keyctl", "add_key", "request_key", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "personality",
    "memfd_create", "memfd_secret", "fanotify_init", "quotactl", "quotactl_fd", "syslog",
    # System V and POSIX IPC objects outlive the child
    "shmget", "shmat", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
    "semget", "semop", "semtimedop", "semctl", "mq_open", "mq_unlink",
    # filesystem changes (Landlock does not cover chmod/chown/utimes/xattrs)
    "mknod", "mknodat", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat",
    "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat",
    "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
    "truncate", "ftruncate", "fallocate", "creat", "utime", "utimes", "utimensat",
    "futimesat", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
    "fremovexattr", "name_to_handle_at", "open_by_handle_at",
    # credentials
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups",
    "setfsuid", "setfsgid", "capset",
    # the machine
    "reboot", "swapon", "swapoff", "init_module", "finit_module", "delete_module",
    "kexec_load", "kexec_file_load", "acct", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "sethostname", "setdomainname", "iopl", "ioperm", "vhangup",
)  # fmt: skip

# Refused with ENOSYS so that libc falls back to a call the filter can inspect or refuse:
# clone3 passes its flags in a struct (pthread_create falls back to clone, refused above);
# openat2 passes its flags in a struct (CPython and glibc fall back to openat).
NOT_IMPLEMENTED: tuple[str, ...] = ("clone3", "openat2")


class SeccompUnavailable(OSError):
    """libseccomp or the kernel's seccomp filter mode is missing."""


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
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
        ctx = lib.seccomp_init(_ACT_ALLOW)
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

        eperm = _errno_action(errno.EPERM)
        for name in BLOCKED:
            add(name, eperm)
        for name in NOT_IMPLEMENTED:
            add(name, _errno_action(errno.ENOSYS))
        # Conditions within one rule are ANDed, so each write flag gets its own rule.
        for name, flags_arg in (("open", 1), ("openat", 2)):
            for flag in _WRITE_FLAGS:
                add(name, eperm, (flags_arg, _CMP_MASKED_EQ, flag, flag))
        # The kernel reads these arguments as 32-bit ints: compare the low half only.
        for request in (_TIOCSTI, _TIOCLINUX):
            add("ioctl", eperm, (1, _CMP_MASKED_EQ, _U32, request))
        add("prctl", eperm, (0, _CMP_MASKED_EQ, _U32, _PR_SET_DUMPABLE))
        # Own limits only (pid 0): siblings run as the same uid.
        add("prlimit64", eperm, (0, _CMP_NE, 0, 0))

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
