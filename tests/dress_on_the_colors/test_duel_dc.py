"""Dress on the Colors duels: the exact chain against brute force over every die [DC-3.1, DC-4.3, DC-5.3, DC-9.3].

Blue F at the origin facing +y, grey T up the table facing back: both fire every turn, losses thin the next
volley [DC-3.1], a micro-hit marker carries over [DC-4.3], disorder carries its -1 [DC-3.3, DC-5.3].
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from rangefire.analysis.duel import duel
from rangefire.core import Attack
from rangefire.rulesets.dress_on_the_colors.duel import results_key
from rangefire.rulesets.dress_on_the_colors.volley import VolleyPlan, volley_distribution
from tests.conftest import dc_battle, square, unit
from tests.duel_oracle import brute_duel, every_roll, marginals


def F(**kw):
    return unit("F", "blue", (0, 0), 0, **kw)


def T(d=8, **kw):
    return unit("T", "grey", (0, d), 180, **kw)


def _same(result, joint):
    m = marginals(joint)
    assert dict(result.winner) == {k: m["winner"].get(k, Fraction(0)) for k in ("a", "b", "both", "neither")}
    assert dict(result.turns) == m["turns"]
    assert dict(result.left["a"]) == m["a"]
    assert dict(result.left["b"]) == m["b"]


def test_exchanges_equal_every_roll_dc_4_3(doc):
    """One volley with saves and a discipline check: the exact battles left behind equal brute force."""
    battle = dc_battle(F(stands=2), T(stands=2, micro_hits=1), terrain=(
        {"id": "wood", "kind": "light", "polygon": square(-3, 8.5, 3, 11)},), discipline_dice=1)
    exact = doc.exchanges(battle, Attack("F", "T"))
    brute: dict = {}
    for p, after in every_roll(doc, battle, Attack("F", "T")):
        brute[after] = brute.get(after, Fraction(0)) + p
    assert dict((b, p) for p, b in exact) == brute
    assert sum(p for p, _ in exact) == 1


def test_a_volley_in_a_later_turn_leaves_battles_of_that_turn_dc_9_3(doc):
    """The battles a volley leaves are kept with its plan and reused when the same battle comes round in a later
    turn: they are then of that turn, equal to brute force there too."""
    def round_again(battle):  # both sides' turns end: the next turn of F's side
        return doc.duel_pass(doc.duel_pass(battle, "T"), "F")

    first = round_again(doc.duel_begin(dc_battle(F(stands=2), T(stands=2, micro_hits=1), discipline_dice=1), "F"))
    later = round_again(first)  # nothing fired: nothing changed but the turn
    assert later.turn != first.turn and later.model_copy(update={"turn": first.turn}) == first
    for battle in (first, later):
        exact = doc.exchanges(battle, Attack("F", "T"))
        brute: dict = {}
        for p, after in every_roll(doc, battle, Attack("F", "T")):
            brute[after] = brute.get(after, Fraction(0)) + p
        assert dict((b, p) for p, b in exact) == brute
        assert all(after.turn == battle.turn for _, after in exact)


@pytest.mark.parametrize(("f", "t", "turns", "options"), [
    ({"stands": 1}, {"stands": 1}, 3, {"discipline_dice": 1}),
    ({"stands": 2}, {"stands": 1, "micro_hits": 1}, 2, {"discipline_dice": 1}),
    ({"stands": 1, "disordered": True}, {"stands": 2, "weapon": "breechloader"}, 2, {"discipline_dice": 1}),
    ({"stands": 2, "formation": "skirmish"}, {"stands": 2, "weapon": "smoothbore"}, 2, {"discipline_dice": 1}),
])
def test_duel_equals_brute_force_dc_9_3(doc, f, t, turns, options):
    """Casualties [DC-4.3], disorder [DC-5.3] and the end of turn [DC-9.3] carried over: the chain equals
    every dice sequence played through resolve and apply, turn after turn."""
    battle = dc_battle(F(**f), T(**t), **options)
    result = duel(doc, battle, "F", "T", turns=turns)
    _same(result, brute_duel(doc, battle, "F", "T", turns))
    assert sum(result.winner.values()) == 1 and sum(result.turns.values()) == 1
    assert max(result.turns) <= turns


def test_duel_with_cover_and_gunsmoke_equals_brute_force_dc_7_2(doc):
    """Saves in cover [DC-4.1] and gunsmoke markers left by each volley [DC-7.1, DC-7.2], over two turns."""
    battle = dc_battle(F(stands=1), T(stands=1, d=7), terrain=(
        {"id": "wood", "kind": "light", "polygon": square(-3, 7.5, 3, 10)},), discipline_dice=1)
    result = duel(doc, battle, "F", "T", turns=2)
    _same(result, brute_duel(doc, battle, "F", "T", 2))


def test_turn_recorded_for_the_other_side_dc_9_2(doc):
    """The battle records grey to act: blue's F fires first, so the turn is passed to blue first [DC-9.2]."""
    battle = dc_battle(F(stands=1), T(stands=1), discipline_dice=1)
    battle = battle.model_copy(update={"turn": type(doc.end_turn(battle)[0].turn)(number=1, side="grey")})
    result = duel(doc, battle, "F", "T", turns=2)
    _same(result, brute_duel(doc, battle, "F", "T", 2))
    assert result.refusals == {"a": (), "b": ()}


