"""The syscall filter is default deny: calls no learner's numpy code needs are refused.

Each probe runs in a child confined exactly as the zygote confines its children (the helpers of
``test_confine``), calling syscalls by their raw numbers through ctypes: a name libseccomp does
not know (listmount, mseal, ...) could never be on a denylist, and must be refused all the same.
A control child, unconfined, shows that the kernel itself would have answered them.
"""

from __future__ import annotations

import ctypes
import errno
import json
import mmap
import os
import platform
from collections.abc import Iterator
from typing import Any

import pytest

from sandbox.confine import Confinement, default_read_paths
from tests.sandbox.test_confine import LIMITS, attempt, confined_value

# name: (x86_64 number, aarch64 number, first kernel that has it). Calls added since Linux 5.1
# have one number on every architecture.
UNNEEDED: dict[str, tuple[int, int, tuple[int, int]]] = {
    # page-cache side channels
    "cachestat": (451, 451, (6, 5)),
    "mincore": (27, 232, (2, 6)),
    # watching files being read
    "inotify_init1": (294, 26, (2, 6)),
    "fanotify_init": (300, 262, (2, 6)),
    # mount and security-module introspection
    "listmount": (458, 458, (6, 8)),
    "statmount": (457, 457, (6, 8)),
    "lsm_get_self_attr": (459, 459, (6, 8)),
    "lsm_list_modules": (461, 461, (6, 8)),
    "statfs": (137, 43, (2, 6)),
    # asynchronous I/O and pipe plumbing
    "io_setup": (206, 0, (2, 6)),
    "io_pgetevents": (333, 292, (4, 18)),
    "io_uring_setup": (425, 425, (5, 1)),
    "splice": (275, 76, (2, 6)),
    "vmsplice": (278, 75, (2, 6)),
    "tee": (276, 77, (2, 6)),
    # memory management beyond malloc's
    "pkey_alloc": (330, 289, (4, 9)),
    "mseal": (462, 462, (6, 10)),
    "process_mrelease": (448, 448, (5, 15)),
    "set_mempolicy_home_node": (450, 450, (5, 17)),
    "userfaultfd": (323, 282, (4, 3)),
    "memfd_create": (319, 279, (3, 17)),
    # kernel objects, other processes, the machine
    "bpf": (321, 280, (3, 18)),
    "perf_event_open": (298, 241, (2, 6)),
    "keyctl": (250, 219, (2, 6)),
    "kcmp": (312, 272, (3, 5)),
    "pidfd_open": (434, 434, (5, 3)),
    "process_vm_readv": (310, 270, (3, 2)),
    "futex_waitv": (449, 449, (5, 16)),
    "fsopen": (430, 430, (5, 2)),
    "open_tree": (428, 428, (5, 2)),
    "name_to_handle_at": (303, 264, (2, 6)),
    "unshare": (272, 97, (2, 6)),
    "personality": (135, 92, (2, 6)),
    "sysinfo": (99, 179, (2, 6)),
    "prctl": (157, 167, (2, 6)),
    "socket": (41, 198, (2, 6)),
    # the newest calls, which no list written before them could name
    "getxattrat": (464, 464, (6, 13)),
    "listxattrat": (465, 465, (6, 13)),
    "file_getattr": (468, 468, (6, 17)),
}
ARCH_COLUMN = {"x86_64": 0, "aarch64": 1}.get(platform.machine())

_TIOCSTI = 0x5412
_PR_SET_DUMPABLE = 4
_MADV_HUGEPAGE = 14
_MADV_DONTFORK = 10


@pytest.fixture(scope="module")
def conf() -> Iterator[Confinement]:
    confinement = Confinement(default_read_paths())
    if not confinement.available()["seccomp"]:
        pytest.skip(f"seccomp is off here: {confinement.reasons().get('seccomp')}")
    yield confinement
    confinement.close()


def numbers() -> dict[str, int]:
    if ARCH_COLUMN is None:
        pytest.skip(f"no syscall table here for {platform.machine()}")
    return {name: entry[ARCH_COLUMN] for name, entry in UNNEEDED.items()}


