"""Hostile learner code against the real judge: files, the environment, the network, processes
and threads (see hostile.py).
"""

from __future__ import annotations

import json
import os
import select
import socket
from pathlib import Path

import pytest

from app.grading.judge import Judge
from app.schemas import Status, Verdict
from tests.sandbox.hostile import (
    CANARY,
    EXERCISE,
    EXERCISE_DIR,
    REPO,
    assert_first_case_stopped,
    assert_nothing_ran,
    dir_listing,
    grade,
    on_first_case,
    process_table,
    settled_children,
)

# -- the exercise folder, other files, the environment --------------------------------------

READERS = {
    "open": "open(PATH).read()",
    "np.loadtxt": "np.loadtxt(PATH, dtype=str)",
    "np.genfromtxt": "np.genfromtxt(PATH, dtype=str)",
    "np.fromfile": "np.fromfile(PATH, dtype=np.uint8)",
    "np.fromregex": "np.fromregex(PATH, '(.*)', [('line', 'U100')])",
    "np.load": "np.load(PATH, allow_pickle=True)",
    "np.memmap": "np.memmap(PATH, dtype=np.uint8, mode='r')",
    "np.DataSource": "np.DataSource(None).open(PATH).read()",
    "print to a file": "print(open(PATH).read())",
}


@pytest.mark.parametrize("reader", list(READERS))
def test_a_world_readable_file_cannot_be_read(
    hostile_judge: Judge, open_dir: Path, reader: str
) -> None:
    path = open_dir / "secret.txt"
    body = f"data = {READERS[reader]}\nprint(data)\nreturn [str(data)], 0"
    report, _ = grade(hostile_judge, on_first_case(body.replace("PATH", repr(str(path)))))
    assert_first_case_stopped(report, Verdict.runtime_error)  # and grade() checked SECRET


@pytest.mark.parametrize(
    "path",
    [
        EXERCISE_DIR / "cases.json",
        EXERCISE_DIR / "solution.py",
        REPO / "app" / "config.py",
        Path("/proc/self/environ"),
        Path("/proc/1/environ"),
        Path(f"/proc/{os.getpid()}/environ"),  # the test process: it holds the canary
        Path(f"/proc/{os.getpid()}/cmdline"),
    ],
    ids=lambda path: str(path).replace(str(REPO), "<repo>"),
)
def test_the_exercise_folder_and_other_processes_cannot_be_read(
    hostile_judge: Judge, path: Path
) -> None:
    attempts = """
        found = []
        for reader in (lambda: open(PATH).read(), lambda: np.loadtxt(PATH, dtype=str),
                       lambda: np.fromfile(PATH, dtype=np.uint8), lambda: np.load(PATH)):
            try:
                found.append(str(reader()))
            except Exception as error:
                found.append(str(error))
        print(found)
        return found, len(found)
    """
    report, _ = grade(hostile_judge, on_first_case(attempts.replace("PATH", repr(str(path)))))
    assert_first_case_stopped(report, Verdict.wrong_answer)  # grade() checked every secret
    if path.name == "cases.json":
        expected = json.dumps(EXERCISE.cases[4].expected["value"])
        assert "zero probabilities" not in (report.tests[0].output or "")
        assert expected not in (report.tests[0].output or "")


ENVIRONMENT_READERS = {
    "format through module globals": (
        "import statistics\n"
        "return [str.format('{0.__globals__[sys].modules[os].environ}', statistics.mean)], 1"
    ),
    "format through the policy": ("return ['{0.__self__.modules}'.format(getattr)], 1"),
    "/proc/self/environ": "return [open('/proc/self/environ').read()], 1",
    "DataSource environ": "return [np.DataSource(None).open('/proc/self/environ').read()], 1",
}


@pytest.mark.parametrize("name", list(ENVIRONMENT_READERS))
def test_the_environment_cannot_be_read(hostile_judge: Judge, name: str) -> None:
    assert os.environ["JUDGE_CANARY"] == CANARY  # the judge was started with it set
    report, _ = grade(hostile_judge, on_first_case(ENVIRONMENT_READERS[name]))
    assert_first_case_stopped(report, Verdict.runtime_error)  # grade() checked the canary


# -- writing files ----------------------------------------------------------------------------

WRITERS = {
    "open for writing": "open(PATH, 'w').write('pwned')",
    "print(file=...)": "print('pwned', file=PATH)",
    "np.save": "np.save(PATH, np.zeros(2))",
    "np.savetxt": "np.savetxt(PATH, np.zeros(2))",
    "ndarray.tofile": "np.zeros(2).tofile(PATH)",
    "ndarray.dump": "np.zeros(2).dump(PATH)",
    "np.memmap w+": "np.memmap(PATH, mode='w+', shape=(4,))",
}


