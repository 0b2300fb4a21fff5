"""The lineup's exact odds (AL-6.1 to AL-6.6, AL-8.2) against brute force and icepool, over grids of pools."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rangefire.dice import lineup, lineup_steps, modular
from rangefire.dice.lineup import Pool, lineup_scores, reroll_weights
from tests.lineup_oracle import kronecker_lineup
from tests.oracles import brute_lineup, icepool_lineup


def ours(attack, defense, *, bonus_a=0, bonus_d=0, reroll_a=0, reroll_d=0, crit=None, defender=False):
    """The lineup by both of its paths (state by state in integers for small pools, matrix products beyond),
    which must agree; the answer compared with the oracles."""
    pa = Pool(attack, reroll_weights(reroll_a), bonus_a, (6, reroll_a) if reroll_a else (1, 0))
    pd = Pool(defense, reroll_weights(reroll_d), bonus_d)
    x, y = (pd, pa) if defender else (pa, pd)
    answers = []
    for small in (0, 10**6):
        saved, lineup.SMALL_LINEUP = lineup.SMALL_LINEUP, small
        try:
            answers.append(lineup_scores(x, y, crit=None if defender else crit).probabilities())
        finally:
            lineup.SMALL_LINEUP = saved
    assert answers[0] == answers[1]
    return answers[0]


VARIANTS = [{}, {"crit": "one"}, {"crit": "per-set"}, {"bonus_a": 1}, {"bonus_d": 2}, {"bonus_a": -1, "bonus_d": 1},
            {"reroll_a": 2}, {"reroll_d": 1}, {"reroll_a": 3, "crit": "one"}, {"reroll_a": 1, "bonus_a": 1,
                                                                                "crit": "one"}]


@pytest.mark.parametrize(("attack", "defense"), [(a, d) for a, d in itertools.product(range(5), range(5))
                                                 if (a + d and a + d <= 6) or (a, d) == (4, 4)])
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()) or "plain")
def test_equals_brute_force(attack, defense, variant):
    """AL-6.2 to AL-6.5: criticals on the first roll, rerolls before bonuses, phantom 2s: every die enumerated."""
    if attack + defense > 5 and variant.get("reroll_a", 0) + variant.get("reroll_d", 0):
        pytest.skip("rerolls multiply the enumeration; smaller pools cover them")
    assert ours(attack, defense, **variant) == brute_lineup(attack, defense, **variant)


@pytest.mark.parametrize(("attack", "defense"), [(1, 3), (3, 1), (3, 3), (2, 4)])
def test_defender_scores_equals_brute_force(attack, defense):
    """AL-6.6, AL-8.2: where the defender scores, its higher dice (a real die beating a phantom too) score."""
    assert ours(attack, defense, defender=True) == brute_lineup(attack, defense, defender=True)
    assert ours(attack, defense, defender=True, bonus_d=1) == brute_lineup(attack, defense, defender=True, bonus_d=1)


@pytest.mark.parametrize(("attack", "defense"), [(a, d) for a in range(0, 9, 2) for d in range(0, 9, 2) if a + d]
                         + [(8, 8), (7, 5), (5, 7), (8, 1), (1, 8)])
@pytest.mark.parametrize("variant", [{"crit": True}, {"bonus_a": 1, "crit": True}, {"reroll_a": 2},
                                     {"reroll_d": 2, "bonus_d": 1}], ids=["crit", "bonus+crit", "reroll", "def"])
def test_equals_icepool(attack, defense, variant):
    """AL-6.4, AL-6.5: identical fractions to a hand-written icepool evaluator, up to 8 against 8."""
    mine = dict(variant)
    if mine.pop("crit", False):
        mine["crit"] = "one"
    assert ours(attack, defense, **mine) == icepool_lineup(attack, defense, **variant)


@pytest.mark.parametrize("crit", ["one", "per-set"])
@pytest.mark.parametrize(("sixes", "hits"), [(1, 1), (2, 3), (4, 0), (2, 1), (5, 2)])
@pytest.mark.parametrize(("attack", "defense", "phantom"), [(3, 2, 2), (4, 1, 4), (2, 3, 0), (5, 0, 3)])
def test_critical_threshold_hits_and_phantom_equal_brute_force(attack, defense, phantom, crit, sixes, hits):
    """AL-6.2, AL-6.4 as numbers passed in (house rules): a critical on ``sixes`` first-roll 6s (or each full set
    of them) scoring ``hits`` extra, and the phantom's value; both paths of the lineup, every die enumerated."""
    pa, pd = Pool(attack, reroll_weights(0), 0, (1, 0)), Pool(defense, reroll_weights(0))
    expected = brute_lineup(attack, defense, crit=crit, phantom=phantom, crit_sixes=sixes, crit_hits=hits)
    for small in (0, 10**6):
        saved, lineup.SMALL_LINEUP = lineup.SMALL_LINEUP, small
        try:
            assert lineup_scores(pa, pd, phantom, crit, sixes, hits).probabilities() == expected
        finally:
            lineup.SMALL_LINEUP = saved
    assert kronecker_lineup(pa, pd, phantom, crit, sixes, hits).probabilities() == expected


