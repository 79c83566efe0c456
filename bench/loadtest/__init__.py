"""HTTP load script: the real judge server against a fresh interpreter per submission.

    python -m bench.loadtest [--requests N] [--fresh-requests M] [--duration S] [--json]
                           [--concurrency C] [--client httpx|raw]

Starts the real judge (``judge serve``: uvicorn, default settings, one warm pool with one
worker per core) on a free loopback port and grades the correct solution of
speculative-decoding-verify over HTTP: latency at concurrency 1 (p50/p99), then throughput at
concurrency 8. Then it does the same against a second server whose judge starts a fresh
interpreter per submission (``FreshJudge``, the design the warm zygote replaces), and prints
both side by side with the ratio. Bars from the issue are printed as targets, not asserted.
It also prints the load average and the CPU each grade cost the server (web process and
sandbox) and the load generator, which shares the machine's cores: ``--client raw`` spends a
tenth of httpx's CPU per request, so it measures the server with less interference.

Loopback only: any other host is refused. Every phase is bounded in requests and in seconds,
and the script stops both servers by itself. The submission history of both servers goes to a
temporary SQLite file, never the real one. Exit status 1 if any graded response was not
accepted or a request failed; the targets never change the exit status.
"""

# This docstring is also the --help description (see cli.build_parser). The modules:
#   servers    start/stop a server process on loopback, wait for its health
#   fresh      the comparison server: FreshJudge, a fresh interpreter per grade
#   clients    the two load generators (pooled httpx, raw keep-alive HTTP/1.1)
#   measuring  one bounded phase of load, its percentiles, the server's CPU from /proc
#   compare    both servers through the same phases, into one summary
#   report     targets, failures and the printed table
#   cli        options, bounds checks and the entry points

from __future__ import annotations

from bench.loadtest.cli import DEFAULT_EXERCISE, add_arguments, build_parser, main, run_cli
from bench.loadtest.clients import RAW_ERRORS, REQUEST_TIMEOUT_S, RawConnection, RawHTTPError
from bench.loadtest.compare import run
from bench.loadtest.fresh import FreshJudge, serve_fresh
from bench.loadtest.measuring import (
    WARMUP_REQUESTS,
    measure,
    percentile,
    run_server_phases,
    tree_cpu_seconds,
)
from bench.loadtest.report import TARGETS, failures, print_table
from bench.loadtest.servers import (
    START_TIMEOUT_S,
    STOP_TIMEOUT_S,
    base_url,
    free_port,
    loopback,
    running_server,
)

__all__ = [
    "DEFAULT_EXERCISE",
    "RAW_ERRORS",
    "REQUEST_TIMEOUT_S",
    "START_TIMEOUT_S",
    "STOP_TIMEOUT_S",
    "TARGETS",
    "WARMUP_REQUESTS",
    "FreshJudge",
    "RawConnection",
    "RawHTTPError",
    "add_arguments",
    "base_url",
    "build_parser",
    "failures",
    "free_port",
    "loopback",
    "main",
    "measure",
    "percentile",
    "print_table",
    "run",
    "run_cli",
    "run_server_phases",
    "running_server",
    "serve_fresh",
    "tree_cpu_seconds",
]
