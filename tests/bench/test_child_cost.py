"""`python -m bench child` runs each kind of job through the real pool (numbers, not verdicts)."""

from __future__ import annotations

import json

from bench import child_cost


def test_the_bench_prints_a_cpu_and_wall_figure_for_each_kind_of_job(capsys) -> None:
    status = child_cost.main(["--repeats", "2", "--json"])
    figures = json.loads(capsys.readouterr().out)
    assert status == 0
    kinds = list(figures)  # the Submit's count follows the exercise's extra and random cases
    assert kinds[:2] == ["1 case", "6 cases"] and kinds[-1] == "1 trial" and len(kinds) == 4
    for row in figures.values():
        # The zygote reads the child's clock from hand-over to end; the host's wall time spans
        # the same job plus the trip through the zygote, so it is never the smaller.
        assert 0 < row["cpu_ms"] <= row["wall_ms"]


def test_the_pair_bench_times_a_submits_two_jobs_alone_and_together(capsys) -> None:
    status = child_cost.main(["--pair", "--repeats", "2", "--json"])
    figures = json.loads(capsys.readouterr().out)
    assert status == 0
    assert list(figures) == [
        "check alone",
        "cases alone",
        "check beside",
        "cases beside",
        "both answered",
    ]
    for kind in ("check alone", "cases alone", "check beside", "cases beside"):
        assert 0 < figures[kind]["cpu_ms"] <= figures[kind]["wall_ms"]
    # Handed over together, both have answered only once the longer of the two has (each job's
    # wall time starts after the pair's clock and ends before the caller sees its answer).
    longer = max(figures["check beside"]["wall_ms"], figures["cases beside"]["wall_ms"])
    assert figures["both answered"]["wall_ms"] >= longer