@pytest.mark.parametrize("crit", ["one", "per-set"])
@pytest.mark.parametrize(("attack", "defense", "phantom", "bonus_a"), [(2, 0, 6, 0), (3, 1, 6, 0), (4, 2, 6, 0),
                                                                      (3, 1, 7, 1), (3, 0, 5, -1)])
def test_a_top_face_equal_to_the_phantom_ties_its_pair(attack, defense, phantom, bonus_a, crit):
    """AL-6.4, AL-6.5 (the phantom's value an option): an attack die showing the phantom's value against a phantom
    is a tie and scores nothing, on the attacker's top face too, the value where criticals are settled (AL-6.2);
    both paths of the lineup, every die enumerated."""
    pa, pd = Pool(attack, reroll_weights(0), bonus_a, (1, 0)), Pool(defense, reroll_weights(0))
    expected = brute_lineup(attack, defense, bonus_a=bonus_a, crit=crit, phantom=phantom, crit_sixes=2)
    for small in (0, 10**6):
        saved, lineup.SMALL_LINEUP = lineup.SMALL_LINEUP, small
        try:
            assert lineup_scores(pa, pd, phantom, crit, 2).probabilities() == expected
        finally:
            lineup.SMALL_LINEUP = saved


@pytest.mark.parametrize(("crit", "sixes", "hits"), [("three", 3, 1), ("one", 0, 1), ("per-set", 3, -1)])
def test_an_unknown_critical_rule_is_refused(crit, sixes, hits):
    with pytest.raises(ValueError, match="no such critical rule"):
        lineup_scores(Pool(3, reroll_weights(0)), Pool(1, reroll_weights(0)), 2, crit, sixes, hits)


def test_the_oracles_can_tell_a_difference():
    """A wrong phantom (3 instead of 2) changes the answer: the comparisons have teeth."""
    wrong = lineup_scores(Pool(3, reroll_weights(0)), Pool(1, reroll_weights(0)), phantom=3).probabilities()
    assert wrong != brute_lineup(3, 1)


# -- the matrix-product programme against the previous algorithm (tests/lineup_oracle.py) and icepool ----------
def both(attack, defense, *, weights_a=None, weights_d=None, bonus_a=0, bonus_d=0, sixes=(1, 0), phantom=2,
         crit=None):
    """The distribution by the matrix products and by the previous algorithm, on the same pools."""
    pa = Pool(attack, weights_a or reroll_weights(0), bonus_a, sixes)
    pd = Pool(defense, weights_d or reroll_weights(0), bonus_d)
    saved, lineup.SMALL_LINEUP = lineup.SMALL_LINEUP, 0  # the matrix products even for the smallest pools
    try:
        mine = lineup_scores(pa, pd, phantom, crit).probabilities()
    finally:
        lineup.SMALL_LINEUP = saved
    return mine, kronecker_lineup(pa, pd, phantom, crit).probabilities()


GRID_POOLS = [(1, 12), (12, 1), (0, 7), (7, 0), (9, 9), (16, 11), (11, 16), (20, 20), (25, 4), (3, 27)]
GRID_OPTIONS = [{}, {"crit": "one"}, {"crit": "per-set"}, {"phantom": 1}, {"phantom": 4, "crit": "one"},
                {"phantom": 0}, {"phantom": 7, "bonus_a": 1}, {"bonus_a": 2, "bonus_d": -1, "crit": "per-set"},
                {"weights_a": reroll_weights(2), "sixes": (6, 2), "crit": "one"},
                {"weights_d": reroll_weights(3), "bonus_d": 1},
                {"weights_a": {1: 0, 2: 3, 3: 0, 4: 1, 5: 0, 6: 2}, "weights_d": {1: 2, 2: 0, 3: 5, 4: 0, 5: 1, 6: 0}},
                {"weights_a": {1: 1, 2: 1, 3: 1, 4: 1}, "weights_d": {4: 1, 5: 1, 6: 1, 7: 1, 8: 1}, "crit": "one"}]


