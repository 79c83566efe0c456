"""The zygote's heap has no free chunk left below its top once warm (sandbox/heap.py).

Run in a fresh interpreter with the zygote's allocator settings: holes are made on purpose (every
other block of a few thousand freed), then filled, once.
"""

from __future__ import annotations

import os

import pytest

from tests.probe import printed_as_zygote

HOLES_FILLED = """
import sys
sys.path.insert(0, sys.argv[1])
from sandbox import heap

libc = heap._libc()
assert libc is not None, "glibc expected"

def free_below_top():
    info = libc.mallinfo2()
    return info.fordblks - info.keepcost

blocks = [bytes(200 + i % 7 * 40) for i in range(4000)]
del blocks[::2]  # holes all over the heap
before = free_below_top()
taken = heap.fill_holes()
after = free_below_top()
print(before, taken, after, heap.fill_holes())
"""


def test_fill_holes_takes_every_free_chunk_below_the_top() -> None:
    out = printed_as_zygote(HOLES_FILLED)
    before, taken, after, again = map(int, out)
    assert before > 200_000  # the holes made above
    assert taken > 1000
    # What is left below the top is smaller than the smallest size fill_holes asks for.
    assert after < 4096
    assert again == 0  # filled once: later holes are the zygote's own working memory


HEAP_COLLAPSED = """
import sys
sys.path.insert(0, sys.argv[1])
from sandbox import heap

blocks = [bytes(300) for i in range(40_000)]  # a warm zygote's heap: ~12 MiB, resident
stretches = heap.collapse()
huge_kb = 0
with open("/proc/self/smaps") as smaps:
    in_heap = False
    for line in smaps:
        if line[0] in "0123456789abcdef" and "-" in line.split()[0]:
            in_heap = line.rstrip().endswith("[heap]")
        elif in_heap and line.startswith("AnonHugePages:"):
            huge_kb = int(line.split()[1])
print(stretches, huge_kb)
"""


def _why_no_collapse() -> str | None:
    """Why this kernel cannot collapse a range into huge pages, or None if it can."""
    release = tuple(int(part) for part in os.uname().release.split(".")[:2] if part.isdigit())
    if release < (6, 1):
        return f"MADV_COLLAPSE needs Linux 6.1, this is {os.uname().release}"
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as setting:
            if "[never]" in setting.read():
                return "transparent huge pages are set to never on this machine"
    except OSError:
        return "this kernel has no transparent huge pages"
    return None


def test_collapse_backs_the_heap_by_huge_pages() -> None:
    out = printed_as_zygote(HEAP_COLLAPSED)
    stretches, huge_kb = map(int, out)
    # What collapse says it did is what the kernel shows, whichever way it went.
    assert huge_kb == stretches * 2048
    reason = _why_no_collapse()
    if reason is not None:
        pytest.skip(reason)
    assert stretches >= 4  # ~12 MiB of heap holds at least four whole 2 MiB stretches
