"""The duel's chain solved to its end, exactly, with numbers no larger than its answer needs.

The chain (:mod:`rangefire.analysis.duel_chain`) is solved by its strongly connected parts, sources first (most
are two nodes, a volley each way that changes nothing; a turn that changes nothing comes back to the same node, a
geometric series solved at once): in a part C with a way out, ``B = diag(den) - N`` (the integer weights among its
nodes) gives the expected visits ``M`` of its nodes through ``y = M / den``: ``y B = inflow``; and the expected
turns counted on arriving, ``V``, through ``v = V / den``: ``v B = turns in + M`` at the nodes that begin a turn.
Every probability of the chain is a sum, over the ways through the parts, of whole numbers over the product of the
determinants of the parts it passes (a turn sum over that product times one of them once more).

So every value is kept as an integer over one **common denominator known before any is worked out**, each
division by a part's determinant exact: the determinants are split into factors (the primes below 256, and what
is left of each as a factor of its own), and the most of each factor that a way through the parts can gather
bounds its power: the most of it in a part of each level (the most parts on a way to the part from the start),
summed over the levels, as a way passes each level once at most. The common denominator is then within some
four tenths of the length of the answer's own (the product of every part's determinant, which the chain's first
solution used, is some twenty times longer and every addition as much slower); a turn sum needs, beyond it, the
most of each factor one part holds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from gmpy2 import mpz  # type: ignore[import-untyped]  # GMP's integers (no type stubs)

from rangefire.core.numbers import lowest

if TYPE_CHECKING:
    from rangefire.analysis.duel_chain import End, Graph

#: The primes a determinant is divided by before what is left of it is taken as a factor of its own.
SMALL_PRIMES = tuple(p for p in range(2, 256) if all(p % q for q in range(2, int(p**0.5) + 1)))


@dataclass
class Solved:
    """The chain to its end: for every end (``("neither", left a, left b)``: a closed part of the chain reached,
    from which neither unit can ever destroy the other) its probability, an integer over ``denominator``, and the
    expected turn of the end times its indicator, ``E[turn; end]``, an integer over ``turn_denominator`` (a
    multiple of ``denominator``); :meth:`probability` and :meth:`turns` make the exact fractions."""

    ends: dict[End, int]
    turn_sums: dict[End, int]
    denominator: int
    turn_denominator: int

    def probability(self, numerator: int) -> Fraction:
        return lowest(numerator, self.denominator) if numerator else Fraction(0)

    def mean(self, turn_sum: int, numerator: int) -> Fraction:
        """``E[turn; end] / P(end)`` of sums of them: one fraction of two integers."""
        return lowest(turn_sum, numerator * (self.turn_denominator // self.denominator))


def factors(n: int) -> dict[int, int]:
    """``n`` (positive) as small primes and what is left, with their powers: every factor of the product."""
    out: dict[int, int] = {}
    for p in SMALL_PRIMES:
        if p * p > n:
            break
        if n % p == 0:
            e = 0
            while n % p == 0:
                n //= p
                e += 1
            out[p] = e
    if n > 1:
        out[n] = out.get(n, 0) + 1
    return out


def _closed(graph: Graph, part: Sequence[int], members: set[int]) -> bool:
    """A part with no way out: no end, no edge leaving it (neither unit can ever destroy the other)."""
    return all(not graph.ends[i] and all(j in members for _, j in graph.edges[i]) for i in part)


def _determinant(matrix: list[list[int]]) -> int:
    """The determinant of a small integer matrix, by Bareiss's elimination: every division exact, every number an
    integer no longer than a minor of the matrix."""
    n = len(matrix)
    if n <= 3:  # written out: the minors of a part firing in turn
        if n == 3:
            (p, q, r), (s, t, u), (v, w, x) = matrix
            return p * (t * x - u * w) - q * (s * x - u * v) + r * (s * w - t * v)
        return 1 if n == 0 else matrix[0][0] if n == 1 else matrix[0][0] * matrix[1][1] - matrix[0][1] * matrix[1][0]
    a = [list(row) for row in matrix]
    sign, previous = 1, 1
    for k in range(n - 1):
        if a[k][k] == 0:
            swap = next((r for r in range(k + 1, n) if a[r][k] != 0), None)
            if swap is None:
                return 0
            a[k], a[swap] = a[swap], a[k]
            sign = -sign
        pivot = a[k][k]
        for i in range(k + 1, n):
            row, lead = a[i], a[i][k]
            for j in range(k + 1, n):
                row[j] = (row[j] * pivot - lead * a[k][j]) // previous
        previous = pivot
    return sign * a[n - 1][n - 1]


#: The largest part whose adjugate is made of its cofactors (each a determinant of a minor: work growing as the
#: fifth power of the size); a larger one is inverted over fractions (as the third power, each step slower).
COFACTOR_SIZE = 6


def _adjugate(matrix: list[list[int]]) -> tuple[int, list[list[int]]]:
    """The determinant and adjugate of a small integer matrix (its inverse times the determinant): up to
    :data:`COFACTOR_SIZE`, each entry a cofactor worked out in integers (:func:`_determinant` of a minor; a part
    firing in turn, four nodes, is some fifty times quicker so than over fractions); beyond, by
    :func:`_adjugate_over_fractions`. The matrix of a part of an absorbing chain with a way out is never
    singular."""
    n = len(matrix)
    if n > COFACTOR_SIZE:
        return _adjugate_over_fractions(matrix)
    cofactors = [[(-1) ** (r + c) * _determinant([row[:c] + row[c + 1:] for i, row in enumerate(matrix) if i != r])
                  for c in range(n)] for r in range(n)]
    det = sum(matrix[0][c] * cofactors[0][c] for c in range(n))
    assert det != 0
    return det, [[cofactors[c][r] for c in range(n)] for r in range(n)]


def _adjugate_over_fractions(matrix: list[list[int]]) -> tuple[int, list[list[int]]]:
    """:func:`_adjugate` by Gauss-Jordan elimination over fractions: its inverse times its determinant."""
    n = len(matrix)
    rows = [[Fraction(v) for v in row] + [Fraction(int(r == c)) for c in range(n)] for r, row in enumerate(matrix)]
    det = Fraction(1)
    for c in range(n):
        pivot = next(r for r in range(c, n) if rows[r][c] != 0)
        if pivot != c:
            rows[c], rows[pivot] = rows[pivot], rows[c]
            det = -det
        lead = rows[c][c]
        det *= lead
        rows[c] = [v / lead for v in rows[c]]
        for r in range(n):
            if r != c and rows[r][c] != 0:
                f = rows[r][c]
                rows[r] = [v - f * p for v, p in zip(rows[r], rows[c], strict=True)]
    assert det.denominator == 1 and det != 0
    adj = [[v * det for v in row[n:]] for row in rows]
    assert all(v.denominator == 1 for row in adj for v in row)
    return int(det), [[int(v) for v in row] for row in adj]


Plan = tuple[int, list[list[int]], dict[int, int]]


def _plans(graph: Graph, parts: list[list[int]]) -> list[Plan | None]:
    """For each part its determinant, adjugate and nodes' places; None for a part with no way out."""
    den, edges = graph.den, graph.edges
    plans: list[Plan | None] = []
    for part in parts:
        members = set(part)
        if _closed(graph, part, members):
            plans.append(None)
            continue
        pos = {i: r for r, i in enumerate(part)}
        if len(part) == 1:  # a volley that changes nothing comes back: 1 / (1 - q)
            i = part[0]
            plans.append((den[i] - sum(num for num, j in edges[i] if j == i), [[1]], pos))
            continue
        b = [[den[i] * int(r == c) for c in range(len(part))] for r, i in enumerate(part)]
        for i in part:
            for num, j in edges[i]:
                if j in pos:
                    b[pos[i]][pos[j]] -= num
        if len(part) == 2:  # the usual part: a volley each way that changes nothing
            (p, q), (r, t) = b
            det, adj = p * t - q * r, [[t, -q], [-r, p]]
        else:
            det, adj = _adjugate(b)
        if det < 0:
            det, adj = -det, [[-v for v in row] for row in adj]
        plans.append((det, adj, pos))
    return plans


