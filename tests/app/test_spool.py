"""The spool's fallback file: rows its first file cannot take go on in a second one, and its
offsets run on across the two (the overflow replay reads between offsets)."""

from __future__ import annotations

from pathlib import Path

from app.spool import Spool


def test_rows_past_a_first_file_that_stopped_go_to_the_fallback_and_read_as_one(
    tmp_path: Path,
) -> None:
    spool = Spool(tmp_path / "spool", fallback=tmp_path / "memory")
    for i in range(3):
        assert spool.append({"n": i})
    split = spool.size
    spool.broken = "disk full (made to order)"  # what a failed write leaves
    for i in range(3, 6):
        assert spool.append({"n": i})
    (spare,) = (tmp_path / "memory").glob("rows-*.jsonl")
    assert len(spare.read_bytes().splitlines()) == 3 and spool.rows == 6
    assert [row["n"] for row in spool.read()] == list(range(6))
    assert [row["n"] for row in spool.read(split)] == [3, 4, 5]
    assert [row["n"] for row in spool.read(0, split)] == [0, 1, 2]
    one = len(b'{"n":0}\n')
    assert [row["n"] for row in spool.read(one, split + one)] == [1, 2, 3]
    spool.clear()  # every row stored: both emptied, the first file takes rows again
    assert not spare.exists() and spool.size == 0 and spool.broken is None
    assert spool.append({"n": 6}) and [row["n"] for row in spool.read()] == [6]
    spool.close(keep=False)


def test_a_stopping_judge_leaves_both_files_for_the_next(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool", fallback=tmp_path / "memory")
    assert spool.append({"n": 0})
    spool.broken = "disk full (made to order)"
    assert spool.append({"n": 1})
    spool.close(keep=True)
    nxt = Spool(tmp_path / "spool", fallback=tmp_path / "memory")
    orphans = nxt.orphans()
    assert sorted(row["n"] for orphan in orphans for row in orphan.read()) == [0, 1]
    for orphan in orphans:
        orphan.done()
    nxt.close(keep=False)
    assert list((tmp_path / "memory").iterdir()) == []


def test_without_a_fallback_a_stopped_file_takes_nothing(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    spool.broken = "disk full (made to order)"
    assert not spool.append({"n": 0}) and spool.rows == 0
    spool.close(keep=False)
