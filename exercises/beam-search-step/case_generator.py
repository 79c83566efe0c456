"""Submit's random cases for one beam-search step (trusted: runs in the judge, not the sandbox)."""

import numpy as np

# Two candidate scores are either exactly equal (a tie, decided by the rule) or further apart
# than this, relative to their size: no pair that a sum in another order could swap.
MARGIN = 1e-9


def _grid(rng, shape):
    """Multiples of -1/4 down to -4: every sum of two is exact, so ties are exact ties."""
    return (-0.25 * rng.integers(0, 17, size=shape) + 0.0).tolist()  # + 0.0: no -0.0


def _log_softmax_rows(rng, beams, vocabulary):
    """Real next-token log-probabilities: each row the log of a Dirichlet draw."""
    probs = rng.dirichlet(np.full(vocabulary, float(rng.choice([0.3, 1.0, 3.0]))), size=beams)
    return np.log(np.maximum(probs, 1e-300)).tolist()


def _clear(scores):
    """Sorted candidate scores: neighbours equal or clearly apart."""
    ordered = sorted(scores)
    for low, high in zip(ordered, ordered[1:]):
        if low != high and high - low <= MARGIN * max(1.0, abs(low)):
            return False
    return True


def random_case(rng):
    """One input: 1 to 5 beams with prefixes of 0 to 4 tokens, 1 to 8 tokens, beam_width from
    1 to 8 (beam widths in use are small) or, one case in five, up to B x V + 2 (more than every
    candidate). Half the cases sit on a grid of quarters, where exact ties are common; half use
    real log-probabilities. The sizes keep a Submit's report quick to build: the judge compares
    every returned beam item by item."""
    count = int(rng.integers(1, 6))
    vocabulary = int(rng.integers(1, 9))
    widest = count * vocabulary + 2 if rng.random() < 0.2 else min(8, count * vocabulary + 2)
    width = int(rng.integers(1, widest + 1))
    prefixes = [rng.integers(0, 50, size=int(rng.integers(0, 5))).tolist() for _ in range(count)]
    on_grid = rng.random() < 0.5
    while True:
        if on_grid:
            scores = _grid(rng, count)
            log_probs = _grid(rng, (count, vocabulary))
        else:
            scores = [float(-rng.exponential(3.0)) for _ in range(count)]
            log_probs = _log_softmax_rows(rng, count, vocabulary)
        candidates = [s + lp for s, row in zip(scores, log_probs) for lp in row]
        if _clear(candidates):
            beams = [[prefix, score] for prefix, score in zip(prefixes, scores)]
            return {"beams": beams, "log_probs": log_probs, "beam_width": width}


if __name__ == "__main__":
    print(random_case(np.random.default_rng(0)))
