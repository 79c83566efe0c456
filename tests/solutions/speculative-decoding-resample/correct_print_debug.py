import numpy as np


def speculative_step(p, q, draft, rng):
    print(f"gamma={len(draft)}, vocab={p.shape[1]}")
    out = []
    for i, x in enumerate(draft):
        u = rng.random()
        ratio = p[i, x] / q[i, x]
        print(f"  position {i}: proposal {x}, ratio {ratio:.3f}, u {u:.3f}")
        if u < ratio:
            out.append(x)
            continue
        residual = np.maximum(p[i] - q[i], 0.0)
        residual = residual / residual.sum()
        print(f"  rejected; residual {np.round(residual, 3)}")
        out.append(sample(residual, rng))
        print("  result", out)
        return out
    out.append(sample(p[len(draft)], rng))
    print("  all accepted, with bonus:", out)
    return out
