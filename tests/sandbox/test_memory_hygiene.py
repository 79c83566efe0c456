"""Freed memory in the zygote (and so in every child) holds a pattern, not earlier jobs' bytes."""

from __future__ import annotations

import os
import subprocess
import sys

from sandbox.pool import zygote_environment

# Frees bytes holding a marker, then reads uninitialised numpy memory of many sizes, as an
# uninitialised-read bug in a child would.
SCAN = """
import numpy as np
hits = 0
for _ in range(10):
    blobs = [(b"EARLIER-JOB-%05d-" % i) * 300 for i in range(50)]
    del blobs
    for size in range(1000, 40000, 1000):
        hits += np.empty(size, dtype=np.uint8).tobytes().count(b"EARLIER-JOB-")
print(hits)
"""


def leftover_hits(env: dict[str, str]) -> int:
    done = subprocess.run(
        [sys.executable, "-I", "-c", SCAN], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_the_zygotes_allocator_wipes_what_it_frees() -> None:
    bare = {k: v for k, v in zygote_environment().items() if k != "GLIBC_TUNABLES"}
    assert leftover_hits(bare) > 0  # without the tunables the scan does find leftovers
    assert leftover_hits(zygote_environment()) == 0


def test_an_operators_own_tunables_are_kept_and_ours_come_last(monkeypatch) -> None:
    monkeypatch.setitem(os.environ, "GLIBC_TUNABLES", "glibc.malloc.arena_max=2")
    tunables = zygote_environment()["GLIBC_TUNABLES"].split(":")
    assert tunables[0] == "glibc.malloc.arena_max=2"
    assert "glibc.malloc.perturb=165" in tunables[1:]
