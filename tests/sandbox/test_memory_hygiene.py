"""Freed memory in the zygote (and so in every child) holds a pattern, not earlier jobs' bytes.

Each scan frees blocks holding a marker, then reads memory that comes back uninitialised, as a
bug in a child would: numpy's ``np.empty`` for glibc's heap, and ``numpy.bytes_.byteswap()``
(which copies nothing into its fresh block) for Python's small objects.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from sandbox.zygote_process import INTERPRETER_FLAGS
from sandbox.zygote_process import environment as zygote_environment

LARGE_BLOCKS = """
import numpy as np
hits = 0
for _ in range(10):
    blobs = [(b"EARLIER-JOB-%05d-" % i) * 300 for i in range(50)]
    del blobs
    for size in range(1000, 40000, 1000):
        hits += np.empty(size, dtype=np.uint8).tobytes().count(b"EARLIER-JOB-")
print(hits)
"""
SMALL_OBJECTS = """
import numpy as np
MARK = b"EARLIER-JOB-"
CLASSES = list(range(512, 63, -16))
readers = [np.array([b"y" * size])[0] for size in CLASSES]
hits = 0
for _ in range(3):
    blobs = [MARK * (size // len(MARK)) for size in CLASSES for _ in range(60)]
    del blobs
    keep = []
    for size, reader in zip(CLASSES, readers):
        for _ in range(80):
            hits += MARK in reader.byteswap().tobytes()
            keep.append(b"f" * (size - 33))  # take the block just read off the free list
print(hits)
"""


def leftover_hits(scan: str, flags: list[str], env: dict[str, str]) -> int:
    done = subprocess.run(
        [sys.executable, *flags, "-c", scan], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


@pytest.mark.parametrize("scan", [LARGE_BLOCKS, SMALL_OBJECTS], ids=["glibc heap", "small objects"])
def test_the_zygotes_allocators_wipe_what_they_free(scan: str) -> None:
    plain = {k: v for k, v in zygote_environment().items() if k not in ("GLIBC_TUNABLES",)}
    assert leftover_hits(scan, ["-I"], plain) > 0  # a plain interpreter does show leftovers
    assert leftover_hits(scan, list(INTERPRETER_FLAGS), zygote_environment()) == 0


def test_an_operators_own_tunables_are_kept_and_ours_come_last(monkeypatch) -> None:
    monkeypatch.setitem(os.environ, "GLIBC_TUNABLES", "glibc.malloc.arena_max=2")
    tunables = zygote_environment()["GLIBC_TUNABLES"].split(":")
    assert tunables[0] == "glibc.malloc.arena_max=2"
    assert "glibc.malloc.perturb=165" in tunables[1:]