def _levels(graph: Graph, parts: list[list[int]], part_of: list[int]) -> list[int]:
    """Each part's level: the most parts on a way to it from the start (a way passes each level once at most)."""
    level = [0] * len(parts)
    for k in range(len(parts) - 1, -1, -1):  # sources first
        up = level[k] + 1
        for i in parts[k]:
            for _, j in graph.edges[i]:
                s = part_of[j]
                if s != k and level[s] < up:
                    level[s] = up
    return level


def _denominator(plans: list[Plan | None], level: list[int]) -> tuple[int, int]:
    """A common denominator of every value of the chain (see the module's text), and the factor a turn sum needs
    beyond it: the most of each of the determinants' factors that one part holds.

    Each factor is counted as the most of it in a part of each level, summed over the levels: a way passes each
    level once at most, so no way gathers more."""
    split: dict[int, dict[int, int]] = {}
    most: dict[tuple[int, int], int] = {}  # (factor, level): the most of it in a part of that level
    single: dict[int, int] = {}
    for k, plan in enumerate(plans):
        if plan is None:
            continue
        found = split.get(plan[0])
        if found is None:
            found = split[plan[0]] = factors(plan[0])
        lv = level[k]
        for f, e in found.items():
            if e > single.get(f, 0):
                single[f] = e
            if e > most.get((f, lv), 0):
                most[(f, lv)] = e
    powers: dict[int, int] = {}
    for (f, _), e in most.items():
        powers[f] = powers.get(f, 0) + e
    return math.prod(f**e for f, e in powers.items()), math.prod(f**e for f, e in single.items())