@pytest.mark.parametrize(("attack", "defense"), GRID_POOLS)
@pytest.mark.parametrize("options", GRID_OPTIONS, ids=lambda o: ",".join(f"{k}={str(v)[:12]}" for k, v in o.items())
                         or "plain")
def test_equals_previous_algorithm(attack, defense, options):
    """AL-6.4, AL-6.5: identical fractions to the previous algorithm over a grid of pools, phantom values,
    bonuses, rerolls, uneven and gapped faces, criticals of both kinds."""
    mine, theirs = both(attack, defense, **options)
    assert mine == theirs


@pytest.mark.parametrize(("attack", "defense", "options"), [
    (40, 40, {"crit": "one"}), (40, 40, {"crit": "per-set", "weights_a": reroll_weights(1), "sixes": (6, 1)}),
    (50, 30, {"weights_a": reroll_weights(2), "weights_d": reroll_weights(2), "bonus_d": 1}),
    (30, 50, {"phantom": 3, "crit": "one"}), (79, 1, {"crit": "per-set"}), (1, 79, {})])
def test_equals_previous_algorithm_at_the_exact_limit(attack, defense, options):
    """Up to the 80 dice the exact lineup answers (rerolls make the weights 36 to a die: 414-bit counts)."""
    mine, theirs = both(attack, defense, **options)
    assert mine == theirs


faces = st.dictionaries(st.integers(1, 6), st.integers(0, 9), min_size=1).filter(lambda w: any(w.values()))


@given(attack=st.integers(0, 14), defense=st.integers(0, 14), weights_a=faces, weights_d=faces,
       bonus_a=st.integers(-2, 3), bonus_d=st.integers(-2, 3), phantom=st.integers(0, 9),
       crit=st.sampled_from([None, "one", "per-set"]), first=st.integers(0, 4))
@settings(max_examples=150, deadline=None)
def test_random_pools_equal_previous_algorithm(attack, defense, weights_a, weights_d, bonus_a, bonus_d, phantom,
                                               crit, first):
    """Any faces, weights, bonuses and phantom value: the same fractions as the previous algorithm."""
    top = weights_a[max(f for f, w in weights_a.items() if w)]
    mine, theirs = both(attack, defense, weights_a=weights_a, weights_d=weights_d, bonus_a=bonus_a,
                        bonus_d=bonus_d, sixes=(min(first, top), top - min(first, top)), phantom=phantom, crit=crit)
    assert mine == theirs


@pytest.mark.parametrize(("attack", "defense"), [(10, 10), (12, 7), (7, 12)])
def test_larger_pools_equal_icepool(attack, defense):
    """AL-6.4, AL-6.5: beyond the grid above, icepool's hand-written evaluator agrees (criticals on)."""
    assert ours(attack, defense, crit="one") == icepool_lineup(attack, defense, crit=True)


def test_a_lost_count_is_caught(monkeypatch):
    """Too few primes to hold the counts: the check that the counts sum to the total refuses the answer."""
    monkeypatch.setattr(lineup_steps, "primes_for", lambda terms, exceed: modular.primes_for(terms, 2**60))
    with pytest.raises(AssertionError, match="lost a count"):
        lineup_scores(Pool(30, reroll_weights(0)), Pool(30, reroll_weights(0)))


@given(st.lists(st.integers(-(2**52), 2**52), min_size=1, max_size=50), st.sampled_from([3, 41, 81]))
def test_reduction_keeps_residues_small_and_congruent(values, terms):
    """modular.reduce: every value comes back congruent, within [-p, 2p), for the primes the lineup uses."""
    for p in modular.primes_for(terms, 2**200):
        array = np.array(values, dtype=np.float64)
        modular.reduce(array, float(p), 1.0 / p, np.empty_like(array))
        assert all(-p <= r < 2 * p and (int(r) - v) % p == 0 for r, v in zip(array.tolist(), values, strict=True))


