"""Reading the process table from /proc, for tests that check nothing is left running."""

from __future__ import annotations

from pathlib import Path


def stat_fields() -> dict[int, list[str]]:
    """pid -> the fields of /proc/PID/stat after the command name: [0] state, [1] parent pid,
    [11] utime, [12] stime, [19] start time (clock ticks)."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        table[int(entry.name)] = stat[stat.rindex(")") + 2 :].split()
    return table
