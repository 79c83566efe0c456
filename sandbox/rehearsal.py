"""A spare child's rehearsal: a small job of our own through the real harness, run while the
spare waits for its real one.

A spare shares its memory with the zygote; the first write to each page costs a copy.
Rehearsing while idle pays those copies ahead of time, off the grading path. It runs only the
judge's own code, on inputs of its own, and everything it sets the real job sets again.
"""

from __future__ import annotations

import json
import select
from typing import Any

import numpy as np

from sandbox import protocol
from sandbox.child import run_job
from sandbox.job import Job, RandomMode
from sandbox.limits import Limits
from sandbox.policy import HELPERS_FILENAME, Policy, compile_learner


class _JobArrived(Exception):
    """A job came while the spare rehearsed: the rest of the rehearsal would only delay it."""


class _Rehearsal:
    """Stands in for the mailbox while a spare rehearses: encodes every message, keeps none.

    With ``job_fd``, it looks at every message and case whether the real job has come, and
    stops the rehearsal if so (at a point between cases, where the real job sets everything
    again): under load, a job waited for the whole rehearsal to end."""

    def __init__(self, job_fd: int | None = None) -> None:
        self.job_fd = job_fd

    def send(self, message: protocol.Reply) -> None:
        protocol.encode_reply(message)
        self.stop_if_job_arrived()

    def start_case(self, index: int) -> None:
        self.stop_if_job_arrived()

    def stop_if_job_arrived(self) -> None:
        if self.job_fd is not None and select.select([self.job_fd], [], [], 0)[0]:
            raise _JobArrived


# Two rehearsals, for the two shapes of the exercises' jobs. The plain one: list arguments and
# numpy's legacy global state, and the constructs a beam's step is made of (pairs unpacked as
# they are iterated, a generator expression, a sort by a lambda, a comprehension), whose
# compiling and guards a spare otherwise first copies during the real job. The one with
# helpers: list, ndarray and value arguments, a scripted and a seeded generator, helpers
# compiled by the policy. Both start from the job's JSON document, as a real job does. Only our
# own code, on inputs of our own. (A trusted driver calling the step, as the distribution check
# does, made the rehearsal longer and saved a one-trial check job nothing measurable: left out.)
REHEARSAL_SOURCE = (
    "import numpy as np\n"
    "def f(a, b):\n"
    "    out = []\n"
    "    for i in range(len(a)):\n"
    "        r = np.random.uniform()\n"
    "        if r < min(1.0, b[i] / a[i]):\n"
    "            out.append(i)\n"
    "        else:\n"
    "            break\n"
    "    ranked = sorted(((x, i) for i, x in enumerate(a)), key=lambda p: (-p[0], p[1]))\n"
    "    out += [i for x, i in ranked[:1]]\n"
    "    print(f'{out}')\n"
    "    return out, len(out)\n"
)
REHEARSAL_JOB = Job(
    code=REHEARSAL_SOURCE,
    entry_point="f",
    cases=({"a": [0.5, 0.5], "b": [0.25, 0.5]}, {"a": [0.125], "b": [0.5]}),
    parameters={"a": "list", "b": "ndarray"},
    limits=Limits(output_bytes=1024),
    random_mode=RandomMode.global_state,
)
REHEARSAL_HELPERS = (
    "import numpy as np\n"
    "def pick(weights, rng):\n"
    "    running = np.cumsum(np.asarray(weights, dtype=float))\n"
    "    token = int(np.searchsorted(running, rng.random(), side='right'))\n"
    "    return min(token, int(np.flatnonzero(weights > 0)[-1]))\n"
)
REHEARSAL_HELPERS_SOURCE = (
    "import numpy as np\n"
    "def f(a, b, p, n, rng):\n"
    "    np.random.seed(n)\n"
    "    out = []\n"
    "    for i in range(len(a)):\n"
    "        if np.random.uniform() < 2 and rng.random() < min(1.0, b[i] / a[i]):\n"
    "            out.append(i)\n"
    "        else:\n"
    "            break\n"
    "    rest = np.maximum(p[0] - p[-1], 0.0)\n"
    "    out.append(pick(rest / rest.sum(), rng))\n"
    "    print(f'{out}')\n"
    "    return out, len(out), p[0, 1]\n"
)
REHEARSAL_P = [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25]]
REHEARSAL_HELPERS_JOB = Job(
    code=REHEARSAL_HELPERS_SOURCE,
    entry_point="f",
    cases=(
        {"a": [0.5, 0.5], "b": [0.25, 0.5], "p": REHEARSAL_P, "n": 1, "rng": {"seed": 2}},
        {"a": [0.125], "b": [0.5], "p": REHEARSAL_P, "n": 3, "rng": {"scripted": [0.5, 0.75]}},
    ),
    parameters={"a": "list", "b": "ndarray", "p": "ndarray", "n": "value", "rng": "rng"},
    limits=Limits(output_bytes=1024),
    random_mode=RandomMode.generator,
    rng_argument="rng",
    helpers=REHEARSAL_HELPERS,
)
# As a job arrives: its document's JSON, read by the real job's reader.
REHEARSAL_BODIES = {False: REHEARSAL_JOB.body(), True: REHEARSAL_HELPERS_JOB.body()}
# The helpers, compiled once by the zygote's warm-up (its first rehearsal), as the zygote
# compiles an exercise's: a spare then compiles only the job's own source.
_REHEARSAL_COMPILED: dict[str, Any] = {}


def rehearse(policy: Policy, job_fd: int | None = None, with_helpers: bool = False) -> None:
    """Run a small job through the real harness before the real one arrives.

    A spare child shares its memory with the zygote; the first write to each page costs a
    copy. Rehearsing while idle pays those copies ahead of time, off the grading path. The
    rehearsal compiles its source too, as a real job with a new source does (it lowered the p50
    of unique sources at light load: docs/performance.md). It runs only our own
    code, and everything it sets the real job sets again. With ``job_fd`` (a spare's), it
    stops as soon as the real job is there to be read.

    ``with_helpers`` rehearses the job with helpers, arrays and generators (the zygote asks for
    it when its last job came with an exercise's helpers or drew from a generator): a resample
    or top-k job's child then costs less, but the rehearsal costs more than that, which only
    idle cores can spare (on verify's jobs it saved nothing and cost throughput at full load).
    """
    compiled = _REHEARSAL_COMPILED
    if not compiled:
        compiled[HELPERS_FILENAME] = compile_learner(REHEARSAL_HELPERS, HELPERS_FILENAME)
    mailbox = _Rehearsal(job_fd)
    try:
        mailbox.stop_if_job_arrived()  # under load the job is there already: nothing to save
    except _JobArrived:
        return
    # A job whose random mode is not the legacy global state never seeds it, and a learner's
    # step may draw from it all the same (a mistake a report shows): a spare hands its job the
    # state the zygote left, whichever rehearsal it ran and wherever that stopped.
    legacy = np.random.get_state() if job_fd is not None else None
    try:
        job = Job.from_document(json.loads(REHEARSAL_BODIES[with_helpers]))
        run_job(job, mailbox, policy, 0, compiled[HELPERS_FILENAME])  # type: ignore[arg-type]
    except _JobArrived:
        pass
    finally:
        if legacy is not None:
            np.random.set_state(legacy)
