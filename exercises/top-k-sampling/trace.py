import math


def trace(logits, k, temperature, rng):
    """The reference's draw as one ``sample`` record: the kept set's weights, the running sums
    over every token id, u and the interval it fell in."""
    vocabulary = len(logits)
    ranked = sorted(range(vocabulary), key=lambda i: (-logits[i], i))
    kept = sorted(ranked[:k])
    top = logits[ranked[0]]
    raw = [0.0] * vocabulary
    for i in kept:
        raw[i] = math.exp((logits[i] - top) / temperature)
    total = sum(raw[i] for i in kept)
    weights = [w / total for w in raw]
    running = []
    acc = 0.0
    for w in weights:
        acc += w
        running.append(acc)
    u = float(rng.random())
    # Worded by the judge as "<source> = <raw>, normalised <weights>; running sums over
    # <source> <running>": the kept set, and how its weights were made.
    kept_text = "{" + ", ".join(map(str, kept)) + "}"
    source = f"the kept tokens {kept_text} (weights exp((logit - {top:.10g}) / {temperature:.10g}))"
    token = next((i for i, c in enumerate(running) if u < c), None)
    if token is None:  # round-off: the last kept token of positive weight owns the rest
        token = max(i for i, w in enumerate(weights) if w > 0)
        interval = [running[-1], 1.0]
    else:
        interval = [running[token - 1] if token > 0 else 0.0, running[token]]
    return [
        {
            "kind": "sample",
            "position": 0,
            "source": source,
            "raw": raw,
            "weights": weights,
            "running": running,
            "draw": 1,
            "var": "u",
            "u": u,
            "token": token,
            "interval": interval,
        }
    ]