#: How many parts are solved between two reports of progress.
TOLD_EVERY = 256


def solve(graph: Graph, progress: Callable[[int, int], None] | None = None) -> Solved:
    """The chain to its end, exactly (see the module's text); ``progress(parts solved, parts)`` told as it goes."""
    from rangefire.analysis.duel_chain import components

    parts = components(graph)
    n = graph.size
    part_of = [0] * n
    for k, part in enumerate(parts):
        for i in part:
            part_of[i] = k
    plans = _plans(graph, parts)
    common, extra = _denominator(plans, _levels(graph, parts, part_of))
    den, edges, ends_of = graph.den, graph.edges, graph.ends
    # probability arriving from outside a node's part, and turns counted so far times that probability, both over
    # ``common * extra``: a visit's turn is then divided by the part's determinant at once, no number multiplied
    # by another as long
    whole = common * extra
    # Each node's two values travel as one integer, the turns counted shifted past the probability: ``(turned <<
    # shift) + inflow``, every edge one multiplication. What arrives at a node, or at an end, is a probability of
    # at most 1 (at most ``whole``, below ``1 << shift``) and nothing is negative, so the two come apart exactly.
    # The numbers are GMP's (gmpy2): a number as long as the answer times a small weight, every edge's work, is
    # some three times quicker than Python's own; the answer is given back in Python's integers.
    shift = whole.bit_length() + 1
    mask = mpz((1 << shift) - 1)
    zero = mpz(0)
    arrived = [zero] * n
    arrived[0] = mpz(whole)
    reached: dict[End, mpz] = {}
    total = len(parts)
    for k in range(total - 1, -1, -1):  # sources first
        done = total - 1 - k
        if progress is not None and done and done % TOLD_EVERY == 0:
            progress(done, total)
        part, plan = parts[k], plans[k]
        if plan is None:  # no way out: neither unit can ever destroy the other
            mass = sum(arrived[i] & mask for i in part)
            if mass:
                la, lb = graph.lefts[part[0]]
                reached[("neither", la, lb)] = reached.get(("neither", la, lb), zero) + mass
            continue
        det, adj, pos = plan
        size = len(part)
        ins = [(arrived[i] & mask) // det for i in part]
        if size == 2:  # the usual part, written out
            (p, q), (r, t) = adj
            y = [ins[0] * p + ins[1] * r, ins[0] * q + ins[1] * t]
        else:
            y = [sum(ins[r] * adj[r][c] for r in range(size)) for c in range(size)]
        # each visit of a node beginning a turn counts a turn: (turns in + M at those nodes) B^-1
        base = [((arrived[i] >> shift) + (den[i] * y[pos[i]] if graph.turn_start(i) else 0)) // det for i in part]
        if size == 2:
            v = [base[0] * p + base[1] * r, base[0] * q + base[1] * t]
        else:
            v = [sum(base[r] * adj[r][c] for r in range(size)) for c in range(size)]
        for i in part:
            yi = y[pos[i]]
            if not yi:
                continue
            both = (v[pos[i]] << shift) + yi
            for num, j in edges[i]:
                if j not in pos:
                    arrived[j] += both * num
            for num, e in ends_of[i]:
                reached[e] = reached.get(e, zero) + both * num
        for i in part:  # what arrived here is spent: let it go (the numbers alive at once halve)
            arrived[i] = zero
    if progress is not None:
        progress(total, total)
    ends = {e: int(value & mask) for e, value in reached.items()}
    sums = {e: int(value >> shift) for e, value in reached.items() if value >> shift}
    return Solved(ends, sums, whole, whole)