def call_each(table: dict[str, int]) -> dict[str, list[int]]:
    """Each syscall with zero arguments: [return value, errno]."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    zeros = [ctypes.c_long(0)] * 6
    outcome = {}
    for name, number in table.items():
        ctypes.set_errno(0)
        result = libc.syscall(ctypes.c_long(number), *zeros)
        outcome[name] = [result, ctypes.get_errno() if result == -1 else 0]
    return outcome


def test_the_table_agrees_with_libseccomp_where_it_knows_the_name() -> None:
    lib = ctypes.CDLL("libseccomp.so.2")
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    known = 0
    for name, number in numbers().items():
        resolved = lib.seccomp_syscall_resolve_name(name.encode())
        if resolved >= 0:
            known += 1
            assert resolved == number, (name, resolved, number)
    assert known >= len(UNNEEDED) // 2  # most names are older than this libseccomp


def test_unneeded_syscalls_are_refused_with_eperm(conf: Confinement) -> None:
    table = numbers()
    outcome = confined_value(conf, lambda: call_each(table))
    allowed = {name: got for name, got in outcome.items() if got != [-1, errno.EPERM]}
    assert not allowed, f"reached the kernel from a confined child: {allowed}"


def test_the_kernel_itself_would_have_answered_them() -> None:
    """Unconfined (as root, this kernel), none of the probes is refused by the kernel itself:
    the refusals above are the filter's, and each number names a call this kernel has."""
    if os.geteuid() != 0:
        pytest.skip("unprivileged, the kernel refuses some of these itself (bpf, fsopen, ...)")
    table = numbers()
    release = tuple(int(part) for part in platform.release().split(".")[:2])
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # throwaway: whatever the calls create dies with it
        try:
            os.close(read_fd)
            os.write(write_fd, json.dumps(call_each(table)).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    try:
        raw = b""
        while chunk := os.read(read_fd, 65536):
            raw += chunk
    finally:
        os.close(read_fd)
        os.waitpid(pid, 0)
    outcome: dict[str, list[int]] = json.loads(raw)
    for name, (result, code) in outcome.items():
        assert code != errno.EPERM, (name, result)
        if release >= UNNEEDED[name][2]:
            assert code != errno.ENOSYS, f"{name} is not syscall {table[name]} on this kernel"


def test_the_argument_filters_hold(conf: Confinement) -> None:
    def probe() -> dict[str, Any]:
        import fcntl
        import resource

        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = (
            [ctypes.c_void_p, ctypes.c_size_t] + [ctypes.c_int] * 3 + [ctypes.c_long]
        )
        anonymous = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS

        def mapped(prot: int) -> int:
            ctypes.set_errno(0)
            address = libc.mmap(None, 4096, prot, anonymous, -1, 0)
            return 0 if address not in (None, ctypes.c_void_p(-1).value) else ctypes.get_errno()

        def failed(result: int) -> int:
            return ctypes.get_errno() if result == -1 else 0

        zero = (ctypes.c_ulong * 2)(0, 0)  # struct rlimit {0, 0}: lowering, not raising
        page = mmap.mmap(-1, 4096)
        start = ctypes.addressof(ctypes.c_char.from_buffer(page))

        def protected(prot: int) -> int:
            return failed(libc.mprotect(ctypes.c_void_p(start), 4096, prot))

        def advised(advice: int) -> int:
            return failed(libc.madvise(ctypes.c_void_p(start), 4096, advice))

        return {
            "tiocsti": attempt(lambda: fcntl.ioctl(0, _TIOCSTI, b"x")),
            "dumpable": failed(libc.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)),
            "lower_own_limit": failed(libc.setrlimit(resource.RLIMIT_CORE, ctypes.byref(zero))),
            "read_own_limit": attempt(lambda: resource.getrlimit(resource.RLIMIT_NOFILE)[0]),
            "parents_limit": attempt(
                lambda: resource.prlimit(os.getppid(), resource.RLIMIT_NOFILE)[0]
            ),
            "read_write_memory": mapped(mmap.PROT_READ | mmap.PROT_WRITE),
            "executable_memory": mapped(mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC),
            "protect_read": protected(mmap.PROT_READ),
            "protect_exec": protected(mmap.PROT_READ | mmap.PROT_EXEC),
            "huge_pages": advised(_MADV_HUGEPAGE),
            "dont_fork": advised(_MADV_DONTFORK),
            "random": attempt(lambda: len(os.urandom(16))),
        }

    outcome = confined_value(conf, probe)
    for key in ("tiocsti", "parents_limit"):
        assert outcome[key] == {"raised": "PermissionError", "errno": errno.EPERM}, (key, outcome)
    assert outcome["dumpable"] == outcome["lower_own_limit"] == errno.EPERM, outcome
    assert outcome["read_own_limit"] == {"returned": LIMITS.open_files}, outcome
    assert outcome["random"] == {"returned": 16}
    assert outcome["read_write_memory"] == 0 and outcome["protect_read"] == 0, outcome
    assert outcome["executable_memory"] == outcome["protect_exec"] == errno.EPERM, outcome
    assert outcome["huge_pages"] == 0 and outcome["dont_fork"] == errno.EPERM, outcome