@pytest.mark.parametrize("writer", list(WRITERS))
def test_files_cannot_be_written(hostile_judge: Judge, open_dir: Path, writer: str) -> None:
    target = open_dir / f"written-{list(WRITERS).index(writer)}"
    before = dir_listing(open_dir)
    body = WRITERS[writer].replace("PATH", repr(str(target))) + "\nreturn [], 0"
    report, _ = grade(hostile_judge, on_first_case(body))
    assert report.verdict != Verdict.accepted
    assert report.tests[0].status != Status.passed
    assert [test.status for test in report.tests[1:]] == [Status.passed] * 5
    assert not target.exists()
    assert dir_listing(open_dir) == before
    if writer == "print(file=...)":  # the keyword is ignored: the text is captured output
        assert report.tests[0].output == "pwned\n"
    else:
        assert report.verdict == Verdict.runtime_error


# -- sockets, processes, threads ------------------------------------------------------------

CONNECTORS = {
    "np.DataSource url": "np.DataSource(None).open('http://127.0.0.1:PORT/')",
    "np.loadtxt url": "np.loadtxt('http://127.0.0.1:PORT/')",
}


@pytest.mark.parametrize("connector", list(CONNECTORS))
def test_no_connection_can_be_opened(hostile_judge: Judge, connector: str) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        body = CONNECTORS[connector].replace("PORT", str(port)) + "\nreturn [], 0"
        report, _ = grade(hostile_judge, on_first_case(body))
        assert_first_case_stopped(report, Verdict.runtime_error)
        readable, _, _ = select.select([listener], [], [], 0.2)
        assert readable == [], "a connection reached the test's listener"


# Whole modules whose only use here is the attack: the compiler refuses the import statement,
# with its line, so none of this code runs at all.
SLEEP_FOR = "30.0417"  # seconds: a duration no other program here asks for
IMPORTED_ATTACKS = {
    "environment via os.environ": "import os\nreturn [os.environ['JUDGE_CANARY']], 1",
    "environment via os.getenv": "import os\nreturn [os.getenv('JUDGE_CANARY')], 1",
    "write via pathlib": "import pathlib\npathlib.Path(PATH).write_text('pwned')",
    "write via shutil": "import shutil\nshutil.copy('/etc/hostname', PATH)",
    "write via tempfile": "import tempfile\ntempfile.mkstemp(dir=PATH)",
    "write via io": "import io\nio.open(PATH, 'w').write('pwned')",
    "connect via socket": "import socket\nsocket.create_connection(('127.0.0.1', PORT))",
    "connect via urllib": "import urllib.request\nurllib.request.urlopen('http://127.0.0.1:PORT/')",
    "connect via http.client": (
        "import http.client\nhttp.client.HTTPConnection('127.0.0.1', PORT).request('GET', '/')"
    ),
    "spawn via os.fork": "import os\nos.fork()",
    "spawn via os.system": f"import os\nos.system('sleep {SLEEP_FOR}')",
    "spawn via subprocess": f"import subprocess\nsubprocess.Popen(['sleep', '{SLEEP_FOR}'])",
    "spawn via threading": "import threading\nthreading.Thread(target=print).start()",
    "spawn via multiprocessing": (
        "import multiprocessing\nmultiprocessing.Process(target=print).start()"
    ),
    "spawn via concurrent.futures": (
        "import concurrent.futures\nconcurrent.futures.ThreadPoolExecutor().submit(print)"
    ),
}


@pytest.mark.parametrize("attack", list(IMPORTED_ATTACKS))
def test_attacks_that_import_a_module_are_refused_before_running(
    hostile_judge: Judge, open_dir: Path, attack: str
) -> None:
    target = open_dir / f"imported-{list(IMPORTED_ATTACKS).index(attack)}"
    before_files, before_processes = dir_listing(open_dir), set(process_table())
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        body = (
            IMPORTED_ATTACKS[attack]
            .replace("PATH", repr(str(target)))
            .replace("PORT", str(listener.getsockname()[1]))
        )
        report, _ = grade(hostile_judge, on_first_case(body + "\nreturn [], 0"))
        module = body.split()[1]  # grade() checked the canary and the secrets too
        assert_nothing_ran(report, Verdict.rejected, f"import of '{module}' is not allowed")
        assert "line " in (report.message or "")
        assert select.select([listener], [], [], 0.2)[0] == [], "a connection was made"
    assert not target.exists() and dir_listing(open_dir) == before_files
    # Nothing new under the zygote but its spares, and no orphaned 'sleep' of the attacks'
    # anywhere (their odd duration tells it from another program's sleep on this machine).
    zygote = hostile_judge.pool.status()["zygote_pid"]
    table, kids = settled_children(zygote, hostile_judge.pool.workers)
    for pid in set(table) - before_processes:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        assert SLEEP_FOR.encode() not in command, f"process {pid} was started: {command!r}"
    assert len(kids) <= hostile_judge.pool.workers
