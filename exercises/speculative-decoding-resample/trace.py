import numpy as np


def inverse_cdf(weights, rng):
    # The given sample(): inverse CDF over the running sums, one draw, last positive on round-off.
    running = np.cumsum(weights)
    u = float(rng.random())
    token = int(np.searchsorted(running, u, side="right"))
    if token >= len(weights):
        token = int(np.flatnonzero(weights > 0)[-1])
    low = float(running[token - 1]) if token > 0 else 0.0
    return u, token, [low, float(running[token])], running.tolist()


def trace(p, q, draft, rng):
    """The reference's step, one record per draw: accept tests, then the residual or bonus sample."""
    steps = []
    draw = 0
    for i, x in enumerate(draft):
        u = float(rng.random())
        draw += 1
        ratio = float(p[i, x] / q[i, x]) if q[i, x] > 0 else float("inf")
        if q[i, x] == 0 and p[i, x] == 0:
            ratio = 0.0  # numpy's 0 / 0 is nan, and u < nan is False: the reference rejects
        accepted = u < ratio
        steps.append(
            {
                "kind": "accept",
                "position": i,
                "token": int(x),
                "draw": draw,
                "var": "u",
                "u": u,
                "target": float(p[i, x]),
                "draft": float(q[i, x]),
                "a": min(1.0, ratio),
                "accepted": bool(accepted),
            }
        )
        if accepted:
            continue
        raw = np.maximum(p[i] - q[i], 0.0)
        source = f"the residual max(0, p[{i}] - q[{i}])"
        steps.append(sample_step(i, source, raw / raw.sum(), draw + 1, rng, raw=raw))
        return steps
    gamma = len(draft)
    source = f"the bonus row p[{gamma}] (every proposal was kept)"
    steps.append(sample_step(gamma, source, p[gamma], draw + 1, rng))
    return steps


def sample_step(position, source, weights, draw, rng, raw=None):
    """The record of the final sample: what it drew from, the draw and the interval it hit."""
    u, token, interval, running = inverse_cdf(weights, rng)
    step = {"kind": "sample", "position": position, "source": source}
    if raw is not None:
        step["raw"] = raw.tolist()
    step.update(
        {
            "weights": weights.tolist(),
            "running": running,
            "draw": draw,
            "var": "u",
            "u": u,
            "token": token,
            "interval": interval,
        }
    )
    return step