def test_the_prime_bound_keeps_products_exact():
    """A sum of `terms` products of a residue in [-p, 2p) and one in [0, p) stays below 2**53."""
    for terms in (1, 2, 41, 81, 200):
        p = modular.primes_for(terms, 2**100)[0]
        assert 2 * terms * p * p <= 2**53 and modular.prime_bound(terms) < 2 * p


# -- the matrix products' parts: primes walked in groups, binomial tables, the primality test ------------------
@pytest.mark.parametrize("group", [1, 2, 4, None], ids=["one-prime", "pairs", "fours", "all-primes"])
@pytest.mark.parametrize(("attack", "defense", "options"), [
    (20, 20, {"crit": "one"}), (9, 9, {"crit": "per-set"}), (16, 11, {"phantom": 4, "crit": "one"}),
    (11, 16, {"bonus_a": 2, "bonus_d": -1}), (25, 4, {"weights_a": reroll_weights(2), "sixes": (6, 2), "crit": "one"}),
    (3, 27, {"weights_d": reroll_weights(3), "bonus_d": 1}), (12, 1, {"phantom": 0}), (7, 0, {"crit": "one"})])
def test_primes_walked_in_groups_equal_previous_algorithm(monkeypatch, attack, defense, options, group):
    """AL-6.4, AL-6.5: whether the primes are walked one at a time (large pools), all at once (small ones) or in
    uneven groups (5 primes in pairs: 2, 2, 1), the same fractions as the previous algorithm."""
    monkeypatch.setattr(lineup_steps, "_group_size", lambda states, primes: min(group or primes, primes))
    mine, theirs = both(attack, defense, **options)
    assert mine == theirs


def test_small_pools_walk_their_primes_at_once_and_large_ones_one_at_a_time():
    """Both sides of :data:`lineup_steps.GROUP_STATES` are taken by pools the game sees (and tested above)."""
    def group(attack, defense):
        lattice = lineup_steps._Lattice(attack, defense, 1)
        primes = modular.primes_for(max(attack, defense, 1) + 1, 6 ** (attack + defense))
        return lineup_steps._group_size(max(lattice.y.size, lattice.x.size), len(primes)), len(primes)

    assert group(20, 20) == (5, 5)
    assert group(40, 40) == (1, 9)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 20, 41, 79])
@pytest.mark.parametrize("w", [1, 2, 6, 35, 36])
def test_binomial_matrices_are_binomials_times_powers_modulo_each_prime(n, w):
    """M[i', i] = C(n - i, i' - i) * w**(i' - i) modulo p (0 above the diagonal), from math.comb in integers."""
    primes = modular.primes_for(n + 1, 36**80)
    matrices = lineup_steps._binomials.__wrapped__(n, w, primes)
    for p, matrix in zip(primes, matrices, strict=True):
        expected = [[math.comb(n - i, j - i) * w ** (j - i) % p if j >= i else 0 for i in range(n + 1)]
                    for j in range(n + 1)]
        assert matrix.tolist() == expected


def test_the_primality_test_agrees_with_trial_division():
    """modular._is_prime, its gcd with the small primes included: every number below 20,000 and every odd
    number in a window below the largest prime bound, against trial division (squares and products of primes
    just above 100, which no gcd with the primes below 100 catches, among them)."""
    def trial(n):
        return n >= 2 and all(n % k for k in range(2, math.isqrt(n) + 1))

    bound = modular.prime_bound(1)
    numbers = [*range(20_000), *range(bound - 3_000, bound + 1), 101 * 101, 101 * 103, 97 * 101, 9_999_991 * 3]
    assert [n for n in numbers if modular._is_prime(n)] == [n for n in numbers if trial(n)]


@given(st.lists(st.integers(0, 6**80), min_size=1, max_size=30), st.sampled_from([3, 21, 41, 81]), st.data())
def test_reconstruction_gives_back_the_integers(values, terms, data):
    """modular.reconstruct: integers below the primes' product, from residues anywhere in [-p, 2p)."""
    primes = modular.primes_for(terms, 6**80)
    rows = np.array([[float(v % p + data.draw(st.sampled_from([-p, 0, p]))) for v in values] for p in primes])
    assert modular.reconstruct(rows, primes) == values
