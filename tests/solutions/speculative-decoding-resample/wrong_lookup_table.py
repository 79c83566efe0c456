# expect: wrong_answer gamma = 0: no proposals, the step is one bonus token from p[0]
# The six examples' answers, looked up by draft and the first random number: passes Run only.
ANSWERS = {
    ((1, 2), 0.5): ([1, 2, 0], 3),
    ((0, 2), 0.5): ([2], 2),
    ((1, 3), 0.5): ([0], 2),
    ((0, 0, 1), 0.75): ([0, 0, 2], 4),
    ((1, 0, 3, 2), None): ([1, 0, 2], 4),
    ((0, 2, 4), None): ([0, 2, 4, 2], 4),
}


def speculative_step(p, q, draft, rng):
    key = tuple(int(x) for x in draft)
    for (tokens, first), (answer, draws) in ANSWERS.items():
        if tokens == key:
            for _ in range(draws):
                rng.random()
            return list(answer)
    rng.random()
    return [0]
