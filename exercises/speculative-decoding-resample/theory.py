"""The theory page of the speculative-decoding exercises: why the output is exactly the
target's, checked token by token on the worked example, and what one target pass buys.

Trusted code, run by the judge on the host when the exercise loads (never in the sandbox):
``theory()`` returns the page as blocks the exercise page draws (Markdown with KaTeX, tables,
line plots). Every number here is computed, and the exactness identity is checked: a failure
stops the exercise from loading, so the page never shows a table that does not add up.
"""

from fractions import Fraction

P0 = [Fraction(2, 10), Fraction(5, 10), Fraction(3, 10)]
Q0 = [Fraction(5, 10), Fraction(3, 10), Fraction(2, 10)]
ALPHAS = [0.5, 0.7, 0.8, 0.9]
K_MAX = 10

INTRO = """The draft proposes a token $x$ with probability $q(x)$ and the verifier keeps it with
probability $\\min\\bigl(1, p(x)/q(x)\\bigr)$. So $x$ is proposed **and** kept with probability
$q(x)\\min\\bigl(1, p(x)/q(x)\\bigr) = \\min\\bigl(p(x), q(x)\\bigr)$, and a proposal survives
with probability $\\alpha = \\sum_x \\min\\bigl(p(x), q(x)\\bigr)$.

After a rejection, which happens with probability $1 - \\alpha$, the replacement is drawn from
the residual $r = \\operatorname{norm}\\bigl(\\max(0, p - q)\\bigr)$. It only has mass where the draft
proposes a token *less* often than the target would, and that missing mass totals exactly
$\\sum_x \\max\\bigl(0, p(x) - q(x)\\bigr) = 1 - \\alpha$. Adding both ways of emitting $x$:

$$\\Pr[\\text{emit } x] = \\min\\bigl(p(x), q(x)\\bigr) + (1 - \\alpha)\\, r(x) = p(x).$$

Where $p(x) \\le q(x)$ the minimum already is $p(x)$ and the residual is zero; where
$p(x) > q(x)$ the minimum gives $q(x)$ and the residual adds the missing $p(x) - q(x)$.
Nothing is approximated: the output is a sample of the target distribution."""

COSTS = """### How many tokens does one target pass buy?

If each drafted token is accepted with probability $\\alpha$, and every pass also emits one
token of its own (the replacement, or the bonus token when all $K$ are kept), the expected
number of tokens per target pass is

$$E(K) = 1 + \\alpha + \\alpha^2 + \\dots + \\alpha^K = \\frac{1 - \\alpha^{K+1}}{1 - \\alpha}.$$

It levels off at $1/(1 - \\alpha)$, while drafting costs $K$ small-model steps per pass:
pick $K$ where the tokens gained per unit of total cost peak. A well-matched draft
($\\alpha$ near 0.8 or 0.9) justifies longer drafts; a poor one does not."""


def decimal(value, places=3):
    text = f"{float(value):.{places}f}".rstrip("0").rstrip(".")
    return text or "0"


def fraction(value):
    value = Fraction(value)
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )


def expected_tokens(alpha, k):
    return sum(alpha**i for i in range(k + 1))


def exactness_table():
    """min(p, q) + (1 - alpha) r = p on every token, in exact arithmetic."""
    overlap = [min(p, q) for p, q in zip(P0, Q0)]
    alpha = sum(overlap)
    excess = [max(Fraction(0), p - q) for p, q in zip(P0, Q0)]
    residual = [e / sum(excess) for e in excess]
    total = [m + (1 - alpha) * r for m, r in zip(overlap, residual)]
    checks = [t == p for t, p in zip(total, P0)]
    if not all(checks):
        raise ValueError("the worked example does not add up to p: the theory page is wrong")
    rows = [
        [
            str(x),
            decimal(P0[x]),
            decimal(Q0[x]),
            decimal(overlap[x]),
            decimal(excess[x]),
            fraction(residual[x]),
            decimal(total[x], 6),
        ]
        for x in range(len(P0))
    ]
    footer = [
        "sum",
        decimal(sum(P0)),
        decimal(sum(Q0)),
        f"α = {decimal(alpha)}",
        f"1 − α = {decimal(sum(excess))}",
        decimal(sum(residual)),
        decimal(sum(total), 6),
    ]
    return {
        "table": {
            "caption": "The worked example's first position, $p_0 = [0.2, 0.5, 0.3]$, "
            "$q_0 = [0.5, 0.3, 0.2]$: computed exactly when the exercise loads.",
            "header": ["x", "p", "q", "min(p, q)", "(p − q)⁺", "r", "min + (1−α) r"],
            "rows": rows,
            "checks": {"header": "= p?", "passed": checks},
            "footer": footer,
            "key": "Columns: token $x$; target $p$ and draft $q$; $(p - q)^+ = \\max(0, p - q)$, "
            "the mass the draft under-proposes; $r = (p - q)^+ / (1 - \\alpha)$, the residual a "
            "rejection resamples from.",
        }
    }


def theory():
    series = [
        {
            "name": f"α = {alpha}",
            "points": [[k, expected_tokens(alpha, k)] for k in range(K_MAX + 1)],
        }
        for alpha in ALPHAS
    ]
    return {
        "title": "Theory: why the output is exactly the target's",
        "blocks": [
            {"markdown": INTRO},
            {"heading": "Checked on the worked example"},
            exactness_table(),
            {
                "markdown": "Every token gets exactly its target probability: the kept-or-replaced "
                "token is a sample of $p_0$."
            },
            {"markdown": COSTS},
            {
                "plot": {
                    "title": "Expected tokens per target pass against K",
                    "x_label": "K, tokens drafted per target pass",
                    "y_label": "E(K), tokens per target pass",
                    "caption": "Expected tokens per target pass, $E(K)$, for $K = 0, \\dots, 10$ "
                    "and four acceptance rates. The number at the end of each line is $E(10)$.",
                    "series": series,
                }
            },
        ],
    }
