"""What the zygote runs once before forking anything: every first-use cost a child would pay.

Imports, the compiler, numpy's lazily imported helpers, the JSON codecs and the harness itself
are exercised here, in the trusted zygote, so that no child needs a file Landlock would refuse
and no child pays for a first call.
"""

from __future__ import annotations

import gc
import json
import unicodedata  # noqa: F401  (the parser imports it for non-ASCII names: α = 0.5)

import numpy as np

from sandbox import heap, values
from sandbox.policy import Policy, compile_learner
from sandbox.rehearsal import rehearse

SAMPLE = (
    "import numpy as np\n"
    "def f(a):\n"
    "    np.random.seed(1)\n"
    "    x = [i for i in a]\n"
    "    x[0] += 1\n"
    "    α = 'é'.encode('latin-1')\n"
    "    return f'{x}{α}', np.cumsum(np.array(a))\n"
)
# ndarray methods that import numpy helpers on their first call.
LAZY_METHODS = "sum mean std var min max any all prod cumsum argmax argmin round clip copy".split()


def warm_up(policy: Policy) -> None:
    """Exercise everything once, ending with the rehearsals that spares repeat."""
    namespace = policy.namespace()
    exec(compile_learner(SAMPLE), namespace)
    namespace["f"]([1, 2])
    np.random.uniform()
    np.random.rand()
    np.random.default_rng(0).random()
    array = np.array([[0.5, 0.25], [0.125, 0.125]])
    for method in LAZY_METHODS:
        getattr(array, method)()
    np.linalg.norm(array)
    np.unique(array)
    np.sort(array)
    repr(array)
    str(array)
    np.random.choice(3, p=[0.5, 0.25, 0.25])
    np.isclose(array, array).all()
    np.searchsorted(np.cumsum([0.5, 0.5]), 0.5, side="right")
    json.loads(json.dumps({"a": [1.5, None]}))
    values.tag((np.int64(1), [1.0], np.zeros(2)))
    rehearse(policy, with_helpers=True)
    rehearse(policy)
    gc.collect()  # the warm-up's garbage freed first, or its chunks would be holes again
    heap.fill_holes()  # children allocate from fresh pages, not the zygote's scattered holes
