"""The host's reading of child frames: what a child writes is made safe before it is believed."""

from __future__ import annotations

import json

from sandbox.protocol import FrameReader, encode


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
    import numpy as np

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
