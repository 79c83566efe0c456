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


def memory_matches(pid: int, needle: bytes, tail: int = 0) -> list[bytes]:
    """Every occurrence of ``needle`` in the readable memory of ``pid`` (and ``tail`` bytes after
    each), read through /proc/PID/mem: root may read any process, even a non-dumpable one."""
    found: list[bytes] = []
    chunk = 1 << 22
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for line in maps:
            span, perms = line.split()[:2]
            if not perms.startswith("r") or line.rstrip().endswith("[vvar]"):
                continue
            start, end = (int(edge, 16) for edge in span.split("-"))
            carry = b""  # the end of the previous chunk: a match may straddle two
            for offset in range(start, end, chunk):
                try:
                    mem.seek(offset)
                    data = mem.read(min(chunk, end - offset))
                except OSError:  # a region the kernel will not hand out (e.g. device memory)
                    break
                window = carry + data
                at = window.find(needle)
                while at >= 0:
                    if at + len(needle) > len(carry):  # not already counted with the carry
                        found.append(window[at : at + len(needle) + tail])
                    at = window.find(needle, at + 1)
                carry = data[-(len(needle) + tail) :]
    return found
