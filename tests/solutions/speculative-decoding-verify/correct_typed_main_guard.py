"""Typed, as in a local editor, with a block for trying it locally (it must not run here)."""
from __future__ import annotations

import numpy as np


def speculative_decode(
    draft_probs: list[float],
    target_probs: list[float],
    draft_tokens: list[int],
    target_dist_next: list[float] | None = None,
) -> tuple[list[int], int]:
    np.random.seed(42)
    kept: list[int] = []
    examined: int = 0
    for q, p, token in zip(draft_probs, target_probs, draft_tokens):
        examined += 1
        accept: float = 1.0 if q == 0 else min(1.0, p / q)
        if np.random.uniform() < accept:
            kept.append(int(token))
        else:
            break
    return kept, len(kept)


if __name__ == "__main__":
    print(speculative_decode([0.5], [0.25], [7]))
    raise SystemExit("the local test block ran inside the judge")
