"""Everyday Python and numpy that the policy must let through, run in the real sandbox.

Each snippet runs inside an otherwise correct solution of the verify exercise (at module level
or inside the graded function), so the submission is accepted only if the snippet ran without
the policy, the compiler or the confinement getting in its way.
"""

from __future__ import annotations

import pytest

from app.catalog import Catalog
from app.grading.judge import Judge

CORRECT_BODY = """
def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    accepted = []
    for q, p, token in zip(draft_probs, target_probs, draft_tokens):
        if np.random.uniform() < (1.0 if q == 0 else min(1.0, p / q)):
            accepted.append(int(token))
        else:
            break
    probe()
    return accepted, len(accepted)
"""

# name: (module-level code, the body of probe())
EVERYDAY = {
    "type hints and annotated assignments": (
        "from typing import Optional\n",
        "n: int = 0\n    xs: list[float] = [0.5]\n"
        "    def f(x: Optional[list[int]] = None) -> int:\n        return 0\n    f()",
    ),
    "main guard does not run": (
        'if __name__ == "__main__":\n    raise SystemExit("ran the local test block")\n',
        "pass",
    ),
    "class with special methods and super()": (
        "class Base:\n    def __init__(self, n):\n        self.n = n\n"
        "class Bag(Base):\n    def __init__(self):\n        super().__init__(2)\n"
        "    def __len__(self):\n        return self.n\n    def __iter__(self):\n"
        "        return iter(range(self.n))\n    def __getitem__(self, i):\n        return i\n"
        "    def __repr__(self):\n        return f'Bag({self.n})'\n"
        "    def __add__(self, other):\n        return self.n + other\n",
        "b = Bag()\n    assert len(b) == 2 and list(b) == [0, 1] and b[1] == 1 and b + 1 == 3\n"
        "    assert repr(b) == 'Bag(2)'",
    ),
    "closures with nonlocal": (
        "",
        "count = 0\n    def bump():\n        nonlocal count\n        count += 1\n    bump()\n"
        "    assert count == 1",
    ),
    "non-ASCII names and text": ("", "α = 0.5\n    print(f'α = {α} → ok ✓')"),
    "format specifications": (
        "",
        "x = 1 / 3\n    s = f'{x:.2%} {x:e} {x!r:>12} {1_000_000:_} {255:#x} {3:03d}'\n"
        "    s += '{:,.2f}'.format(1234.5)",
    ),
    "standard modules": (
        "import math, statistics, itertools, functools, heapq, bisect, collections\n"
        "from fractions import Fraction\n",
        "math.isclose(0.1 + 0.2, 0.3); statistics.NormalDist(0, 1).cdf(0.5)\n"
        "    list(itertools.combinations([1, 2, 3], 2)); functools.reduce(max, [1, 2])\n"
        "    heapq.nsmallest(1, [2, 1]); bisect.bisect_right([1, 2], 1)\n"
        "    collections.Counter('abca').most_common(1); Fraction(1, 3) + Fraction('0.25')\n"
        "    collections.namedtuple('P', 'x y')(1, 2).x",
    ),
    "numpy, everyday": (
        "",
        "x = np.array([0.1, 0.2, 0.7]); rng = np.random.default_rng(0)\n"
        "    rng.choice(3, p=x); np.random.choice(3, p=x); np.argmax(x); np.where(x > 0.15, 1, 0)\n"
        "    np.einsum('i,i->', x, x); np.linalg.norm(x); np.histogram(x, bins=2)\n"
        "    np.unique([1, 1, 2], return_counts=True); np.take(x, [0, 2]); np.cumsum(x)[-1]\n"
        "    np.searchsorted(np.cumsum(x), 0.5, side='right'); np.nanmean(x); np.ptp(x)\n"
        "    np.polyval(np.polyfit([0, 1, 2], [1, 2, 3], 1), 3); np.percentile(x, 50)\n"
        "    np.vectorize(lambda v: v * 2)(x); np.pad(x, 1); np.broadcast_to(x, (2, 3))\n"
        "    print(x, repr(x), np.float64(0.1), x.dtype, x.shape, np.array([[1.0, 2.0]]))",
    ),
    "large arrays": (
        "",
        "big = np.zeros((1024, 1024)); big += 1.0; assert float(big.sum()) == 1024 * 1024\n"
        "    grown = np.concatenate([big.ravel(), big.ravel()]); assert grown.size == 2 * 1024**2\n"
        "    del big, grown",
    ),
    "numpy print options and error states": (
        "",
        "with np.printoptions(precision=2):\n        str(np.array([1 / 3]))\n"
        "    with np.errstate(divide='ignore'):\n        np.array([1.0]) / np.array([0.0])\n"
        "    np.log(np.array([0.0]))",
    ),
    "copy and deepcopy": (
        "import copy\nfrom copy import deepcopy\n"
        "class Node:\n    def __init__(self, value):\n        self.value = value\n"
        "        self.children = []\n",
        "rows = [[1, 2], [3]]; deep = deepcopy(rows); deep[0].append(9)\n"
        "    assert rows == [[1, 2], [3]] and deep == [[1, 2, 9], [3]]\n"
        "    flat = copy.copy(rows); flat[1].append(4); assert rows[1] == [3, 4]\n"
        "    a = np.arange(3.0); b = copy.deepcopy({'a': a, 't': (a, 1)}); b['a'][0] = 7\n"
        "    assert a[0] == 0 and b['t'][0] is b['a']\n"
        "    loop = [1]; loop.append(loop); twin = deepcopy(loop); assert twin[1] is twin\n"
        "    tree = Node(1); tree.children.append(Node(2)); other = deepcopy(tree)\n"
        "    other.children[0].value = 5; assert tree.children[0].value == 2\n"
        "    assert type(other) is Node and copy.copy(tree).children is tree.children\n"
        "    table = deepcopy({'f': len, 'k': Node})\n"
        "    assert table['f'] is len and table['k'] is Node",
    ),
    "exceptions and generators": (
        "class MyError(ValueError):\n    pass\n",
        "try:\n        raise MyError('x')\n    except ValueError as error:\n        str(error)\n"
        "    def gen():\n        for x in range(3):\n            yield x\n"
        "    assert sum(gen()) == 3",
    ),
}


