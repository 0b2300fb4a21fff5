"""The lineup's previous exact algorithm, kept as a test oracle for the matrix-product one
(``rangefire.dice.lineup``): Python integers throughout, one state at a time."""

from __future__ import annotations

import math

from rangefire.dice.dist import Dist
from rangefire.dice.lineup import Pool


def kronecker_lineup(x: Pool, y: Pool, phantom: int = 2, crit: str | None = None, crit_sixes: int = 3,
                     crit_hits: int = 1) -> Dist[int]:
    """The lineup's score distribution as worked out before it became matrix products: the same walk over
    values, state by state, with each score distribution packed into one big integer (Kronecker substitution).
    Kept as an oracle: no residues, no matrices, no numpy."""
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
            steps = _x_steps_plain(A, w, x, crit, crit_sixes, crit_hits) if v == top_x and crit is not None else None
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


def _x_steps_plain(A: int, w: int, x: Pool, crit: str | None, at: int = 3,
                   hits: int = 1) -> list[list[tuple[int, int]]]:
    """For the top face (always X's first value, so X has placed nothing yet): for each number k of X dice
    showing it, the weights split by the critical hits they bring [the critical is judged on first-roll
    sixes only]."""
    first, rerolled = x.sixes if x.sixes is not None else (w, 0)
    steps = []
    for k in range(A + 1):
        ways = math.comb(A, k)
        by_extra: dict[int, int] = {}
        for s in range(k + 1):
            weight = ways * math.comb(k, s) * first**s * rerolled ** (k - s)
            if not weight:
                continue
            extra = 0 if crit is None else (s // at * hits if crit == "per-set" else hits * (s >= at))
            by_extra[extra] = by_extra.get(extra, 0) + weight
        steps.append(sorted(by_extra.items()))
    return steps
