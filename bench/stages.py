"""``python -m bench stages``: where a grade's CPU goes, stage by stage, in the web process, the
zygote and each child, over HTTP against a real ``judge serve`` (every layer on).

The judge runs unchanged, with CPU clocks wrapped around its functions from outside: the server
is started through ``serve_probed`` (which wraps the web process's functions and has the pool
start its zygote through ``zygote_probed``), and the zygote wraps its own and its children's.
A child writes its marks (its CPU clock and minor page faults, read with ``getrusage``, which
the probe adds to the seccomp allowlist of this run only) into a shared region, one slot per
fork; the zygote adds each child's whole usage from ``wait4`` when it reaps it. On SIGUSR2 each
process writes what it has counted so far to a file, read before and after the measured phase.

Each child's stages are medians over the children; the zygote's and the web process's are totals
divided by the grades. A stage timer counts CPU time of the thread it runs on; "rest" is the
thread's CPU the named stages do not cover. Asserts nothing; prints a table or JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import mmap
import os
import resource
import signal
import statistics
import struct
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

OUT = os.path.join(tempfile.gettempdir(), "judge-stages-{role}-{pid}.json")
SLOTS = 8192
SETTLE_S = 2.0  # how long a dump waits for the children of replies already sent to be reaped
# A child's marks, in the order a child passes them.
MARKS = (
    "forked",
    "confining",
    "confined",
    "rehearsing",
    "rehearsed",
    "received",
    "compiled",
    "ready",
    "cases",
    "done",
)
# Each stage a child's table shows: (name, from mark, to mark).
CHILD_STAGES = (
    ("after fork (setsid, signals, siblings' mailboxes)", "forked", "confining"),
    ("confinement layers", "confining", "confined"),
    ("hello", "confined", "rehearsing"),
    ("rehearsal (cut short when the job is there)", "rehearsing", "rehearsed"),
    ("job read (JSON, Job)", "rehearsed", "received"),
    ("compile (helpers, the learner's source)", "received", "compiled"),
    ("module run, ready", "compiled", "ready"),
    ("cases (arguments, the call, guards, checks)", "ready", "cases"),
    ("the reply's end", "cases", "done"),
)
# per slot: written flag, then (cpu seconds, minor faults) per mark, then the reaped child's
# (cpu seconds, minor faults)
SLOT = struct.Struct("<d" + "dd" * len(MARKS) + "dd")


class Timers:
    """CPU seconds of the calling thread, by stage name. A timed call made inside another one
    counts for itself only: the outer one is charged what is left (a fork on demand within
    the zygote's handling of an order is the fork's)."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.nested = threading.local()

    def add(self, name: str, seconds: float) -> None:
        self.cpu[name] = self.cpu.get(name, 0.0) + seconds

    def wrap(self, name: str, fn: Callable[..., Any]) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            stack = self.nested.__dict__.setdefault("stack", [])
            started = time.thread_time()
            stack.append(0.0)
            try:
                return fn(*args, **kwargs)
            finally:
                elapsed = time.thread_time() - started
                self.add(name, elapsed - stack.pop())
                if stack:
                    stack[-1] += elapsed

        return timed

    def wrap_async(self, name: str, fn: Callable[..., Any]) -> Any:
        """For a coroutine that rarely suspends: its CPU, and that of any task run meanwhile."""

        async def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return await fn(*args, **kwargs)
            finally:
                self.add(name, time.thread_time() - started)

        return timed


def _patch(owner: Any, name: str, make: Callable[[Any], Any]) -> None:
    original = getattr(owner, name, None)
    if original is not None:
        setattr(owner, name, make(original))


def _dump_on_signal(role: str, snapshot: Callable[[], dict[str, Any]]) -> None:
    owner = os.getpid()

    def dump(signum: int, frame: Any) -> None:
        if os.getpid() != owner:
            # A child forked as the signal came: the lean fork (sandbox.forking) does not clear
            # the interpreter's pending signals, so the child would answer for the zygote.
            return
        with open(OUT.format(role=role, pid=owner), "w") as out:
            json.dump(snapshot(), out)

    signal.signal(signal.SIGUSR2, dump)


