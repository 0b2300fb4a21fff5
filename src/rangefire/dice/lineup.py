"""Exact odds of a *lineup*: two pools sorted highest first and compared die by die.

Each side's dice are sorted from highest to lowest and compared in pairs; a side that runs out compares a
phantom die of a fixed value. :func:`lineup_scores` gives the exact distribution of how many pairs one side
wins strictly, without enumerating rolls: a dynamic programme walks the die *values* from high to low and,
at each value, places how many dice of each side show it, weighted by binomial coefficients. The state is
(dice placed on side X, dice placed on side Y, pairs won so far).

Placed in that order (at a tie Y's dice first), X's die number ``q`` wins its pair when Y has placed at most ``q``
dice so far: X's dice *score as they are placed*, Y's never do. Placing ``k`` X dice at once from ``a`` to
``a + k`` therefore adds ``phi(a + k, d) - phi(a, d)`` (``phi(a, d) = max(a - d, 0)``, or with phantoms of equal
or higher value ``max(min(a, D) - d, 0)``), so ``score - phi(a, d)`` does not change while X places dice, and
``score`` does not change while Y does. Kept in the one form for Y's steps and the other for X's, every step is
the same binomial matrix applied along one axis to every column at once: a matrix product, done in exact
residue arithmetic (:mod:`rangefire.dice.modular`) and rebuilt into exact integers at the end. Small pools
(:data:`SMALL_LINEUP`) are walked state by state in Python integers instead, each score distribution packed into
one integer (Kronecker substitution): there that is quicker than setting up the matrices.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from rangefire.dice.dist import Dist

#: Up to this many states (A + 1) * (D + 1) the lineup is walked in Python integers, state by state, beyond it
#: as matrix products: measured, a first call (no tables kept) takes about the same time either way from 25 to 50
#: states (4 against 4 to 6 against 6, or 10 against 3); calls of a shape seen before favour the matrices there.
SMALL_LINEUP = 50


@dataclass(frozen=True)
class Pool:
    """``count`` dice whose values are ``face + bonus`` with integer weights per face.

    ``sixes`` (optional) splits the weight of the top face into the part that counts as a *first-roll six*
    (for a critical hit judged before rerolls) and the rest: ``(first_roll, rerolled)``.
    """

    count: int
    weights: Mapping[int, int]
    bonus: int = 0
    sixes: tuple[int, int] | None = None

    @property
    def total(self) -> int:
        return sum(self.weights.values())


def reroll_weights(at_most: int, faces: int = 6) -> dict[int, int]:
    """Face weights (out of faces^2, or faces without rerolls) of a die rerolled once when it shows <= T.

    >>> reroll_weights(0)
    {1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1}
    >>> reroll_weights(2)
    {1: 2, 2: 2, 3: 8, 4: 8, 5: 8, 6: 8}
    """
    if at_most <= 0:
        return dict.fromkeys(range(1, faces + 1), 1)
    return {f: at_most + (faces if f > at_most else 0) for f in range(1, faces + 1)}


def lineup_scores(x: Pool, y: Pool, phantom: int = 2, crit: str | None = None, crit_sixes: int = 3,
                  crit_hits: int = 1) -> Dist[int]:
    """Distribution of the number of pairs in which X's die is strictly higher than Y's, plus X's critical hits:
    with ``crit`` ``"one"``, ``crit_hits`` more for ``crit_sixes`` or more first-roll sixes; with ``"per-set"``,
    ``crit_hits`` more for each full set of ``crit_sixes`` of them; with None, none.

    A missing die on either side is a phantom of value ``phantom``.

    >>> d6 = reroll_weights(0)
    >>> lineup_scores(Pool(1, d6), Pool(1, d6)).probabilities()
    {0: Fraction(7, 12), 1: Fraction(5, 12)}
    >>> lineup_scores(Pool(1, d6), Pool(0, d6)).probability(1)   # a die beats a phantom 2 on 3+
    Fraction(2, 3)
    """
    if crit not in (None, "one", "per-set") or crit_sixes < 1 or crit_hits < 0:
        raise ValueError(f"no such critical rule: {crit!r}, {crit_sixes} sixes, {crit_hits} hits")
    A, D = x.count, y.count
    total = x.total**A * y.total**D
    if A == 0:
        return Dist({0: total})  # X has no die to win a pair with, nor to roll a critical
    if (A + 1) * (D + 1) <= SMALL_LINEUP:
        return _small_lineup(x, y, phantom, crit, crit_sixes, crit_hits)
    from rangefire.dice.lineup_steps import ValueStep, score_counts  # numpy, loaded when odds are asked for

    values = sorted({f + x.bonus for f, w in x.weights.items() if w} | {f + y.bonus for f, w in y.weights.items()
                                                                       if w}, reverse=True)
    top_x = max(f for f, w in x.weights.items() if w) + x.bonus
    steps = _x_steps(A, x.weights[top_x - x.bonus], x, crit, crit_sixes, crit_hits) if crit is not None else None
    # X's top face comes first of X's values, when X has placed nothing: criticals are settled there.
    plan = [ValueStep(v > phantom, y.weights.get(v - y.bonus, 0) if D else 0, x.weights.get(v - x.bonus, 0),
                      steps if v == top_x else None) for v in values]
    return Dist(dict(enumerate(score_counts(A, D, plan, total))))


def _small_lineup(x: Pool, y: Pool, phantom: int = 2, crit: str | None = None, crit_sixes: int = 3,
                  crit_hits: int = 1) -> Dist[int]:
    """The same walk state by state in Python integers, each score distribution packed into one integer
    (Kronecker substitution): for small pools, quicker than setting up the matrices."""
    A, D = x.count, y.count
    total = x.total**A * y.total**D
    slot = total.bit_length() + 1  # every coefficient of the packed polynomial stays below total
    values = sorted({f + x.bonus for f, w in x.weights.items() if w} | {f + y.bonus for f, w in y.weights.items()
                                                                       if w}, reverse=True)
    top_x = max(f for f, w in x.weights.items() if w) + x.bonus
    cur = [[0] * (D + 1) for _ in range(A + 1)]
    cur[0][0] = 1
    placed_x = placed_y = 0  # how far the reachable counts go, to skip empty rows
    for v in values:
        w = y.weights.get(v - y.bonus, 0)
        if w and D:
            new = [[0] * (D + 1) for _ in range(A + 1)]
            coef = [[math.comb(D - d, k) * w**k for k in range(D - d + 1)] for d in range(D + 1)]
            for a in range(placed_x + 1):
                row, out = cur[a], new[a]
                for d in range(placed_y + 1):
                    poly = row[d]
                    if not poly:
                        continue
                    c = coef[d]
                    # Y dice at positions d..e-1 lose to X where X already holds that position (q < a):
                    # e - d of them while e <= a, then a - d (or none) however many more Y dice come.
                    split = min(max(a - d, 0), D - d)
                    for k in range(split + 1):
                        out[d + k] += (poly * c[k]) << (slot * k)
                    shifted = poly << (slot * split)
                    for k in range(split + 1, D - d + 1):
                        out[d + k] += shifted * c[k]
            cur, placed_y = new, D
        w = x.weights.get(v - x.bonus, 0)
        if w and A:
            new = [[0] * (D + 1) for _ in range(A + 1)]
            # X's top face comes first of X's values, when X has placed nothing: criticals are settled there.
            steps = _x_steps(A, w, x, crit, crit_sixes, crit_hits) if v == top_x and crit is not None else None
            coef_x = [[math.comb(A - a, k) * w**k for k in range(A - a + 1)] for a in range(A + 1)]
            for a in range(placed_x + 1):
                row = cur[a]
                rest = A - a
                for d in range(placed_y + 1):
                    poly = row[d]
                    if not poly:
                        continue
                    if steps is not None:  # the top face: split by first-roll sixes for criticals
                        for k in range(rest + 1):
                            e = a + k
                            won = e - (a if a > D else D) if (v > phantom and e > D) else 0
                            for extra, weight in steps[k]:
                                term = poly * weight
                                shift = won + extra
                                new[e][d] += term << (slot * shift) if shift > 0 else term
                        continue
                    c = coef_x[a]
                    # X dice beyond Y's last die meet phantoms: won when strictly higher.
                    free = rest if v <= phantom else min(rest, max(D - a, 0))
                    for k in range(free + 1):
                        new[a + k][d] += poly * c[k]
                    base = a if a > D else D
                    for k in range(free + 1, rest + 1):
                        new[a + k][d] += (poly * c[k]) << (slot * (a + k - base))
            cur, placed_x = new, A
    poly = cur[A][D]
    mask = (1 << slot) - 1
    scores: dict[int, int] = {}
    score = 0
    while poly:
        coefficient = poly & mask
        if coefficient:
            scores[score] = coefficient
        poly >>= slot
        score += 1
    return Dist(scores)


def _x_steps(A: int, w: int, x: Pool, crit: str | None, at: int = 3, hits: int = 1) -> list[list[tuple[int, int]]]:
    """For the top face (always X's first value, so X has placed nothing yet): for each number k of X dice
    showing it, the weights split by the critical hits they bring (``hits`` for ``at`` or more first-roll sixes,
    or for each full set of ``at`` of them) [the critical is judged on first-roll sixes only].

    >>> _x_steps(3, 1, Pool(3, {6: 1}), "one")[3]   # three sixes of three dice: one critical
    [(1, 1)]
    >>> _x_steps(4, 1, Pool(4, {6: 1}), "per-set", 2, 3)[4]   # four sixes, a set of two: 3 hits a set
    [(6, 1)]
    """
    first, rerolled = x.sixes if x.sixes is not None else (w, 0)
    firsts = [first**s for s in range(A + 1)]
    others = [rerolled**s for s in range(A + 1)]
    steps = []
    for k in range(A + 1):
        ways = math.comb(A, k)
        # weights of s first-roll sixes among the k dice; with one critical for ``at`` or more, the
        # weights of s >= at together are all the k dice's weight less those of s < at
        split = [math.comb(k, s) * firsts[s] * others[k - s]
                 for s in range(k + 1 if crit != "one" else min(k, at - 1) + 1)]
        by_extra: dict[int, int] = {}
        if crit == "one":
            by_extra[0] = sum(split)
            by_extra[hits] = by_extra.get(hits, 0) + (first + rerolled) ** k - sum(split)  # hits may be 0
        else:
            for s, weight in enumerate(split):
                extra = s // at * hits if crit == "per-set" else 0
                by_extra[extra] = by_extra.get(extra, 0) + weight
        steps.append(sorted((e, ways * v) for e, v in by_extra.items() if v))
    return steps
