def trace(probs, rng):
    """The reference's draw as one ``sample`` record: the running sums, u, the interval it hit."""
    u = float(rng.random())
    running = []
    total = 0.0
    for p in probs:
        total += p
        running.append(total)
    token = next((i for i, c in enumerate(running) if u < c), None)
    if token is None:
        # No running sum exceeds u (round-off): the last token of positive probability owns the
        # rest of [0, 1).
        token = max(i for i, p in enumerate(probs) if p > 0)
        interval = [running[-1], 1.0]
    else:
        interval = [running[token - 1] if token > 0 else 0.0, running[token]]
    return [
        {
            "kind": "sample",
            "position": 0,
            "source": "probs",
            "weights": [float(p) for p in probs],
            "running": running,
            "draw": 1,
            "var": "u",
            "u": u,
            "token": token,
            "interval": interval,
        }
    ]
