"""The lineup's exact odds (AL-6.1 to AL-6.6, AL-8.2) against brute force and icepool, over grids of pools."""

from __future__ import annotations

import itertools

import pytest

from rangefire.dice.lineup import Pool, lineup_scores, reroll_weights
from tests.oracles import brute_lineup, icepool_lineup


def ours(attack, defense, *, bonus_a=0, bonus_d=0, reroll_a=0, reroll_d=0, crit=None, defender=False):
    pa = Pool(attack, reroll_weights(reroll_a), bonus_a, (6, reroll_a) if reroll_a else (1, 0))
    pd = Pool(defense, reroll_weights(reroll_d), bonus_d)
    if defender:
        return lineup_scores(pd, pa).probabilities()
    return lineup_scores(pa, pd, crit=crit).probabilities()


VARIANTS = [{}, {"crit": "one"}, {"crit": "per-three"}, {"bonus_a": 1}, {"bonus_d": 2}, {"bonus_a": -1, "bonus_d": 1},
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


def test_the_oracles_can_tell_a_difference():
    """A wrong phantom (3 instead of 2) changes the answer: the comparisons have teeth."""
    wrong = lineup_scores(Pool(3, reroll_weights(0)), Pool(1, reroll_weights(0)), phantom=3).probabilities()
    assert wrong != brute_lineup(3, 1)
