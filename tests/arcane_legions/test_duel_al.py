"""Arcane Legions duels: the exact chain against brute force over every die [AL-6, AL-7.2, AL-5.1, AL-9.2].

Red A and blue T face each other 4 steps apart, each a blue icon to attack with and a white one to defend: damage
takes figures off in casualty order and their icons with them [AL-7.2], and each order spends order points
until a side can pay no more [AL-5.1] (refilled at the turn's end only where the scenario says so [AL-9.2]).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from rangefire.analysis.duel import duel, sample_duel
from rangefire.core import Attack
from rangefire.core.ruleset import NoDuelError
from rangefire.rulesets import battle_from_mapping
from tests.arcane_legions.test_rules import AL, unit
from tests.duel_oracle import assert_sample_agrees, brute_duel, every_roll, marginals

BW = [{"icons": ["blue"]}, {"icons": ["white"]}]


def game(a_slots=BW, t_slots=BW, red=8, blue=8, per_turn=None, **kw):
    players = {"red": {"order_points": red}, "blue": {"order_points": blue}}
    if per_turn is not None:
        players["red"]["order_points_per_turn"] = per_turn
    units = [unit("A", "red", (0, 0), 0, slots=a_slots, colours=("blue",) * 4, **kw),
             unit("T", "blue", (0, 4), 180, slots=t_slots, colours=("blue",) * 4)]
    return battle_from_mapping({"ruleset": "arcane-legions", "players": players, "units": units})[1]


def _same(result, joint):
    m = marginals(joint)
    assert dict(result.winner) == {k: m["winner"].get(k, Fraction(0)) for k in ("a", "b", "both", "neither")}
    assert dict(result.turns) == m["turns"]
    assert dict(result.left["a"]) == m["a"] and dict(result.left["b"]) == m["b"]


@pytest.mark.parametrize(("a_slots", "t_slots", "outcomes"), [
    (BW, [{"icons": ["white"], "hp": 2}, {"icons": ["blue"]}], 2),
    # three attack dice against one: three 6s are a critical, one more damage [AL-6.2, AL-7.1]
    ([{"icons": ["blue", "blue", "blue"]}], [{"icons": ["white"], "hp": 3}, {"icons": ["blue"], "hp": 2}], 5),
])
def test_exchanges_equal_every_roll_al_7_2(a_slots, t_slots, outcomes):
    battle = game(a_slots=a_slots, t_slots=t_slots)
    def text(b):
        return json.dumps(AL.dump(b), sort_keys=True)

    exact = AL.exchanges(battle, Attack("A", "T"))
    brute: dict = {}
    for p, after in every_roll(AL, battle, Attack("A", "T")):
        brute[text(after)] = brute.get(text(after), Fraction(0)) + p
    assert {text(b): p for p, b in exact} == brute and len(brute) == outcomes


@pytest.mark.parametrize(("kw", "turns"), [
    ({}, 3),
    ({"t_slots": [{"icons": ["white"], "hp": 2}, {"icons": ["blue"]}]}, 2),
    ({"a_slots": [{"icons": ["blue"]}, {"icons": ["blue"]}, {"icons": ["white"]}]}, 2),
    ({"red": 1, "blue": 1}, 3),  # one order each, then neither side can pay [AL-5.1]
    ({"red": 1, "blue": 1, "per_turn": 1}, 2),  # red's points come back at its turn's end [AL-9.2]
])
def test_duel_equals_brute_force_al_9_2(kw, turns):
    battle = game(**kw)
    result = duel(AL, battle, "A", "T", turns=turns)
    _same(result, brute_duel(AL, battle, "A", "T", turns))
    assert result.left_name == "figures"


def test_order_points_run_out_al_5_1():
    """One order point a side and none refilled: after one order each nothing changes [AL-5.1]."""
    one = duel(AL, game(red=1, blue=1), "A", "T", turns=1)
    many = duel(AL, game(red=1, blue=1), "A", "T", turns=4)
    assert one.winner == many.winner


def test_monte_carlo_agrees_by_chi_square():
    """The sampled duel rolls every die (first roll, criticals, lineup, phantoms): chi-square at seed 11."""
    battle = game(a_slots=[{"icons": ["blue", "blue"]}, {"icons": ["white"]}, {"icons": ["blue"]}],
                  t_slots=[{"icons": ["white", "blue"]}, {"icons": ["blue"], "hp": 2}])
    exact = duel(AL, battle, "A", "T", turns=3)
    n = 20_000
    est = sample_duel(AL, battle, "A", "T", turns=3, samples=n, seed=11)
    assert_sample_agrees(exact, est, n, parts=("winner", "turns", "b"))


def test_a_defender_that_scores_back_is_said_not_to_duel_al_6_6():
    battle = game(t_slots=[{"icons": ["white"]}, {"icons": ["blue"]}])
    battle = battle.model_copy(update={"units": (battle.units[0], battle.units[1].model_copy(update={
        "abilities": battle.units[1].abilities.model_copy(update={"defender_scores_in_ranged": True})}))})
    with pytest.raises(NoDuelError, match=r"scores back .*\[AL-6\.6\]"):
        duel(AL, battle, "A", "T", turns=1)
