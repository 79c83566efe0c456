"""``python -m bench sandbox|loadtest [options]``: the benchmarks, from a source checkout."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("sandbox", "loadtest"):
        print("usage: python -m bench sandbox|loadtest [options]  (--help after either)")
        return 2
    if argv[0] == "loadtest":
        from bench import loadtest

        return loadtest.main(argv[1:])
    from app.cli import main as judge

    return judge(["bench", *argv[1:]])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
