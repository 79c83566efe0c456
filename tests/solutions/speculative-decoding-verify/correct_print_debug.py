import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    accepted = []
    for i, (q, p) in enumerate(zip(draft_probs, target_probs)):
        a = 1.0 if q == 0 else min(1.0, p / q)
        r = np.random.uniform(0, 1)
        print(f"pos {i}: token={draft_tokens[i]} a={a:.4f} r={r:.4f}")
        if r < a:
            accepted.append(draft_tokens[i])
            continue
        print("rejected, stopping")
        break
    print("kept", accepted)
    return accepted, len(accepted)
