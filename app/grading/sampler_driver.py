"""The sampler check's driver: trusted code sent as text to the learner's confined child.

Not imported by the judge: ``app.sampler_jobs`` reads this file and hands its source to the
sandbox as a job's ``driver``, which the child runs as plain Python in a namespace of its own
and calls as ``drive(function, Generator, *arguments)``. The arguments are the exercise's own
parameters (every one but the generator, built by their kinds as for a case), then where the
generator goes in the call, the number of bins, whether every call must draw, the trials and
the seed. It returns counts only; the host does the statistics (``app.sampler``).
"""

import numpy as np

# Exact types only: a token is checked before the driver touches it further.
INTEGERS = {int} | {np.dtype(code).type for code in "bBhHiIlLqQ"}


# Arguments a call cannot change (JSON's scalars, as the child builds them): one object serves
# every call.
IMMUTABLE = {int, float, str, bool, type(None)}


def _fresh(value):
    """A new copy of an argument for every call: a function that edits its input must not
    change what the next call gets."""
    if type(value) is list:
        return [_fresh(item) for item in value]
    if type(value) is dict:
        return {key: _fresh(item) for key, item in value.items()}
    if isinstance(value, np.ndarray):
        return value.copy()
    return value


def _copier(value):
    """How every call gets its own copy of ``value``, chosen once for all the calls: none for
    a scalar, a shallow copy for a list of scalars (the common input: probabilities, logits),
    the deep one otherwise. The loop runs hundreds of times per input: walking each item of
    every argument on every call was a large part of the driver's own cost."""
    if type(value) in IMMUTABLE:
        return None
    if type(value) is list and all(type(item) in IMMUTABLE for item in value):
        return list.copy
    return _fresh


def drive(function, Generator, *arguments):
    """Call ``function`` ``trials`` times with one generator seeded from ``seed`` across all
    of them; count the tokens it returns (``counts[t]``: calls that returned token t)."""
    *given, rng_at, bins, must_draw, trials, seed = arguments
    plan = [(_copier(value), value) for value in given]
    rng = Generator(seed)
    counts = [0] * bins
    for trial in range(1, trials + 1):
        drawn = rng.draws
        call = [value if copy is None else copy(value) for copy, value in plan]
        call.insert(rng_at, rng)
        token = function(*call)
        if type(token) not in INTEGERS:
            kind = type(token).__name__[:40]
            return {"invalid": {"trial": trial, "reason": "token", "type": kind}}
        if not 0 <= token < bins:
            return {"invalid": {"trial": trial, "reason": "range", "token": int(token)}}
        if must_draw and rng.draws == drawn:
            # A call that draws nothing returns a schedule, which can match any histogram:
            # the counts would say nothing about the function.
            return {"invalid": {"trial": trial, "reason": "no_draw"}}
        counts[token] += 1
    return {"trials": trials, "counts": counts, "draws": rng.draws}