@pytest.mark.parametrize("name", list(EVERYDAY))
def test_everyday_code_runs(judge: Judge, catalog: Catalog, name: str) -> None:
    module, probe = EVERYDAY[name]
    code = (
        "from __future__ import annotations\nimport numpy as np\n"
        + module
        + f"\n\ndef probe():\n    {probe}\n"
        + CORRECT_BODY
    )
    report = judge.grade(catalog.get("speculative-decoding-verify"), code)
    first = report.tests[0]
    assert report.verdict.value == "accepted", (report.message, first.message)


@pytest.mark.parametrize(
    ("copied", "says"),
    [
        ("np.random.default_rng(0)", "cannot copy a random generator (Generator)"),
        ("np.random.RandomState(0)", "cannot copy a random generator (RandomState)"),
        ("iter([1, 2])", "cannot copy a list_iterator in the judge"),
        ("np", "cannot copy a Surface in the judge"),
    ],
)
def test_copy_refuses_what_it_cannot_copy_with_a_sentence(
    judge: Judge, catalog: Catalog, copied: str, says: str
) -> None:
    code = (
        "import copy\nimport numpy as np\n\n"
        "def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):\n"
        f"    copy.deepcopy({copied})\n"
        "    return [], 0\n"
    )
    report = judge.grade(catalog.get("speculative-decoding-verify"), code)
    message = report.tests[0].message or ""
    assert report.verdict.value == "runtime_error", report.message
    assert "TypeError" in message and says in message, message


def test_the_judges_generator_cannot_be_copied_to_peek_at_draws(
    judge: Judge, catalog: Catalog
) -> None:
    code = (
        "import copy\n\n"
        "def speculative_step(p, q, draft, rng):\n"
        "    copy.copy(rng)\n"
        "    return [0]\n"
    )
    report = judge.grade(catalog.get("speculative-decoding-resample"), code)
    messages = " ".join(test.message or "" for test in report.tests)
    assert report.passed == 0
    assert "cannot copy a random generator" in messages and "counts its draws" in messages
