"""Trace which syscalls confined children make, to derive or check the seccomp allowlist.

Runs a command (by default the legitimate-code tests and the golden submissions) under
``strace -f -ff``, so every process of the run, the zygote's children included, gets its own
trace file. In each trace, only the calls after the child installed its filter count (the
``prctl(PR_SET_SECCOMP, ...)`` line): what a confined child needs, not what the zygote or the
confinement itself did. Prints, for every syscall seen, in how many confined children it was
made, the arguments the filter looks at (ioctl requests, prctl options, open flags, ...), and
how it compares with ``sandbox.seccomp.ALLOWED`` and ``ARGUMENT_RULES``. Calls that failed
with EPERM, ENOSYS or EACCES are listed apart: a layer may have refused them, and a test that
now fails may need one.

    sudo .venv/bin/python tools/trace_syscalls.py              # the default command
    sudo .venv/bin/python tools/trace_syscalls.py -- .venv/bin/judge grade EXERCISE FILE
    sudo .venv/bin/python tools/trace_syscalls.py --json ...   # machine-readable

Run it as root, as CI does, so the children drop to another uid exactly as in production.
Needs strace (``apt-get install -y strace``). See docs/seccomp.md.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sandbox.seccomp import ALLOWED, ARGUMENT_RULES, NOT_IMPLEMENTED  # noqa: E402

DEFAULT_TESTS = (
    "tests/test_solutions.py",
    "tests/test_exercises.py",
    "tests/sandbox/policy/test_learner_code.py",
    "tests/sandbox/test_generators.py",
    "tests/sandbox/test_rehearsal.py",
    "tests/sandbox/test_deadlines.py",
)
# The argument the filter (or a reader of the list) cares about, by syscall: its index.
DETAIL_ARGUMENT = {
    "ioctl": 1,
    "prctl": 0,
    "openat": 2,
    "open": 1,
    "prlimit64": 0,
    "fcntl": 1,
    "madvise": 2,
    "futex": 1,
    "clock_gettime": 0,
    "rt_sigprocmask": 0,
    "mmap": 2,
    "mprotect": 2,
}
CALL = re.compile(r"^(?:\d+ +)?([a-z_][a-z0-9_]*)\((.*)")
RESULT = re.compile(r"\)\s+= (-?\w+)(?: (E[A-Z0-9]+))?")
FILTER_LOADED = re.compile(r"^(?:prctl\(PR_SET_SECCOMP, SECCOMP_MODE_FILTER|seccomp\(SECCOMP_SET)")


def split_arguments(text: str) -> list[str]:
    """The top-level, comma-separated arguments of one strace call line (after the ``(``)."""
    parts, depth, current, quoted = [], 0, [], False
    for index, char in enumerate(text):
        if quoted:
            current.append(char)
            if char == '"' and text[index - 1] != "\\":
                quoted = False
            continue
        if char == '"':
            quoted = True
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    parts.append("".join(current).strip())
    return parts


def detail(name: str, arguments: str) -> str | None:
    index = DETAIL_ARGUMENT.get(name)
    if index is None:
        return None
    parts = split_arguments(arguments)
    if index >= len(parts):
        return None
    value = parts[index]
    if name in ("open", "openat"):  # the access mode and the flags that could write
        value = "|".join(flag for flag in value.split("|") if not flag.startswith("O_CLOEXEC"))
    return value


class Tally:
    """What the confined children of one run called."""

    def __init__(self) -> None:
        self.children = 0
        self.calls: Counter[str] = Counter()  # syscall -> confined children that made it
        self.details: dict[str, Counter[str]] = defaultdict(Counter)
        self.failed: dict[str, Counter[str]] = defaultdict(Counter)  # syscall -> errno -> count

    def add_trace(self, path: Path) -> None:
        confined = False
        seen: set[str] = set()
        for line in path.read_text(errors="replace").splitlines():
            if not confined:
                confined = bool(FILTER_LOADED.match(line)) and line.rstrip().endswith("= 0")
                continue
            match = CALL.match(line)
            if not match:
                continue  # signals (--- SIG ---), exits (+++), resumptions
            name, rest = match.groups()
            seen.add(name)
            value = detail(name, rest)
            if value is not None:
                self.details[name][value] += 1
            result = RESULT.search(rest)
            if result and result.group(2) in ("EPERM", "ENOSYS", "EACCES"):
                self.failed[name][result.group(2)] += 1
        if confined:
            self.children += 1
            self.calls.update(seen)

    def report(self) -> dict[str, object]:
        allowed = set(ALLOWED) | {name for name, _ in ARGUMENT_RULES}
        traced = set(self.calls)
        return {
            "confined_children": self.children,
            "calls": dict(sorted(self.calls.items())),
            "details": {name: dict(counts.most_common()) for name, counts in self.details.items()},
            "failed": {name: dict(counts) for name, counts in sorted(self.failed.items())},
            "traced_not_allowed": sorted(traced - allowed - set(NOT_IMPLEMENTED)),
            "allowed_not_traced": sorted(allowed - traced),
        }


def run_traced(command: list[str], directory: Path) -> int:
    strace = shutil.which("strace")
    if strace is None:
        raise SystemExit("trace_syscalls: strace not found (apt-get install -y strace)")
    traced = [strace, "-f", "-ff", "-qq", "-s", "0", "-o", str(directory / "trace"), *command]
    return subprocess.run(traced, cwd=ROOT, check=False).returncode


def print_report(report: dict[str, object], status: int) -> None:
    print(f"command exit status: {status}; confined children traced: {report['confined_children']}")
    calls = report["calls"]
    assert isinstance(calls, dict)
    print(f"\n{len(calls)} syscalls made after confinement (children that made each):")
    for name, count in calls.items():
        print(f"  {name:24} {count}")
    details = report["details"]
    assert isinstance(details, dict)
    print("\narguments the filter looks at:")
    for name, counts in sorted(details.items()):
        shown = ", ".join(f"{value} x{n}" for value, n in list(counts.items())[:12])
        print(f"  {name}: {shown}")
    print("\nfailed with EPERM/ENOSYS/EACCES (refused by a layer, or a libc fallback):")
    for name, codes in dict(report["failed"]).items():  # type: ignore[call-overload]
        print(f"  {name}: {codes}")
    print(f"\ntraced but not allowed: {report['traced_not_allowed'] or 'none'}")
    print(f"allowed but not traced in this run: {report['allowed_not_traced'] or 'none'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the tally as JSON")
    parser.add_argument("--keep", type=Path, help="keep the raw traces in this directory")
    parser.add_argument("command", nargs="*", help="what to trace (after --)")
    args = parser.parse_args()
    command = args.command or [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    if not args.command:
        command += list(DEFAULT_TESTS)
    with tempfile.TemporaryDirectory(prefix="judge-strace-") as scratch:
        directory = args.keep or Path(scratch)
        directory.mkdir(parents=True, exist_ok=True)
        status = run_traced(command, directory)
        tally = Tally()
        for path in sorted(directory.glob("trace.*")):
            tally.add_trace(path)
    report = tally.report()
    if args.json:
        print(json.dumps({"status": status, **report}, indent=2))
    else:
        print_report(report, status)
    return 0


if __name__ == "__main__":
    sys.exit(main())
