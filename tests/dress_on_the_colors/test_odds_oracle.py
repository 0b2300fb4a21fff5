"""Exact volley odds against independent oracles (DC-3.1, DC-3.4, DC-4.1, DC-4.3, DC-5.1, DC-5.2, DC-5.3,
DC-6.2, DC-6.3): brute-force enumeration of every die, and icepool."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from functools import cache

import icepool
import pytest

from rangefire.core import Attack
from rangefire.rulesets.dress_on_the_colors.volley import VolleyOutcome, VolleyPlan, volley_distribution
from tests.conftest import dc_battle, unit

SAVES = {"open": None, "light": 5, "heavy": 4}


def make_plan(stands, enfilade, cover, micro, target_disordered, need, discipline=0):
    """A volley needing a natural ``need`` (4: rifled muskets at medium range; 5: the same disordered; 6: a
    smoothbore at medium range with a penalty), built the way the clauses say [DC-3.4, DC-6.2, DC-6.3]."""
    save = SAVES[cover]
    if enfilade and save is not None:
        save += 1
    return VolleyPlan(ruleset="dress-on-the-colors", attacker="F", target="T", target_number=min(need, 5),
                      need=need, stands_firing=stands, enfilade=enfilade,
                      enfilade_dice=stands // 2 if enfilade else 0, cover=cover, save=save, target_stands=2,
                      target_micro_hits=micro, target_disordered=target_disordered,
                      target_discipline=discipline)


# -- the oracle: every die enumerated ------------------------------------------------------------
@cache
def hit_rolls(n, need):
    """(hits, any natural 6) over every to-hit roll, one by one."""
    out = Counter()
    for roll in itertools.product(range(1, 7), repeat=n):
        hits = sum(1 for v in roll if v != 1 and v >= need)
        out[(hits, 6 in roll)] += 1
    return out


@cache
def save_rolls(hits, save):
    """unsaved hits over every roll of the save dice, one by one."""
    out = Counter()
    for roll in itertools.product(range(1, 7), repeat=hits):
        out[sum(1 for v in roll if save is None or v < save)] += 1
    return out


@cache
def discipline_rolls(dice, modifier, pass_on):
    """(fails, total) over every roll of the discipline dice."""
    rolls = list(itertools.product(range(1, 7), repeat=dice))
    return sum(1 for r in rolls if sum(r) + modifier < pass_on), len(rolls)


def brute_force(plan: VolleyPlan) -> dict[VolleyOutcome, Fraction]:
    n = plan.dice
    fails, checks = discipline_rolls(plan.discipline_dice, plan.discipline_modifier, plan.discipline_pass)
    out: Counter = Counter()
    denominator = 6**n * 6**n * checks
    for (hits, six), w_hit in hit_rolls(n, plan.need).items():
        for unsaved, w_save in save_rolls(hits, plan.save).items():
            w = w_hit * w_save * 6 ** (n - hits)  # the save dice a volley of fewer hits does not roll
            total = plan.target_micro_hits + unsaved
            lost = min(plan.target_stands, total // 2)
            survives = total // 2 < plan.target_stands
            if six and survives:
                out[VolleyOutcome(hits, unsaved, lost, six, True)] += w * fails
                out[VolleyOutcome(hits, unsaved, lost, six, False)] += w * (checks - fails)
            else:
                out[VolleyOutcome(hits, unsaved, lost, six, False)] += w * checks
    return {k: Fraction(v, denominator) for k, v in out.items() if v}


#: Needs 4, 5 and 6: a need of 6 is the one where only a natural 6 hits [DC-3.4].
GRID = list(itertools.product(range(1, 6), (False, True), ("open", "light", "heavy"), (0, 1), (False, True),
                              (4, 5, 6)))


@pytest.mark.parametrize(("stands", "enfilade", "cover", "micro", "t_dis", "need"), GRID)
def test_exact_equals_brute_force(stands, enfilade, cover, micro, t_dis, need):
    """The joint distribution equals the enumeration of every die: to hit, saves, discipline."""
    plan = make_plan(stands, enfilade, cover, micro, t_dis, need)
    assert volley_distribution(plan).probabilities() == brute_force(plan)


def test_brute_force_oracle_can_fail():
    """The comparison has teeth: a plan one pip off gives a different distribution."""
    plan = make_plan(3, False, "light", 0, False, 4)
    other = make_plan(3, False, "heavy", 0, False, 4)
    assert volley_distribution(plan).probabilities() != brute_force(other)


def test_a_natural_six_needed_still_hits_DC_3_4(doc):
    """DC-3.4 at the edge: a smoothbore at medium range (5+) fired by a disordered unit (-1, DC-3.3) needs a
    natural 6, and every 6 hits: the ruleset's own plan against the enumeration of every die."""
    b = dc_battle(unit("F", "blue", (0, 0), 0, weapon="smoothbore", disordered=True), unit("T", "grey", (0, 10), 180))
    plan = doc.plan(b, Attack("F", "T"))
    assert (plan.band, plan.target_number, plan.need) == ("medium", 5, 6)
    assert volley_distribution(plan).probabilities() == brute_force(plan)
    assert doc.odds(plan).outcomes["hits"].probability(0) == Fraction(5, 6) ** 4


def icepool_probabilities(die):
    return {k: Fraction(p) for k, p in zip(die.outcomes(), die.probabilities(), strict=True) if p}


@pytest.mark.parametrize(("dice", "need", "save"), [(1, 2, None), (6, 4, 5), (12, 5, 4), (18, 3, 6), (9, 7, 5),
                                                    (1, 6, None), (8, 6, 5), (15, 6, 4)])
def test_marginals_equal_icepool(dice, need, save):
    """hits, unsaved hits and suppression agree with icepool: each die hits, then fails its save, alone."""
    hit_die = icepool.d6.map(lambda v: 1 if v != 1 and v >= need else 0)
    unsaved_die = icepool.d6.map(
        lambda v: icepool.d6.map(lambda s: 1 if v != 1 and v >= need and (save is None or s < save) else 0))
    six_die = icepool.d6.map(lambda v: 1 if v == 6 else 0)
    plan = VolleyPlan(ruleset="dress-on-the-colors", attacker="F", target="T", need=need, stands_firing=dice,
                      save=save, target_stands=60)
    joint = volley_distribution(plan)
    assert joint.map(lambda o: o.hits).probabilities() == icepool_probabilities(dice @ hit_die)
    assert joint.map(lambda o: o.unsaved_hits).probabilities() == icepool_probabilities(dice @ unsaved_die)
    sixes = icepool_probabilities(dice @ six_die)
    assert joint.p(lambda o: o.suppression) == 1 - sixes[0]


def test_design_example_reproduces(doc):
    """The design's odds example: 4 dice needing 5+ give hits 0: 16/81, 1: 32/81, mean 4/3, and
    suppression 671/1296 (a disordered firer's rifled muskets at medium range, 4+ -1 [DC-3.3])."""
    b = dc_battle(unit("F", "blue", (0, 0), 0, disordered=True), unit("T", "grey", (0, 10), 180))
    odds = doc.odds(doc.plan(b, Attack("F", "T"))).to_dict()
    assert odds["outcomes"]["hits"]["distribution"]["0"] == "16/81"
    assert odds["outcomes"]["hits"]["distribution"]["1"] == "32/81"
    assert odds["outcomes"]["hits"]["mean"] == "4/3"
    assert odds["events"]["suppression"] == "671/1296"
