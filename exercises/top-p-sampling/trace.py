def trace(probs, top_p, rng):
    """The reference's draw as one ``sample`` record: the kept prefix, the renormalised
    weights, the running sums over every token id, u and the interval it fell in."""
    vocabulary = len(probs)
    ranked = sorted(range(vocabulary), key=lambda i: (-probs[i], i))
    kept = list(ranked)
    total = 0.0
    reached = None
    for n, i in enumerate(ranked, start=1):
        total += probs[i]
        if total >= top_p:
            kept = ranked[:n]
            reached = total
            break
    # Worded by the judge as "<source> = <raw>, normalised <weights>; running sums over
    # <source> <running>": the nucleus in its order, and the sum that reached top_p.
    if reached is None:
        how = f"every token: the total {total!r} stays below top_p = {top_p:g} by round-off"
    elif len(kept) == 1:  # one token: its probability alone, no sum to show
        how = f"its probability {reached:.10g} >= top_p = {top_p:g}"
    elif len(kept) <= 8:
        terms = " + ".join(f"{probs[i]:.10g}" for i in kept)
        how = f"by probability, {terms} = {reached:.10g} >= top_p = {top_p:g}"
    else:
        how = f"by probability, {len(kept)} tokens whose sum {reached:.10g} >= top_p = {top_p:g}"
    shown = kept if len(kept) <= 12 else kept[:12] + ["..."]
    source = "the nucleus {" + ", ".join(map(str, shown)) + "} (" + how + ")"
    mass = sum(probs[i] for i in kept)
    chosen = set(kept)
    raw = [float(p) if i in chosen else 0.0 for i, p in enumerate(probs)]
    weights = [p / mass for p in raw]
    running = []
    acc = 0.0
    for w in weights:
        acc += w
        running.append(acc)
    u = float(rng.random())
    token = next((i for i, c in enumerate(running) if u < c), None)
    if token is None:  # round-off: the last kept token of positive probability owns the rest
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