# -- inside the zygote ------------------------------------------------------------------------


def install_zygote() -> None:
    """Wrap the zygote's and its children's functions (runs before the zygote starts)."""
    from sandbox import child, forking, seccomp, zygote
    from sandbox.mailbox import Mailbox

    seccomp.ALLOWED = (*seccomp.ALLOWED, "getrusage")  # the probe's own marks, this run only
    region = mmap.mmap(-1, SLOT.size * SLOTS, flags=mmap.MAP_SHARED)
    state: dict[str, Any] = {"next": 0, "mine": -1, "slots": {}, "marks": {}}
    timers = Timers()

    def mark(name: str) -> None:
        if state["mine"] >= 0:
            usage = resource.getrusage(resource.RUSAGE_SELF)
            state["marks"][name] = (usage.ru_utime + usage.ru_stime, float(usage.ru_minflt))

    def write_marks() -> None:
        row: list[float] = [1.0]
        for name in MARKS:
            row += state["marks"].get(name, (-1.0, -1.0))
        SLOT.pack_into(region, state["mine"] * SLOT.size, *row, 0.0, 0.0)

    real_fork = timers.wrap("fork (the zygote's side)", forking.fork)

    def fork() -> int:
        slot = state["next"]
        state["next"] = (slot + 1) % SLOTS
        pid: int = real_fork()
        if pid == 0:
            state["mine"], state["marks"] = slot, {}
            mark("forked")
            return 0
        state["slots"][pid] = slot
        return pid

    def waitpid(pid: int, options: int) -> tuple[int, int]:
        reaped, status, usage = os.wait4(pid, options)
        slot = state["slots"].pop(reaped, None) if reaped else None
        if slot is not None:
            struct.pack_into(
                "<dd",
                region,
                slot * SLOT.size + SLOT.size - 16,
                usage.ru_utime + usage.ru_stime,
                float(usage.ru_minflt),
            )
        return reaped, status

    forking.fork = fork  # the zygote's one way to fork
    os.waitpid = timers.wrap("reaping (wait)", waitpid)

    def around(before: str, after: str) -> Callable[[Any], Any]:
        def make(fn: Any) -> Any:
            def marked(*args: Any, **kwargs: Any) -> Any:
                if before:
                    mark(before)
                out = fn(*args, **kwargs)
                mark(after)
                return out

            return marked

        return make

    _patch(zygote.Confinement, "apply", around("confining", "confined"))
    _patch(zygote, "rehearse", around("rehearsing", "rehearsed"))
    _patch(zygote, "receive_assignment", around("", "received"))

    def compiled(fn: Any) -> Any:
        def marked(*args: Any, **kwargs: Any) -> Any:
            out = fn(*args, **kwargs)
            if "received" in state["marks"]:
                mark("compiled")  # the last compile of the job: the learner's source
            return out

        return marked

    _patch(child, "_compiled", compiled)

    def send(fn: Any) -> Any:
        def marked(self: Any, message: Any) -> None:
            # A message is a dict, or a typed reply (Ready, End) once the protocol has them.
            kind = (
                message.get("t")
                if isinstance(message, dict)
                else {"Ready": "ready", "End": "end"}.get(type(message).__name__)
            )
            if kind == "end" and "received" in state["marks"]:
                mark("cases")
            fn(self, message)
            if kind == "ready" and "received" in state["marks"]:
                mark("ready")

        return marked

    _patch(Mailbox, "send", send)

    def done(fn: Any) -> Any:
        def marked(self: Any) -> None:
            mark("done")
            write_marks()
            fn(self)

        return marked

    _patch(Mailbox, "mark_done", done)

    for method, label in (
        ("on_control", "orders read, jobs handed to children"),
        ("finish", "a child's end: kill, reply relayed"),
        ("check_budgets", "budgets and lanes"),
    ):
        setattr(zygote.Zygote, method, timers.wrap(label, getattr(zygote.Zygote, method)))

    def snapshot() -> dict[str, Any]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        rows = []
        for index in range(SLOTS):
            row = SLOT.unpack_from(region, index * SLOT.size)
            if row[0] and row[-2] > 0:  # marked and reaped
                rows.append(row[1:])
                SLOT.pack_into(region, index * SLOT.size, *([0.0] * (len(row))))
        return {
            "cpu": usage.ru_utime + usage.ru_stime,
            "faults": usage.ru_minflt,
            "timers": dict(timers.cpu),
            "children": rows,
        }

    _dump_on_signal("zygote", snapshot)


