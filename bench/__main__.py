"""``python -m bench sandbox|loadtest|classroom|submit|guards|child|checks|stages [options]``: the
benchmarks."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    if argv[:1] == ["guards"]:  # what the policy's guards cost on hot loops (bench/guards.py)
        from bench import guards

        return guards.main(argv[1:])
    if argv[:1] == ["checks"]:  # the check over the whole function, per exercise
        from bench import check_cost

        return check_cost.main(argv[1:])
    if argv[:1] == ["stages"]:  # a grade's CPU by stage: web, zygote, child (bench/stages.py)
        from bench import stages

        return stages.main(argv[1:])
    if argv[:1] == ["child"]:  # a confined child's cost per job, by its size (bench/child_cost.py)
        from bench import child_cost

        return child_cost.main(argv[1:])
    if not argv or argv[0] not in ("sandbox", "loadtest", "classroom", "submit"):
        print(
            "usage: python -m bench"
            " sandbox|loadtest|classroom|submit|guards|child|checks|stages [options]"
            "  (--help after any)"
        )
        return 2
    if argv[0] == "submit":
        from bench import submit_latency

        return submit_latency.main(argv[1:])
    if argv[0] == "classroom":
        from bench.loadtest import classroom

        return classroom.main(argv[1:])
    if argv[0] == "loadtest":
        from bench import loadtest

        return loadtest.main(argv[1:])
    from app.cli import main as judge

    return judge(["bench", *argv[1:]])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
