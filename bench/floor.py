"""The fork floor of this machine, for `judge bench`: what a grade costs with no sandbox at all.

Runs in its own clean interpreter with the zygote's imports, executes the exercise's trusted
reference solution directly (no confinement, no policy, no checks), warms it, then forks one
child per grade that runs the cases, pipes the results back and exits. Nothing here ever runs
learner code. Prints one JSON line: wall and CPU milliseconds per grade.

Usage: python -s -P -c '...main()' ROOT < job-frame (the same job shape as bench.fresh_child)
"""

from __future__ import annotations

import gc
import json
import os
import resource
import sys
import time
from typing import Any


def main() -> None:
    import sandbox.zygote  # noqa: F401  (the zygote's imports: same heap size, same fork cost)
    from sandbox import forking, framing, values

    job = framing.FrameReader().feed(sys.stdin.buffer.read())[0]
    grades = int(job.get("grades", 200))
    namespace: dict[str, Any] = {}
    exec(compile(job["helpers"] + "\n" + job["code"], "reference.py", "exec"), namespace)
    entry = namespace[job["entry_point"]]
    parameters = job["parameters"]

    def run_cases() -> bytes:
        results = []
        for inputs in job["cases"]:
            arguments = [
                values.build_argument(kind, inputs[name]) for name, kind in parameters.items()
            ]
            results.append(values.tag(entry(*arguments)))
        return json.dumps(results).encode()

    run_cases()  # warm: lazy imports, first calls
    gc.collect()
    gc.freeze()
    forking.lean_fork()  # the zygote's own fork, so that the floor is no dearer than a child
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time()
    started = time.perf_counter()
    for _ in range(grades):
        read_fd, write_fd = os.pipe()
        pid = forking.fork()
        if pid == 0:
            os.write(write_fd, run_cases())
            os._exit(0)
        os.close(write_fd)
        while os.read(read_fd, 1 << 16):
            pass
        os.close(read_fd)
        os.waitpid(pid, 0)
    wall = (time.perf_counter() - started) / grades * 1000
    parent = (time.process_time() - cpu) / grades * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    children = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    print(
        json.dumps(
            {
                "grades": grades,
                "wall_ms": round(wall, 2),
                "cpu_ms": round(parent + children / grades * 1000, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