def zygote_probed(workers: int, slow_lane: int) -> list[str]:
    """The zygote's command, with ``install_zygote`` run first."""
    from sandbox import zygote_process

    boot = (
        "import sys; sys.path.insert(0, sys.argv[1]); sys.argv = sys.argv[1:]; "
        "import bench.stages as s; s.install_zygote(); from sandbox.zygote import main; main()"
    )
    root = zygote_process.PROJECT_ROOT
    flags = zygote_process.INTERPRETER_FLAGS
    return [sys.executable, *flags, "-c", boot, root, str(workers), str(slow_lane)]


# -- inside the web process -------------------------------------------------------------------


def install_web() -> None:
    """Wrap the web process's functions, and start the zygote through ``zygote_probed``."""
    from pydantic import BaseModel
    from uvicorn.protocols.http import httptools_impl

    from app import history
    from app.grading import judge, reports
    from app.schemas import Report, Submission
    from sandbox import pool, zygote_process

    zygote_process.command = zygote_probed
    timers = Timers()
    http = httptools_impl
    _patch(http.HttpToolsProtocol, "data_received", lambda fn: timers.wrap("HTTP parse", fn))
    _patch(http.RequestResponseCycle, "send", lambda fn: timers.wrap_async("HTTP reply", fn))
    validate = BaseModel.__dict__["model_validate_json"].__func__
    Submission.model_validate_json = classmethod(  # type: ignore[method-assign,assignment]
        timers.wrap("the body validated", validate)
    )
    _patch(judge.Judge, "_submit_all", lambda fn: timers.wrap("grade: jobs handed over", fn))
    _patch(pool.Pool, "_deliver", lambda fn: timers.wrap("grade: replies read", fn))
    # The report: one function before this session's Submit plan, its rows and the report after.
    _patch(judge, "build_report", lambda fn: timers.wrap("grade: report built", fn))
    for name in ("case_rows", "grade_report"):
        _patch(reports, name, lambda fn: timers.wrap("grade: report built", fn))
    Report.model_dump_json = timers.wrap(  # type: ignore[method-assign]
        "report serialised", Report.model_dump_json
    )
    _patch(history.History, "record", lambda fn: timers.wrap("history: row kept", fn))

    def snapshot() -> dict[str, Any]:
        tick = os.sysconf("SC_CLK_TCK")
        names = {thread.native_id: thread.name for thread in threading.enumerate()}
        threads: dict[str, float] = {}
        for task in os.listdir("/proc/self/task"):
            fields = Path(f"/proc/self/task/{task}/stat").read_text().rsplit(")", 1)[1].split()
            name = names.get(int(task), "other")
            threads[name] = threads.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
        return {"timers": dict(timers.cpu), "threads": threads}

    _dump_on_signal("web", snapshot)


def serve_probed(host: str, port: int) -> None:
    install_web()
    from app.cli import main

    main(["serve", "--host", host, "--port", str(port)])


# -- the driver -------------------------------------------------------------------------------


def _read_dump(role: str, pid: int) -> dict[str, Any]:
    path = Path(OUT.format(role=role, pid=pid))
    path.unlink(missing_ok=True)
    os.kill(pid, signal.SIGUSR2)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            data: dict[str, Any] = json.loads(path.read_text())
            path.unlink()
            return data
        except (FileNotFoundError, ValueError):
            time.sleep(0.05)
    raise SystemExit(f"stages: no counts from the {role} process")


