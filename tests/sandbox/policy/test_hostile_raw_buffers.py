"""Against the real judge: a memoryview of an object array's buffer (reached
as ``type(np.zeros(1).data)``) cast to bytes read and wrote the array's pointers, forged objects
at chosen addresses and handed out the real builtins. A numpy value's raw buffer is refused,
and ``type()`` never gives the memoryview class."""

from __future__ import annotations

import pytest

from app.grading.judge import Judge
from app.schemas import Verdict
from tests.sandbox.hostile import assert_first_case_stopped, grade, on_first_case

RAW_BUFFER = "the raw buffer (.data) of a numpy value is not available"

# The attack: the pointers of an object array as writable bytes.
POINTERS = """
MV = type(np.zeros(1).data)
a = np.array([None, "secret", 1.5], dtype=object)
raw = MV(a).cast("B")
raw[0:8] = raw[8:16]
return [], 0
"""


@pytest.mark.parametrize(
    "reach",
    [
        "np.zeros(1).data",
        "np.array([1.5, 2.5]).T.data",
        "getattr(np.zeros(3), 'data')",
        "np.float64(1.5).data",
        "np.int64(3).data",
        "np.ndarray.data",
        "np.zeros((2, 2))[0].data",
    ],
)
def test_a_numpy_values_raw_buffer_is_refused(hostile_judge: Judge, reach: str) -> None:
    report, _ = grade(hostile_judge, on_first_case(f"view = {reach}\nreturn [], 0"))
    assert_first_case_stopped(report, Verdict.runtime_error, RAW_BUFFER, "tolist()")


def test_overwriting_an_object_arrays_pointers_stops_at_the_buffer(hostile_judge: Judge) -> None:
    report, _ = grade(hostile_judge, on_first_case(POINTERS))
    assert_first_case_stopped(report, Verdict.runtime_error, RAW_BUFFER)


def test_reads_of_everyday_array_attributes_before_do_not_open_the_buffer(
    hostile_judge: Judge,
) -> None:
    # The policy remembers what a (class, name) read asks; a refusal is never remembered.
    body = """
a = np.zeros(4)
seen = [a.shape, a.size, a.sum(), a.T.shape, a.copy().ndim]
view = a.data
return [], 0
"""
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.runtime_error, RAW_BUFFER)


def test_type_never_gives_the_memoryview_class() -> None:
    from sandbox.policy import Policy, PolicyError

    type_of = Policy().namespace()["__builtins__"]["type"]
    with pytest.raises(PolicyError, match="memoryview is not available"):
        type_of(memoryview(b"abc"))
    assert type_of(b"abc") is bytes  # other values keep their own class
