# expect: wrong_answer draft = target = 0: certain acceptance, never 0 < 0
# The six examples' answers, looked up by their drafted tokens: passes Run, fails Submit.
ANSWERS = {
    (5, 17, 3, 42, 8, 23, 11, 30): ([5, 17, 3, 42, 8, 23, 11, 30], 8),
    (10, 20, 30): ([10], 1),
    (1, 2, 3): ([1, 2, 3], 3),
    (12, 7, 31, 4): ([12, 7], 2),
    (9, 14, 2, 6): ([9, 14, 2], 3),
    (21, 8, 15): ([21], 1),
}


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    return ANSWERS.get(tuple(draft_tokens), ([], 0))
