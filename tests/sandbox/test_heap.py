"""The zygote's heap has no free chunk left below its top once warm (sandbox/heap.py).

Run in a fresh interpreter with the zygote's allocator settings: holes are made on purpose (every
other block of a few thousand freed), then filled, once.
"""

from __future__ import annotations

import os
import subprocess
import sys

from sandbox.pool import INTERPRETER_FLAGS, PROJECT_ROOT, zygote_environment

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
    env = {**zygote_environment(), "PATH": os.environ.get("PATH", "")}
    out = subprocess.run(
        [sys.executable, *INTERPRETER_FLAGS, "-c", HOLES_FILLED, PROJECT_ROOT],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    before, taken, after, again = map(int, out)
    assert before > 200_000  # the holes made above
    assert taken > 1000
    # What is left below the top is smaller than the smallest size fill_holes asks for.
    assert after < 4096
    assert again == 0  # filled once: later holes are the zygote's own working memory
