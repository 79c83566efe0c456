"""The host's reading of child frames: what a child writes is made safe before it is believed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sandbox.framing import FrameReader, encode


def test_lone_surrogates_become_replacement_characters_everywhere_in_a_message() -> None:
    message = {"t": "case", "value\ud800": ["x\udfff", "\U0001f600", {"k": "\ud83d"}], "n": 1}
    (read,) = FrameReader().feed(encode(message))
    assert read == {"t": "case", "value\ufffd": ["x\ufffd", "\U0001f600", {"k": "\ufffd"}], "n": 1}
    json.dumps(read).encode("utf-8")  # encodable again, as a report must be


def test_raw_surrogate_bytes_are_replaced_too_and_escaped_backslashes_are_left_alone() -> None:
    raw = b'{"a": "\xed\xa0\x80", "b": "\\\\ud800"}'
    frame = len(raw).to_bytes(4, "big") + raw
    (read,) = FrameReader().feed(frame)
    assert read == {"a": "\ufffd", "b": "\\ud800"}


def test_arguments_share_one_snapshot_budget_and_a_big_one_does_not_spend_it() -> None:
    from sandbox.limits import SNAPSHOT_ITEMS
    from sandbox.values import snapshot_arguments

    kinds = {"big": "list", "array": "ndarray", "small": "value", "rng": "rng"}
    arguments = {
        "big": [0.0] * SNAPSHOT_ITEMS,  # with its own node, one more than fits
        "array": np.zeros((10, 10)),
        "small": {"k": [1, 2]},
        "rng": object(),
    }
    after = snapshot_arguments(kinds, arguments)
    assert after["big"] == {"t": "too_big", "type": "list"}
    assert after["array"] == [[0.0] * 10] * 10
    assert after["small"]["t"] == "dict"
    assert "rng" not in after
    fits = snapshot_arguments({"xs": "list"}, {"xs": [0.0] * (SNAPSHOT_ITEMS - 1)})
    assert len(fits["xs"]["v"]) == SNAPSHOT_ITEMS - 1


def test_an_argument_left_as_built_is_not_sent_back() -> None:
    from sandbox.values import as_built, build_argument, snapshot_arguments

    kinds = {"xs": "list", "p": "ndarray", "q": "ndarray", "k": "value", "rng": "rng"}
    inputs = {
        "xs": [1, 2.5, [3, "a"]],
        "p": [[0.5, 0.5], [0.25, 0.75]],
        "q": {"empty": [0, 2]},
        "k": {"n": 3, "flag": True},
        "rng": {"seed": 1},
    }
    arguments = {name: build_argument(kinds[name], inputs[name]) for name in kinds}
    assert snapshot_arguments(kinds, arguments, inputs) == {}  # nothing changed, nothing sent
    assert set(snapshot_arguments(kinds, arguments)) == {"xs", "p", "q", "k"}  # no inputs: all

    arguments["xs"][2].append(4)
    arguments["p"][1, 0] = 0.5
    after = snapshot_arguments(kinds, arguments, inputs)
    assert set(after) == {"xs", "p"}
    assert after["p"] == [[0.5, 0.5], [0.5, 0.75]]

    # Equal is not enough: the exact types must be those the input was built with.
    assert not as_built("list", [1.0, 2.5, [3, "a"]], inputs["xs"])  # 1 -> 1.0
    assert not as_built("value", {"n": 3, "flag": 1}, inputs["k"])  # True -> 1
    assert not as_built("list", [np.int64(1), 2.5, [3, "a"]], inputs["xs"])
    assert not as_built("ndarray", np.array(inputs["p"], dtype=np.float32), inputs["p"])
    assert not as_built("ndarray", np.zeros((0, 3)), inputs["q"])
    assert not as_built("ndarray", [[0.5, 0.5], [0.25, 0.75]], inputs["p"])  # a list now
    assert not as_built("list", [1, 2.5], inputs["xs"])  # popped
    assert as_built("ndarray", np.empty((0, 2)), inputs["q"])


def test_the_mutation_check_still_sees_every_change_through_the_sandbox() -> None:
    from sandbox import Job, Limits, Pool

    code = (
        "def f(xs, table, rows):\n"
        "    if xs and xs[0] == 'pop':\n"
        "        xs.pop()\n"
        "    if 'k' in table and table['k'] == 1:\n"
        "        table['k'] = 1.0\n"
        "    if rows[0][0] == 9.0:\n"
        "        rows[0][0] = 8.0\n"
        "    return 0\n"
    )
    cases = (
        {"xs": ["keep", 1], "table": {"k": 2}, "rows": [[1.0, 2.0]]},  # nothing touched
        {"xs": ["pop", 1], "table": {"k": 1}, "rows": [[9.0, 2.0]]},  # all three touched
    )
    job = Job(
        code=code,
        entry_point="f",
        cases=cases,
        parameters={"xs": "list", "table": "value", "rows": "ndarray"},
        limits=Limits(),
    )
    with Pool(workers=1, queue_size=1) as pool:
        result = pool.run(job, timeout=60)
    untouched, touched = (case.inputs_after for case in result.cases)
    assert untouched == {}
    assert touched is not None and set(touched) == {"xs", "table", "rows"}
    assert touched["xs"] == {"t": "list", "v": [{"t": "str", "v": "pop"}]}
    assert touched["table"]["v"][0][1] == {"t": "float", "v": 1.0}
    assert touched["rows"] == [[8.0, 2.0]]


def test_a_job_body_is_its_document_and_shared_cases_are_encoded_once() -> None:
    from sandbox import Job, Limits
    from sandbox.values import build_argument

    shared = {"p": [[0.5, 0.5]], "name": "\ud800 é ☃"}  # a lone surrogate and non-ASCII text
    own = {"p": [[1.0, -0.0]], "name": "x"}
    learner = Job(
        code="def f(p, name): pass",
        entry_point="f",
        cases=(own, shared),
        parameters={"p": "ndarray", "name": "value"},
        limits=Limits(),
    )
    reference = Job(
        code="def f(p, name): pass",
        entry_point="f",
        cases=(shared,),
        parameters={"p": "ndarray", "name": "value"},
        limits=Limits(),
        trusted=True,
    )
    memo: dict = {}
    bodies = [job.body(memo) for job in (learner, reference)]
    for job, body in zip((learner, reference), bodies, strict=True):
        read = json.loads(body)
        document = json.loads(json.dumps(job.document()))
        assert {k: v for k, v in read.items() if k != "cases"} == {
            k: v for k, v in document.items() if k != "cases"
        }
        # Every case as it was, but its ndarray input as bytes that build the same array.
        for sent, case in zip(read["cases"], job.cases, strict=True):
            assert sent["name"] == case["name"]
            assert set(sent["p"]) == {"f8", "shape"}
            built = build_argument("ndarray", sent["p"])
            assert built.dtype == np.float64 and built.flags.writeable and built.base is None
            assert built.tobytes() == np.array(case["p"], dtype=np.float64).tobytes()  # -0.0
        again = Job.from_document(read)
        assert again.parameters == job.parameters and len(again.cases) == len(job.cases)
    assert len(memo) == 2  # the shared case once, the learner's own once
    assert learner.body() == bodies[0]  # alone, the same bytes


@pytest.mark.parametrize(
    "raw",
    [
        [[0.1, 2.0**-1074], [1e308, -0.0]],  # the smallest subnormal, a huge number, a signed 0
        [1, True, 2.5],  # ints and bools: numpy's float64 of them, as the child always built
        [],
        [[], []],  # shape (2, 0): JSON lists can spell that one
        0.5,  # not a list: a 0-d array, sent as it came
    ],
)
def test_a_packed_array_builds_what_its_lists_build(raw: object) -> None:
    from sandbox.values import as_built, build_argument, packed_array

    packed = packed_array(raw)
    assert (type(packed) is dict) == (type(raw) is list)
    sent = json.loads(json.dumps(packed))
    built, plain = build_argument("ndarray", sent), build_argument("ndarray", raw)
    assert built.shape == plain.shape and built.tobytes() == plain.tobytes()
    assert as_built("ndarray", plain, sent) and as_built("ndarray", built, raw)


@pytest.mark.parametrize(
    "raw",
    [[[0.5], [0.5, 0.5]], [[1.0], 2.0], [10**400], {"empty": [0, 3]}, [["0.5"], "x"]],
)
def test_what_numpy_cannot_build_goes_as_it_came(raw: object) -> None:
    from sandbox.values import packed_array

    assert packed_array(raw) is raw  # the child then builds it (or reports why it cannot)


@pytest.mark.parametrize(
    "sent",
    [
        {"f8": "not base64!", "shape": [1]},
        {"f8": "AAAAAAAA8D8=", "shape": [2]},  # one number, two asked for
        {"f8": "AAAAAAAA8D8=", "shape": [-1]},
        {"f8": "AAAAAAAA8D8=", "shape": "1"},
        {"f8": 5, "shape": [1]},
    ],
)
def test_a_malformed_packed_array_is_a_value_error(sent: dict) -> None:
    from sandbox.values import build_argument

    with pytest.raises(ValueError):
        build_argument("ndarray", sent)


def test_the_bytes_kept_from_before_the_call_give_the_same_answers_as_rebuilding() -> None:
    from sandbox.values import PRISTINE_ITEMS, as_built, build_argument, pristine

    raw = [[0.0, 0.5], [0.25, 0.75]]
    kinds = {"p": "ndarray", "big": "ndarray", "xs": "list"}
    arguments = {
        "p": build_argument("ndarray", raw),
        "big": np.zeros(PRISTINE_ITEMS + 1),
        "xs": [1],
    }
    built = pristine(kinds, arguments)
    assert set(built) == {"p"}  # a large array is compared with its rebuilt input instead

    def both(value: object) -> tuple[bool, bool]:
        return as_built("ndarray", value, raw, built["p"]), as_built("ndarray", value, raw)

    p = arguments["p"]
    assert both(p) == (True, True)
    p[0, 0] = -0.0  # other bits, the same number: as built, as numpy's comparison says
    assert both(p) == (True, True)
    p[1, 1] = 0.5
    assert both(p) == (False, False)
    p[1, 1] = 0.75
    assert both(p.reshape(4)) == (False, False)  # the same bytes in another shape
    assert both(p.view(np.int64)) == (False, False)  # the same bytes as other numbers
    assert both(p.astype(np.float32)) == (False, False)
