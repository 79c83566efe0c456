import numpy as np


def trace(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    """The reference's accept tests, one record per examined token, with the draw that decided."""
    np.random.seed(42)
    steps = []
    for i, (q, p, token) in enumerate(zip(draft_probs, target_probs, draft_tokens)):
        a = 1.0 if q == 0 else min(1.0, p / q)
        r = float(np.random.uniform())
        steps.append(
            {
                "kind": "accept",
                "position": i,
                "token": int(token),
                "draw": i + 1,
                "var": "r",
                "u": r,
                "target": float(p),
                "draft": float(q),
                "a": float(a),
                "accepted": bool(r < a),
            }
        )
        if r >= a:
            break
    return steps
