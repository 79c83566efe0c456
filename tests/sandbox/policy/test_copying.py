"""copy and deepcopy write only into what they just made."""

from __future__ import annotations

import pytest

from tests.sandbox.policy.learner import run


def test_copy_never_writes_into_an_array_a_subclass_hands_back() -> None:
    source = (
        "import copy\n"
        "held = np.array(['a', 'b', 'c'], dtype=object)\n"
        "class Sneaky(np.ndarray):\n"
        "    def copy(self, *args, **kwargs):\n"
        "        return held\n"
        "def f():\n"
        "    copy.deepcopy(Sneaky((3,)))\n"
        "    copy.copy(Sneaky((3,)))\n"
        "    return held.tolist()\n"
    )
    assert run(source) == ["a", "b", "c"]


def test_deepcopy_takes_only_a_plain_dict_as_its_memo() -> None:
    source = (
        "import copy\n"
        "class Memo(dict):\n    pass\n"
        "def f():\n    return copy.deepcopy([1], Memo())\n"
    )
    with pytest.raises(TypeError, match="memo must be a dict"):
        run(source)