def _reaped(zygote: int, children: int) -> dict[str, Any]:
    """The zygote's counts once ``children`` children have been reaped (or ``SETTLE_S`` has
    passed): the last grade's reply reaches the client before its child is reaped, and each dump
    hands over the children it holds only once, so later dumps' children are added."""
    counts = _read_dump("zygote", zygote)
    deadline = time.monotonic() + SETTLE_S
    while len(counts["children"]) < children and time.monotonic() < deadline:
        time.sleep(0.02)
        later = _read_dump("zygote", zygote)
        later["children"] = counts["children"] + later["children"]
        counts = later
    return counts


def measure(requests: int, concurrency: int, exercise_id: str) -> dict[str, Any]:
    from app.catalog import EXERCISES_DIR, Catalog
    from bench.loadtest.compare import submissions
    from bench.loadtest.measuring import measure as load
    from bench.loadtest.servers import base_url, free_port, running_server, scratch_environment

    exercise = Catalog.load(EXERCISES_DIR).get(exercise_id)
    if exercise is None:
        raise SystemExit(f"stages: unknown exercise {exercise_id!r}")
    bodies = submissions(exercise.solution_code)
    path = f"/api/exercises/{exercise.id}/submissions"
    with tempfile.TemporaryDirectory(prefix="judge-stages-") as scratch:
        env = scratch_environment(scratch, EXERCISES_DIR)
        host, port = "127.0.0.1", free_port("127.0.0.1")
        url = base_url(host, port)
        boot = "import sys; import bench.stages as s; s.serve_probed(sys.argv[1], int(sys.argv[2]))"
        command = [sys.executable, "-c", boot, host, str(port)]
        with running_server(command, url, env, Path(scratch) / "server.log") as health:
            pid = int(health["pid"])
            zygote = int(health["pool"]["zygote_pid"])
            asyncio.run(load(url, path, bodies, count=50, duration=30, concurrency=1, client="raw"))
            time.sleep(SETTLE_S)  # the warm-up's last children reaped, not counted as measured
            web0, zyg0 = _read_dump("web", pid), _read_dump("zygote", zygote)
            load_start = os.getloadavg()
            row = asyncio.run(
                load(
                    url,
                    path,
                    bodies,
                    count=requests,
                    duration=60,
                    concurrency=concurrency,
                    client="raw",
                )
            )
            web1, zyg1 = _read_dump("web", pid), _reaped(zygote, requests)
    return summarise(row, web0, web1, zyg0, zyg1, load_start, os.getloadavg())


def _per_grade(before: dict[str, float], after: dict[str, float], grades: int) -> dict[str, float]:
    return {k: round((v - before.get(k, 0.0)) * 1000 / grades, 3) for k, v in after.items()}


