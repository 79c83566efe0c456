"""``python -m bench.zygote_restart``: /api/health's latency while the sandbox's zygote restarts,
against the same server idle. Prints numbers; asserts nothing.

A real server (this checkout, or the one whose folder is current: ``cd <checkout> && python -m
bench.zygote_restart`` measures that checkout), loopback only. Idle: health asked ``--samples``
times in a row. Then, each of ``--kills`` times: the zygote is SIGKILLed, one submission is sent
at once (the request that used to start the new zygote itself, on the event loop), and health
is asked every few milliseconds until a new zygote answers. The medians and maxima of both
series are printed, with the load average.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from bench.loadtest.servers import base_url, free_port, running_server, scratch_environment

EXERCISE = "speculative-decoding-verify"
CHECKOUT = Path.cwd() if (Path.cwd() / "sandbox").is_dir() else Path(__file__).parents[1]


def _health_ms(client: httpx.Client) -> tuple[float, dict[str, object]]:
    started = time.perf_counter()
    response = client.get("/api/health")
    elapsed = (time.perf_counter() - started) * 1000
    pool = response.json().get("pool") or {}
    return elapsed, dict(pool)


def _submit_until(url: str, solution: str, stop: threading.Event) -> None:
    with httpx.Client(base_url=url, timeout=30) as client:
        for n in range(10_000):
            if stop.is_set():
                return
            client.post(
                f"/api/exercises/{EXERCISE}/submissions", json={"code": f"{solution}\n# {n}\n"}
            )
            time.sleep(0.05)


def _summary(name: str, values: list[float]) -> str:
    if not values:
        return f"{name:>18}: no samples"
    return (
        f"{name:>18}: {len(values):4d} samples, median {statistics.median(values):7.2f} ms, "
        f"max {max(values):7.2f} ms"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=200, help="idle health requests")
    parser.add_argument("--kills", type=int, default=5, help="zygote kills")
    args = parser.parse_args(argv)
    solution = (CHECKOUT / "exercises" / EXERCISE / "solution.py").read_text()
    with tempfile.TemporaryDirectory() as scratch:
        port = free_port("127.0.0.1")
        url = base_url("127.0.0.1", port)
        code = f"from app.server import serve; serve('127.0.0.1', {port})"
        env = scratch_environment(scratch, CHECKOUT / "exercises")
        env["PYTHONPATH"] = os.pathsep.join([str(CHECKOUT), env["PYTHONPATH"]])
        log = Path(scratch) / "server.log"
        with (
            running_server([sys.executable, "-c", code], url, env, log),
            httpx.Client(base_url=url, timeout=30) as client,
        ):
            print(f"checkout {CHECKOUT}; load average {os.getloadavg()}")
            client.post(f"/api/exercises/{EXERCISE}/submissions", json={"code": solution})
            idle = [_health_ms(client)[0] for _ in range(args.samples)]
            during: list[float] = []
            recovery: list[float] = []
            for _ in range(args.kills):
                old = _health_ms(client)[1].get("zygote_pid")
                assert isinstance(old, int)
                killed = time.perf_counter()
                os.kill(old, signal.SIGKILL)
                # Learners keep submitting meanwhile (a judge that restarts its zygote only
                # when asked to grade needs them to).
                stop = threading.Event()
                submit = threading.Thread(target=_submit_until, args=(url, solution, stop))
                submit.start()
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    elapsed, pool = _health_ms(client)
                    during.append(elapsed)
                    if pool.get("alive") and pool.get("zygote_pid") not in (None, old):
                        break
                    time.sleep(0.005)
                else:
                    print("the zygote was not replaced within 60 s")
                    stop.set()
                    return 1
                recovery.append((time.perf_counter() - killed) * 1000)
                stop.set()
                submit.join(timeout=60)
                # A grade that passes again before the next kill.
                client.post(f"/api/exercises/{EXERCISE}/submissions", json={"code": solution})
            print(_summary("idle", idle))
            print(_summary("zygote restarting", during))
            print(_summary("kill -> new zygote", recovery))
            print(f"load average at the end {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
