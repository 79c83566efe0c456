"""What a check's job sends back per chunk of trials, read once into a frozen typed value.

The driver (the exercise's ``distribution.py``, the judge's ``sampler_driver.py``) runs in the
learner's child, beside code that may have replaced anything the driver calls, so what comes
back is untrusted: ``read`` is the one place that turns the child's tagged value into counts
the check adds up and judges, into the record of a call the driver could not count, or into a
refusal. Everything after it (adding a pair's chunks, the second stage's question, the report
row) reads attributes. Whether counts fit the declared item (the trials, the vocabulary, the
sums) is the check's to say: here only their shape is known.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from app.grading import compare


def _count(x: Any) -> bool:
    return type(x) is int and x >= 0


def _counts(items: Any) -> tuple[int, ...] | None:
    """A list of counts (non-negative ints) as a tuple; None for anything else."""
    if type(items) is not list or not all(_count(x) for x in items):
        return None
    return tuple(items)


@dataclass(frozen=True)
class FirstOutside:
    """The first trial whose first token a correct step never returns: the draft's token
    then, and the token the step returned in its place."""

    trial: int
    draft: int
    token: int


@dataclass(frozen=True)
class DraftCounts:
    """The distribution check's counts over some trials of a pair: the first tokens
    (``first[t]``: trials that began with token t), the tokens per step (``lengths[k]``: steps
    that yielded k + 1), the generator's draws, and the first tokens a correct step never
    returns (a driver may not look for them: none then)."""

    trials: int
    first: tuple[int, ...]
    lengths: tuple[int, ...]
    draws: int
    outside: int = 0
    first_outside: FirstOutside | None = None

    @classmethod
    def of_plain(cls, value: Any) -> DraftCounts | None:
        if not isinstance(value, dict):
            return None
        first, lengths = _counts(value.get("first")), _counts(value.get("lengths"))
        trials: Any = value.get("trials")
        draws: Any = value.get("draws")
        outside: Any = value.get("outside", 0)
        seen = value.get("first_outside")
        if first is None or lengths is None or not all(map(_count, (trials, draws, outside))):
            return None
        if seen is not None:
            if not (
                type(seen) is dict
                and set(seen) == {"trial", "draft", "token"}
                and all(_count(x) for x in seen.values())
            ):
                return None
            seen = FirstOutside(seen["trial"], seen["draft"], seen["token"])
        return cls(trials, first, lengths, draws, outside, seen)

    def then(self, later: DraftCounts) -> DraftCounts | None:
        """These counts and those of a later chunk of the pair (numbered within the pair) as
        one; None when they do not count the same tokens."""
        if len(later.first) != len(self.first) or len(later.lengths) != len(self.lengths):
            return None
        return DraftCounts(
            self.trials + later.trials,
            tuple(a + b for a, b in zip(self.first, later.first, strict=True)),
            tuple(a + b for a, b in zip(self.lengths, later.lengths, strict=True)),
            self.draws + later.draws,
            self.outside + later.outside,
            self.first_outside or later.first_outside,
        )

    def numbered_from(self, first_trial: int) -> DraftCounts:
        """The counts with their first outside token's trial numbered within the pair."""
        seen = self.first_outside
        if seen is None or first_trial == 0:
            return self
        return replace(self, first_outside=replace(seen, trial=seen.trial + first_trial))


@dataclass(frozen=True)
class SamplerCounts:
    """The sampler check's counts over some calls of an input: ``counts[t]``, the calls that
    returned token t; the generator's draws."""

    trials: int
    counts: tuple[int, ...]
    draws: int

    @classmethod
    def of_plain(cls, value: Any) -> SamplerCounts | None:
        if not isinstance(value, dict):
            return None
        counts = _counts(value.get("counts"))
        trials, draws = value.get("trials"), value.get("draws")
        if counts is None or type(trials) is not int or type(draws) is not int:
            return None
        return cls(trials, counts, draws)

    def then(self, later: SamplerCounts) -> SamplerCounts | None:
        """These counts and a later chunk's as one; None when they do not count the same tokens."""
        if len(later.counts) != len(self.counts):
            return None
        return SamplerCounts(
            self.trials + later.trials,
            tuple(a + b for a, b in zip(self.counts, later.counts, strict=True)),
            self.draws + later.draws,
        )


_SCALARS = (int, str, float, bool, type(None))


@dataclass(frozen=True)
class InvalidTrial:
    """A call the driver could not count (what the step returned was not a token list, a
    token out of range...): its record as the driver wrote it (``trial``, ``reason`` and what
    the reason names), or None when what came under ``invalid`` is not a record at all."""

    record: Mapping[str, Any] | None

    def numbered_from(self, first_trial: int, *, scalars_only: bool = False) -> InvalidTrial:
        """The record with its trial numbered within the item; as it came when its trial is
        not an int (the row then says what the driver said) or, unless ``scalars_only`` keeps
        only its plain scalar fields, when it holds what is not plain data."""
        record = self.record
        if record is None or type(record.get("trial")) is not int:
            return self
        if scalars_only:
            record = {key: x for key, x in record.items() if type(x) in _SCALARS}
        elif not _plain_data(record):
            return self
        return InvalidTrial({**record, "trial": record["trial"] + first_trial})


def _plain_data(value: Any) -> bool:
    if type(value) is dict:
        return all(_plain_data(x) for x in value.values())
    if type(value) is list:
        return all(_plain_data(x) for x in value)
    return type(value) in _SCALARS


@dataclass(frozen=True)
class Unreadable:
    """Counts the check cannot read: the row says they did not add up."""


Counts = DraftCounts | SamplerCounts | InvalidTrial | Unreadable
Shape = type[DraftCounts] | type[SamplerCounts]


def read(tagged: Any, shape: Shape) -> Counts:
    """The child's tagged value as counts of ``shape``, the record of an invalid call, or
    Unreadable. A record under ``invalid`` wins over counts beside it; a value that is not a
    record there counts as invalid only when the counts beside it are not sound."""
    value = compare.plain(tagged)
    if not isinstance(value, dict):
        return Unreadable()
    invalid = value.get("invalid")
    if isinstance(invalid, dict):
        return InvalidTrial(invalid)
    counts = shape.of_plain(value)
    if counts is not None:
        return counts
    return InvalidTrial(None) if "invalid" in value else Unreadable()
