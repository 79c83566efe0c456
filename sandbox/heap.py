"""The zygote's malloc heap, made compact before the first fork.

Every object a child allocates takes the first free chunk glibc finds that fits. After the
warm-up, the zygote's heap holds small free chunks scattered over pages that every child shares
copy-on-write with the zygote: a child's first allocation on each of those pages costs a page
copy. ``fill_holes`` allocates (and keeps, for the zygote's lifetime) every free chunk below the
top of the heap, so that a child's allocations come from the top instead: fresh pages, packed
together. Only glibc's own free chunks are taken, filled with its perturb pattern (see
``sandbox.zygote_process.MEMORY_TUNABLES``); this runs before any job is read, so no learner's
bytes can be in them.
"""

from __future__ import annotations

import ctypes

__all__ = ["collapse", "fill_holes"]

# Largest first: a big hole is used up by one large request instead of many small ones. Below
# 1 KiB glibc keeps free chunks in bins of one size each (16 bytes apart): every size is asked.
_SIZES = (65536, 16384, 4096, 2048, *range(1008, 0, -16))
_MOST = 20_000  # chunks taken at most: a warm zygote has a few thousand holes
_MADV_COLLAPSE = 25  # Linux 6.1; an older kernel answers EINVAL and the heap stays as it is
_HUGE_PAGE = 2 << 20  # x86-64's PMD size; a stretch is collapsed only where fully inside the heap


class _Mallinfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()
        )
    ]


def _libc() -> ctypes.CDLL | None:
    libc = ctypes.CDLL(None)
    if not all(hasattr(libc, name) for name in ("mallinfo2", "sbrk", "malloc", "free", "madvise")):
        return None  # not glibc (or an old one): nothing to do
    libc.mallinfo2.restype = _Mallinfo2
    libc.mallinfo2.argtypes = []
    libc.sbrk.restype = ctypes.c_void_p
    libc.sbrk.argtypes = [ctypes.c_ssize_t]
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.restype = None
    libc.free.argtypes = [ctypes.c_void_p]
    libc.madvise.restype = ctypes.c_int
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return libc


# The chunks taken, never freed, so that their holes stay filled; with the address objects
# themselves, so that no object of the loop is freed into a hole it would then take again. A
# list allocated whole before the first chunk is taken (mapped on its own, past glibc's mmap
# threshold): a growing list would free its old item arrays, each a new hole.
_held: list[int] | None = None


def fill_holes() -> int:
    """Take every free chunk of the main heap that lies below its top; returns how many (0 on
    a second call: the heap is filled once, before the first fork).

    A chunk comes from a hole when its address is below the top chunk's start (the break minus
    the top's size, ``keepcost``) as it was before that size was asked; the first request
    served from above is given back, and the next smaller size is tried."""
    global _held
    libc = _libc()
    if libc is None or _held is not None:
        return 0
    held = _held = [0] * _MOST
    taken = 0
    for size in _SIZES:
        # Read once per size: this loop's own objects are carved from the top and freed, and a
        # top read after them would count their chunks as holes, for ever.
        top = (libc.sbrk(0) or 0) - libc.mallinfo2().keepcost
        while taken < _MOST:
            chunk = libc.malloc(size)
            if not chunk:
                return taken
            if chunk >= top:
                libc.free(chunk)
                break
            held[taken] = chunk
            taken += 1
    return taken


def collapse() -> int:
    """Back every whole 2 MiB stretch of the main heap by one huge page, once the zygote is
    warm; returns how many stretches (0 where the kernel will not).

    Every fork copies the zygote's page-table entries and every child's exit drops them, and the
    kernel does both a whole large folio at a time: a warm heap of ~17 MiB in 4 KiB pages was
    ~4,400 entries handled one by one, in eight huge pages it is a few dozen batches. A child's
    first write to a page still copies that 4 KiB page only, so no child touches more memory;
    the heap is resident already, so the zygote takes no more either. ``MADV_COLLAPSE`` does it
    at once, where ``MADV_HUGEPAGE`` under the usual ``madvise`` setting would wait for
    khugepaged."""
    libc = _libc()
    if libc is None:
        return 0
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            heaps = [line.split()[0] for line in maps if line.rstrip().endswith("[heap]")]
    except OSError:
        return 0  # no /proc: the heap stays in small pages, as it was
    if not heaps:
        return 0
    low, high = (int(bound, 16) for bound in heaps[0].split("-"))
    start = -(-low // _HUGE_PAGE) * _HUGE_PAGE
    end = high // _HUGE_PAGE * _HUGE_PAGE
    # One stretch at a time: a refusal (old kernel, THP off, no free huge page) costs that one.
    return sum(
        libc.madvise(stretch, _HUGE_PAGE, _MADV_COLLAPSE) == 0
        for stretch in range(start, end, _HUGE_PAGE)
    )
