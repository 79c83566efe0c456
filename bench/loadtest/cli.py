"""Command line: the options (shared with ``judge loadtest`` through add_arguments), their
bounds, and the entry point that prints the table or JSON and sets the exit status."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.catalog import EXERCISES_DIR
from bench.loadtest.compare import run
from bench.loadtest.fresh import serve_fresh
from bench.loadtest.report import failures, print_table
from bench.loadtest.servers import loopback

DEFAULT_EXERCISE = "speculative-decoding-verify"


def add_arguments(
    parser: argparse.ArgumentParser, *, exercises_option: bool = True
) -> argparse.ArgumentParser:
    """The script's options on ``parser`` (also used by a ``judge loadtest`` subcommand, which
    passes ``exercises_option=False`` because ``judge --exercises`` already exists)."""
    parser.add_argument(
        "--requests",
        type=int,
        default=1000,
        help="grades per warm-pool phase (latency, throughput); default 1000",
    )
    parser.add_argument(
        "--fresh-requests",
        type=int,
        default=None,
        help="grades per fresh-interpreter phase (default: requests/20, >= 10)",
    )
    parser.add_argument(
        "--duration", type=float, default=30.0, help="cap in seconds on each phase; default 30"
    )
    parser.add_argument("--concurrency", type=int, default=8, help="throughput phase; default 8")
    parser.add_argument("--exercise", default=DEFAULT_EXERCISE)
    if exercises_option:
        parser.add_argument(
            "--exercises", type=Path, default=EXERCISES_DIR, help="folder of exercise folders"
        )
    parser.add_argument("--host", default="127.0.0.1", help="loopback address to serve on")
    parser.add_argument(
        "--client",
        choices=("httpx", "raw"),
        default="httpx",
        help="load generator: httpx (default) or a minimal keep-alive HTTP/1.1 client that "
        "costs a tenth of the CPU per request, leaving more of the machine to the server",
    )
    parser.add_argument(
        "--same-source",
        action="store_true",
        help="send one identical source every time (labelled; default: each request its own)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--serve-fresh", type=int, metavar="PORT", help=argparse.SUPPRESS)
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The standalone parser; its description is the package docstring (the script's usage)."""
    from bench import loadtest

    return add_arguments(
        argparse.ArgumentParser(
            prog="python -m bench.loadtest",
            description=loadtest.__doc__,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    )


def run_cli(args: argparse.Namespace) -> int:
    """Run with parsed arguments; prints the table or JSON; exit status as the package says."""
    args.exercises = Path(getattr(args, "exercises", None) or EXERCISES_DIR).resolve()
    if args.serve_fresh is not None:
        serve_fresh(loopback(args.host), args.serve_fresh)
        return 0
    bounds = {"requests": args.requests, "concurrency": args.concurrency}
    for name, value in bounds.items():
        if not 1 <= value <= 100_000:
            raise SystemExit(f"loadtest: --{name} must be between 1 and 100000")
    if args.fresh_requests is not None and not 1 <= args.fresh_requests <= 10_000:
        raise SystemExit("loadtest: --fresh-requests must be between 1 and 10000")
    if not 0 < args.duration <= 600:
        raise SystemExit("loadtest: --duration must be in (0, 600] seconds")
    summary = run(args)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_table(summary)
    return 1 if failures(summary) else 0


def main(argv: list[str] | None = None) -> int:
    """The comparison, or with ``classroom`` first the classroom mix (its own options)."""
    if argv and argv[0] == "classroom":
        from bench.loadtest import classroom

        return classroom.main(argv[1:])
    return run_cli(build_parser().parse_args(argv))