def test_out_of_range_is_neither_dc_2_4(doc):
    """Beyond 20 in neither can fire [DC-2.4]: nothing changes, neither wins, the refusals say why."""
    battle = dc_battle(F(stands=2), T(stands=2, d=30))
    result = duel(doc, battle, "F", "T", turns=3)
    assert result.winner == {"a": 0, "b": 0, "both": 0, "neither": 1}
    assert result.turns == {3: 1}
    assert result.left == {"a": {2: 1}, "b": {2: 1}}
    assert [r.clause for r in result.refusals["a"]] == ["DC-2.4"]
    assert "beyond 20 in" in result.refusals["b"][0].reason


def test_to_dict_is_json_with_fractions(doc):
    battle = dc_battle(F(stands=1), T(stands=1), discipline_dice=1)
    data = duel(doc, battle, "F", "T", turns=2).to_dict()
    assert data["format"] == 1 and data["exact"] is True and data["left_measure"] == "stands"
    assert set(data["winner"]) == {"a", "b", "both", "neither"}
    assert sum(Fraction(p) for p in data["turns"]["distribution"].values()) == 1


def test_results_are_shared_by_every_number_their_odds_are_worked_out_from_dc_8_1(doc):
    """Volleys equal in the numbers of ``results_key`` share their worked-out results: every other field of a
    plan (its geometry, reasons, names) changes nothing in the volley's distribution."""
    battle = dc_battle(unit("F", "blue", (0, 0), 0, stands=5), unit("T", "grey", (0, 7), 180, micro_hits=1),
                       terrain=({"id": "w", "kind": "light", "polygon": [[-5, 7.5], [5, 7.5], [5, 9], [-5, 9]]},))
    plan = doc.check(battle, Attack("F", "T")).plan
    assert isinstance(plan, VolleyPlan)
    base = volley_distribution(plan).weights()
    others = {"ruleset": "another", "attacker": "G", "target": "U", "weapon": "smoothbore", "band": "long",
              "distance2": Fraction(99), "line_of_fire": None, "line_of_fire_tied": True, "target_number": 6,
              "enfilade": True, "cover": "heavy", "cover_from": ("x",), "smoke_from": ("y",), "places_gunsmoke": True,
              "tied_targets": ("z",), "lowest_hit": 1, "house_notes": (("dice", "note"),), "modifiers": (),
              "notes": ()}
    # what the key is made of: the dice, the need and save, the discipline check, the target's stands and markers
    read = {"stands_firing", "dice_per_stand", "enfilade_dice", "need", "save", "discipline_dice",
            "target_discipline", "discipline_disordered", "discipline_pass", "target_stands", "target_micro_hits",
            "target_disordered", "reroll_to_hit", "sixes_ignore_cover"}
    assert {f.name for f in dataclasses.fields(VolleyPlan)} == read | set(others)  # a new field is placed here
    for name, value in others.items():
        changed = dataclasses.replace(plan, **{name: value})
        assert results_key(changed) == results_key(plan)
        assert volley_distribution(changed).weights() == base, name
