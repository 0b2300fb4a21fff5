"""The duel's chain solved to its end over a common denominator known beforehand
(``rangefire.analysis.duel_solve``) against the chain's first solution, over the product of every part's
determinant (``tests.duel_oracle.product_solve``): the same fractions, end by end, for every game, every order of
fire and a grid of small Dress on the Colors duels; the mean turns and the answer's figures as the first solution
gave them."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from rangefire.analysis.duel import duel, model_of, setting
from rangefire.analysis.duel_chain import build
from rangefire.analysis.duel_solve import _adjugate, _adjugate_over_fractions, _determinant, factors, solve
from rangefire.rulesets import find_ruleset
from tests.conftest import dc_battle, unit
from tests.duel_oracle import product_solve
from tests.test_duel import CASES, UNITS, _first_two


def same_solution(graph) -> None:
    new, old = solve(graph), product_solve(graph)
    assert set(new.ends) == set(old.ends) and set(new.turn_sums) == set(old.turn_sums)
    for e, v in old.ends.items():
        assert new.probability(new.ends[e]) == old.probability(v), e
    for e, v in old.turn_sums.items():
        assert Fraction(new.turn_sums[e], new.turn_denominator) == Fraction(v, old.denominator), e
    assert sum(new.ends.values()) == new.denominator  # every duel ends, or ends "never"


@pytest.mark.parametrize("first", ["a", "b", "alternate"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_game_solves_as_the_first_solution(case, first):
    """DC-4.3, DC-5.3, DC-7.1, BU-3.5, AL-7.2, SW-4.2: whatever a game carries from one attack to the next, every
    end's probability and E[turn; end] are the first solution's fractions."""
    ruleset, battle = CASES[case]()
    a, b = UNITS.get(case, _first_two(ruleset, battle))
    played = setting(ruleset, battle, a, b, "holds" if ruleset.chooses_target else None)
    same_solution(build(model_of(ruleset, played), a, b, first))


@pytest.mark.parametrize("weapon", ["rifled-musket", "smoothbore"])
@pytest.mark.parametrize("d", [3, 9])
@pytest.mark.parametrize(("fs", "ts"), [(1, 1), (1, 3), (3, 2), (4, 4)])
def test_a_grid_of_small_duels_solves_as_the_first_solution_dc_4_3(fs, ts, d, weapon):
    """DC-3.2, DC-4.3, DC-5.3: stands, distance and weapon varied; to the end, the answer's every figure (each
    winner, each end's mean turn, what is left, the expected losses) is the first solution's."""
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(unit("F", "blue", (0, 0), 0, stands=fs, weapon=weapon),
                       unit("T", "grey", (0, d), 180, stands=ts), discipline_dice=1)
    graph = build(model_of(doc, battle), "F", "T", "a")
    same_solution(graph)
    old = product_solve(graph)
    result = duel(doc, battle, "F", "T")
    for who in ("a", "b", "both"):
        p = sum((v for (w, _, _), v in old.ends.items() if w == who), 0)
        t = sum((v for (w, _, _), v in old.turn_sums.items() if w == who), 0)
        assert result.winner[who] == old.probability(p)
        assert result.ends[who].mean == (Fraction(t, p) if p else None)


@pytest.mark.parametrize("n", [1, 2, 12, 97, 2**10 * 3**7 * 257, 6**40 - 1, 255 * 257 * 65537 * 65537])
def test_factors_multiply_back(n):
    """The determinants' factors: small primes and what is left, whose product is the number again."""
    found = factors(n)
    product = 1
    for f, e in found.items():
        assert f > 1 and e > 0
        product *= f**e
    assert product == n


@given(st.integers(min_value=1, max_value=7).flatmap(
    lambda n: st.lists(st.lists(st.integers(-10**12, 10**12), min_size=n, max_size=n), min_size=n, max_size=n)))
def test_a_parts_adjugate_in_integers_is_the_inverse_over_fractions(matrix):
    """A part's determinant and adjugate as its cofactors (integers, Bareiss's elimination for each minor) are
    those of Gauss-Jordan over fractions, and the matrix times its adjugate is its determinant times the
    identity; past COFACTOR_SIZE the fractions are used."""
    assume(_determinant(matrix) != 0)
    det, adj = _adjugate(matrix)
    assert (det, adj) == _adjugate_over_fractions(matrix)
    n = len(matrix)
    assert [[sum(matrix[r][k] * adj[k][c] for k in range(n)) for c in range(n)] for r in range(n)] == [
        [det * int(r == c) for c in range(n)] for r in range(n)]


@pytest.mark.parametrize("matrix", [[[0, 1], [1, 0]], [[0, 0, 1], [0, 1, 0], [1, 0, 0]], [[2, 4], [1, 2]],
                                    [[0, 2, 1, 0], [3, 0, 0, 1], [0, 0, 5, 2], [1, 1, 0, 0]]])
def test_a_determinant_with_a_zero_pivot_or_none_at_all(matrix):
    """Rows swapped where a pivot is 0 (its sign turned), and 0 for a singular matrix: as over fractions."""
    rows = [[Fraction(v) for v in row] for row in matrix]
    expected = Fraction(1)
    n = len(rows)
    for c in range(n):  # the oracle: elimination over fractions
        pivot = next((r for r in range(c, n) if rows[r][c] != 0), None)
        if pivot is None:
            expected = Fraction(0)
            break
        if pivot != c:
            rows[c], rows[pivot] = rows[pivot], rows[c]
            expected = -expected
        expected *= rows[c][c]
        for r in range(c + 1, n):
            f = rows[r][c] / rows[c][c]
            rows[r] = [v - f * p for v, p in zip(rows[r], rows[c], strict=True)]
    assert _determinant(matrix) == expected
