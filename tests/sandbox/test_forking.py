"""The zygote's fork (sandbox/forking.py): glibc's, without the interpreter's after-fork work,
only in a single-threaded process, and with random's reseed kept.

Each script runs in a fresh interpreter started as the zygote is: a process that already forked
or started threads (this test process) would not show what the zygote sees."""

from __future__ import annotations

from sandbox import Job, Limits, Pool
from tests.probe import printed_as_zygote

LEAN_CHILD = """
import os, random, sys
sys.path.insert(0, sys.argv[1])
from sandbox import forking
lean = forking.lean_fork()
random.seed(7)
seeded = random.Random(7).random()
codes, draws, same_pid = [], [], True
for _ in range(2):
    read_end, write_end = os.pipe()
    pid = forking.fork()
    if pid == 0:
        os.write(write_end, f"{os.getpid()} {random.random()!r}".encode())
        os._exit(3)
    os.close(write_end)
    child_pid, drawn = os.read(read_end, 200).decode().split()
    _, status = os.waitpid(pid, 0)
    codes.append(os.waitstatus_to_exitcode(status))
    draws.append(drawn)
    same_pid = same_pid and pid == int(child_pid)
fresh = repr(seeded) not in draws and draws[0] != draws[1]
print(lean, same_pid, *codes, fresh)
"""


def test_a_single_threaded_process_forks_a_child_that_runs_reports_and_exits() -> None:
    # Each child is a real process (its own pid, its exit status) with a random state of its
    # own: not the one the parent was seeded with before the fork, nor its sibling's.
    assert printed_as_zygote(LEAN_CHILD) == ["True", "True", "3", "3", "True"]


WITH_A_THREAD = """
import sys, threading
sys.path.insert(0, sys.argv[1])
from sandbox import forking
stop = threading.Event()
thread = threading.Thread(target=stop.wait)
thread.start()
print(forking.single_threaded(), forking.lean_fork())
stop.set()
thread.join()
"""


def test_a_process_running_a_second_thread_forks_the_interpreters_way() -> None:
    # Another thread could hold a lock the fork copies: then os.fork(), which re-creates them.
    assert printed_as_zygote(WITH_A_THREAD) == ["False", "False"]


WARM_ZYGOTE = """
import sys
sys.path.insert(0, sys.argv[1])
from sandbox import forking
from sandbox.zygote import Zygote
zygote = Zygote(1)
zygote.warm()
print(forking.single_threaded(), forking._lean)
"""


def test_the_warm_zygote_runs_one_thread_and_forks_lean() -> None:
    # Were an import to start a thread (a BLAS pool, say), the zygote would lose the lean fork:
    # this is where that shows.
    assert printed_as_zygote(WARM_ZYGOTE) == ["True", "True"]


def test_children_of_the_zygote_draw_other_numbers_from_an_unseeded_random() -> None:
    job = Job(
        code="import random\ndef f(x):\n    return random.random()\n",
        entry_point="f",
        cases=({"x": 1},),
        parameters={"x": "value"},
        limits=Limits(),
    )
    with Pool(workers=1) as pool:
        drawn = [pool.run(job, timeout=30).cases[0].value for _ in range(3)]
    assert all(value is not None and value["t"] == "float" for value in drawn)
    assert len({value["v"] for value in drawn}) == 3, drawn