def summarise(
    row: dict[str, Any],
    web0: dict[str, Any],
    web1: dict[str, Any],
    zyg0: dict[str, Any],
    zyg1: dict[str, Any],
    load_start: tuple[float, float, float],
    load_end: tuple[float, float, float],
) -> dict[str, Any]:
    grades = row["grades"] or 1
    web = _per_grade(web0["timers"], web1["timers"], grades)
    threads = _per_grade(web0["threads"], web1["threads"], grades)
    main = threads.pop("MainThread", 0.0)
    reader = threads.pop("sandbox-reader", 0.0)
    replies = web.pop("grade: replies read", 0.0)
    web_stages = {**web, "rest of the event loop's thread": round(main - sum(web.values()), 3)}
    web_stages["grade: replies read (pool reader thread)"] = replies
    web_stages["rest of the pool reader thread"] = round(reader - replies, 3)
    for name, ms in sorted(threads.items()):
        web_stages[f"thread {name}"] = ms
    zygote = _per_grade(zyg0["timers"], zyg1["timers"], grades)
    zygote_cpu = round((zyg1["cpu"] - zyg0["cpu"]) * 1000 / grades, 3)
    zygote["rest (select, dispatch, bookkeeping)"] = round(zygote_cpu - sum(zygote.values()), 3)
    children = zyg1["children"]
    index = {name: i for i, name in enumerate(MARKS)}

    def stage(a: str, b: str) -> dict[str, float]:
        pairs = [
            (r[2 * index[b]] - r[2 * index[a]], r[2 * index[b] + 1] - r[2 * index[a] + 1])
            for r in children
            if r[2 * index[a]] >= 0 and r[2 * index[b]] >= 0
        ]
        if not pairs:
            return {"cpu_ms": 0.0, "faults": 0.0}
        return {
            "cpu_ms": round(statistics.median(p[0] for p in pairs) * 1000, 3),
            "faults": statistics.median(p[1] for p in pairs),
        }

    child = {name: stage(a, b) for name, a, b in CHILD_STAGES}
    done = 2 * index["done"]
    child["teardown (after the reply, until reaped)"] = {
        "cpu_ms": round(statistics.median(r[-2] - r[done] for r in children) * 1000, 3),
        "faults": statistics.median(r[-1] - r[done + 1] for r in children),
    }
    child_total = [r[-2] for r in children]
    return {
        "exercise_grades": grades,
        "grades_per_s": row["grades_per_s"],
        "concurrency": row["concurrency"],
        "load_average": {"start": load_start, "end": load_end},
        "web_ms": {**web_stages, "total": round(main + reader + sum(threads.values()), 3)},
        "zygote_ms": {**zygote, "total": zygote_cpu},
        "zygote_faults": round((zyg1["faults"] - zyg0["faults"]) / grades, 1),
        "child": child,
        "child_total": {
            "cpu_ms_median": round(statistics.median(child_total) * 1000, 3),
            "cpu_ms_per_grade": round(sum(child_total) * 1000 / grades, 3),
            "faults_median": statistics.median(r[-1] for r in children),
            "children": len(children),
        },
        "other": row["other"],
    }


def print_table(s: dict[str, Any]) -> None:
    load = s["load_average"]
    print(
        f"judge stages: {s['exercise_grades']} unique-source grades at c={s['concurrency']}, "
        f"{s['grades_per_s']} grades/s; load average {load['start'][0]:.2f} at start, "
        f"{load['end'][0]:.2f} at end"
    )
    print("web process, CPU ms per grade:")
    for name, ms in s["web_ms"].items():
        print(f"  {name:<52}{ms:8.3f}")
    print(f"zygote, CPU ms per grade ({s['zygote_faults']} minor faults per grade):")
    for name, ms in s["zygote_ms"].items():
        print(f"  {name:<52}{ms:8.3f}")
    total = s["child_total"]
    print(
        f"child, medians over {total['children']} children (CPU ms, minor faults); "
        f"{total['cpu_ms_per_grade']:.3f} ms of children's CPU per grade:"
    )
    for name, row in s["child"].items():
        print(f"  {name:<52}{row['cpu_ms']:8.3f}{row['faults']:8.0f}")
    print(f"  {'total':<52}{total['cpu_ms_median']:8.3f}{total['faults_median']:8.0f}")
    if s["other"]:
        print(f"WARNING: responses that were not accepted grades: {s['other']}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench stages", description=__doc__)
    parser.add_argument("--requests", type=int, default=400, help="grades measured (400)")
    parser.add_argument("--concurrency", type=int, default=8, help="requests in flight (8)")
    parser.add_argument("--exercise", default="speculative-decoding-verify")
    parser.add_argument("--json", action="store_true", help="print JSON")
    options = parser.parse_args(argv)
    if not 1 <= options.requests <= 20_000 or not 1 <= options.concurrency <= 64:
        raise SystemExit("stages: --requests within 1..20000, --concurrency within 1..64")
    summary = measure(options.requests, options.concurrency, options.exercise)
    if options.json:
        print(json.dumps(summary, indent=2))
    else:
        print_table(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
