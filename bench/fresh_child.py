"""One submission in a fresh interpreter: the classic design (edX codejail, Judge0) that the
warm zygote replaces. Kept as a baseline for `judge bench`, with the same confinement and the
same harness, so the comparison measures only the cost of starting cold.

Usage: python -s -P -c '...main()' < job-frame > reply-frames
"""

from __future__ import annotations

import os
import sys
from typing import Any


def main() -> None:
    from sandbox import framing, protocol
    from sandbox.child import run_job
    from sandbox.confine import Confinement, default_read_paths
    from sandbox.job import Job
    from sandbox.mailbox import Mailbox
    from sandbox.policy import Policy
    from sandbox.results import SetupFailure, SetupKind

    reader = framing.FrameReader()
    messages: list[dict[str, Any]] = []
    while not messages:
        data = os.read(0, 1 << 20)
        if not data:
            sys.exit(2)
        messages = reader.feed(data)
    job = Job.from_document(messages[0])  # the job itself, as one JSON frame
    limits = job.limits
    policy = Policy()
    confinement = Confinement(default_read_paths())
    reply = Mailbox(limits.reply_bytes)
    pid = os.fork()  # the confinement is built to be applied in a direct child
    if pid:
        _, status = os.waitpid(pid, 0)
        for message in reply.messages():
            os.write(1, framing.encode(message))
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    os.setsid()
    layers = confinement.apply(limits, keep_fds=[])
    reply.send(protocol.Hello(dict(layers, policy=True)))
    try:
        run_job(job, reply, policy, 0)
    except BaseException as exc:  # noqa: BLE001 - report, never hide
        reply.send(SetupFailure(SetupKind.crashed, repr(exc)))
    os._exit(0)


if __name__ == "__main__":
    main()
