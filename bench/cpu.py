"""CPU time of a process tree, read from /proc: what a benchmark's grades cost the machine."""

from __future__ import annotations

import os
from pathlib import Path

_TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> tuple[float, float]:
    """(the process's own CPU seconds, its descendants' including reaped ones), from /proc.

    Each process counts its own time plus that of the children it has waited for, so the
    zygote's forked children and the fresh interpreters are included once they exit. For the
    judge the first part is the web process, the second the sandbox.
    """
    parents: dict[int, int] = {}
    own: dict[int, float] = {}
    reaped: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields[0] is the state (stat field 3): ppid is field 4, utime..cstime fields 14-17.
        parents[int(entry.name)] = int(fields[1])
        own[int(entry.name)] = (int(fields[11]) + int(fields[12])) / _TICK
        reaped[int(entry.name)] = (int(fields[13]) + int(fields[14])) / _TICK
    tree, frontier = {pid}, {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - tree
        tree |= frontier
    rest = sum(own.get(p, 0.0) for p in tree - {pid}) + sum(reaped.get(p, 0.0) for p in tree)
    return own.get(pid, 0.0), rest
