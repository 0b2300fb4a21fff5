"""Arcane Legions defects, each named after what went wrong: tied side choices (AL-3.5), damage not logged
(AL-7.3), explanations that left steps out, choice values refused as rules instead of bad input, and exact odds
that ran for minutes (the lineup beyond its limit is a labelled estimate)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from rangefire.core import EnteredSource, IllegalAttackError, RangefireError
from rangefire.rulesets.arcane_legions import orders
from tests.arcane_legions.test_rules import AL, BLUE, WHITE, A, T, attack, battle, plan_of, square, unit
from tests.test_cli import run


def texts(resolution: Any, clause: str | None = None) -> list[str]:
    return [line.text for line in resolution.log if clause is None or line.clause == clause]


# -- AL-3.5 tied side choices ----------------------------------------------------------------------
def reeds_battle() -> Any:
    """A (5 blue icons, blue front and right) against T (4 white icons) up and to the right, facing west: T's
    grey front (west) side and blue left (south) side are both in reach from A's corner notch (1/2, 1/2).

    Three strips of reeds cover the approach to T's west side, and a stone its corner, so the best lines are
    3.20 steps long: to T's west side hindered three times (2 attack dice against 1: net 1) and to T's south
    side clear (5 against 4: net 1). Every other line nets less or is longer.
    """
    a = A(slots=[BLUE] * 5, colours=("blue", "blue", "grey", "grey"))
    t = unit("T", "blue", (3, 3), 270, slots=[WHITE] * 4, colours=("grey", "blue", "blue", "blue"))
    reeds = tuple({"id": f"reeds{i}", "kind": "hindering", "polygon": square(x0, "2.1", x1, 4)}
                  for i, (x0, x1) in enumerate([("2.05", "2.15"), ("2.2", "2.3"), ("2.35", "2.45")]))
    stone = {"id": "stone", "kind": "hindering", "polygon": square("2.45", "2.35", "2.49", "2.49")}
    return battle(a, t, terrain=(*reeds, stone))


def test_tied_side_choices_take_the_one_with_more_attack_dice_AL_3_5():
    """AL-3.5: two choices tie on net dice (1) and distance; the engine takes the one giving the attacker more
    dice (5 against T's blue left side, not 2 through the reeds against its grey front), and says others tied."""
    plan = AL.plan(reeds_battle(), attack())
    assert (plan.from_side, plan.to_side, plan.attack_dice, plan.defense_dice) == ("front", "left", 5, 4)
    assert plan.hindered_by == () and plan.distance2 == pytest.approx(10.25)
    tied = [n.text for n in plan.notes if n.clause == "AL-3.5"]
    assert len(tied) == 1
    assert "front side to T's front side" in tied[0] and "right side to T's left side" in tied[0]
    assert plan.details()["sides"]["tied_with"] == [["front", "front"], ["right", "front"], ["right", "left"]]


def test_tied_side_choices_follow_the_side_order_and_are_reported_AL_3_5():
    """AL-3.5: four choices with the same dice at the same distance (through the shared corner notches): the
    attacker's sides in the order front, right, back, left, then the target's; the others are reported."""
    a = A(colours=("blue", "blue", "grey", "grey"))
    t = unit("T", "blue", (3, 3), 270, slots=[WHITE], colours=("grey", "blue", "blue", "grey"))
    plan = plan_of(a, t)
    assert (plan.from_side, plan.to_side) == ("front", "front")
    assert plan.details()["sides"]["tied_with"] == [["front", "left"], ["right", "front"], ["right", "left"]]
    named = plan_of(a, t, choices={"from_side": "right"})
    assert (named.from_side, named.to_side) == ("right", "front")
    assert named.details()["sides"]["tied_with"] == [["right", "left"]]
    # a choice that wins outright reports no tie
    alone = plan_of(A(), T())
    assert not [n for n in alone.notes if n.clause == "AL-3.5"] and alone.details()["sides"]["tied_with"] == []


# -- AL-7.3 damage logged ----------------------------------------------------------------------------
def test_close_combat_attacker_removed_silently_AL_7_3():
    """AL-7.3 with AL-8.2: the attacker's losses in close combat are logged figure by figure, and its
    destruction; the log agrees with the battle after."""
    fighter = A(slots=[{"icons": ["red"]}, {"icons": ["red"]}], colours=("red",) * 4)
    foe = unit("T", "blue", (0, 1), 180, slots=[WHITE] * 3, colours=("blue",) * 4)
    b = battle(fighter, foe)
    res, after = AL.play(b, attack(order="close"), EnteredSource({"attack": [5, 1], "defense": [4, 3, 3]}))
    assert "A" not in AL.unit_ids(after)
    damage = texts(res, "AL-7.2")
    assert "A's figure in slot 1 takes 1 damage: removed" in damage
    assert "A's figure in slot 0 takes 1 damage: removed" in damage
    assert "A is destroyed: no figures left" in damage
    assert "T's figure in slot 2 takes 1 damage: removed" in damage
    assert any(line.clause == "AL-8.2" and "A takes 2 damage" in line.text for line in res.log)


def test_every_point_of_damage_logged_AL_7_3():
    """AL-7.3: the figure that takes each point, a figure with hit points left, each figure removed, damage
    beyond the last figure lost, the unit destroyed."""
    t = T(slots=[WHITE, {"icons": ["white"], "hp": 2}], casualty_order=[1, 0])
    res, after = AL.play(battle(A(slots=[BLUE] * 5), t), attack(),
                         EnteredSource({"attack": [6, 6, 6, 5, 1], "defense": [1, 1]}))
    assert res.outcome.hits == 5  # 6 > 1, 6 > 1, 6 > (2), 5 > (2), 1 < (2): 4 hits and a critical
    assert texts(res, "AL-7.2") == ["T's figure in slot 1 takes 2 damage: removed",
                                    "T's figure in slot 0 takes 1 damage: removed",
                                    "2 damage beyond the last figure is lost",
                                    "T is destroyed: no figures left"]
    assert "T" not in AL.unit_ids(after)
    wounded = T(slots=[WHITE, {"icons": ["white"], "hp": 3}])
    res2, after2 = AL.play(battle(A(), wounded), attack(), EnteredSource({"attack": [6, 5, 1], "defense": [1, 1]}))
    assert texts(res2, "AL-7.2") == ["T's figure in slot 1 takes 2 damage: 1 hit point left"]
    assert after2.unit("T").slots[1].hp == 1


def test_defender_scoring_in_ranged_combat_logs_the_attacker_losses_AL_7_3():
    """AL-7.3 with defender_scores_in_ranged (AL-6.6): the attacker's figures that fall are logged."""
    able = T(abilities={"defender_scores_in_ranged": True})
    res, after = AL.play(battle(A(), able), attack(), EnteredSource({"attack": [1, 1, 1], "defense": [6, 6]}))
    assert res.outcome.defender_hits == 2 and after.unit("A").figures == 1
    assert texts(res, "AL-7.2") == ["A's figure in slot 2 takes 1 damage: removed",
                                    "A's figure in slot 1 takes 1 damage: removed"]


# -- explanations ------------------------------------------------------------------------------------
def test_ability_dice_were_not_cited_as_modifiers():
    """AL-5.3, AL-5.4, AL-6.3, AL-8.1: attack_dice, defense_dice and die bonuses are modifiers with their
    clause; rerolls are noted."""
    a = A(abilities={"attack_dice": 2, "attack_die_bonus": 1, "reroll_attack_at_most": 2})
    t = T(abilities={"defense_dice": 1, "defense_die_bonus": -1})
    plan = plan_of(a, t)
    mods = [(m.clause, m.delta) for m in plan.modifiers]
    assert ("AL-5.3", 2) in mods and ("AL-5.4", 1) in mods
    assert ("AL-6.3", 1) in mods and ("AL-6.3", -1) in mods
    assert any(n.clause == "AL-6.3" and "2 or less" in n.text for n in plan.notes)
    assert plan.attack_dice == 5 and plan.defense_dice == 3
    fighter = A(slots=[{"icons": ["red"]}], colours=("red",) * 4, abilities={"attack_dice": 1})
    foe = unit("T", "blue", (0, 1), 180, slots=[WHITE], colours=("blue",) * 4)
    close = plan_of(fighter, foe, choices={"order": "close"})
    assert ("AL-8.1", 1) in [(m.clause, m.delta) for m in close.modifiers] and close.attack_dice == 2


def test_planning_steps_missing_from_the_resolve_log():
    """AL-3.4, AL-4.3, AL-5.1, AL-5.2, AL-5.3, AL-5.4: sides and range, line of sight, order points, the push
    and the dice counts are in the resolve log, not only in the plan."""
    woods = {"id": "woods", "kind": "hindering", "polygon": square(-5, "1.5", 5, 2)}
    b = battle(A(), T(), terrain=(woods,))
    res, once = AL.play(b, attack(), EnteredSource({"attack": [1, 1], "defense": [1, 1]}))
    clauses = [line.clause for line in res.log]
    for clause in ("AL-3.4", "AL-4.3", "AL-5.1", "AL-5.3", "AL-5.4"):
        assert clause in clauses, clause
    assert "A attacks with 2 blue dice: 3 ready blue icons, -1 1 hindrance on the line of sight [AL-4.3]" \
        in texts(res, "AL-5.3")
    assert clauses.index("AL-3.4") < clauses.index("AL-6.1")
    again = AL.resolve(AL.plan(once, attack()), EnteredSource({"attack": [1], "defense": [1, 1]}))
    assert any("pushed" in t and "slot 2" in t for t in texts(again, "AL-5.2"))


def test_lineup_log_printed_unequal_pairs_as_equal():
    """AL-6.4: a die against a phantom 2 is compared honestly: 1<(2), (2)>1, 2=(2)."""
    res = AL.resolve(AL.plan(battle(A(slots=[BLUE] * 3), T(slots=[WHITE] * 4)), attack()),
                     EnteredSource({"attack": [5, 2, 1], "defense": [6, 1, 1, 1]}))
    lineup = texts(res, "AL-6.4")[0]
    assert lineup.endswith("5<6 2>1 1=1 (2)>1")
    res2 = AL.resolve(AL.plan(battle(A(), T(slots=[WHITE])), attack()),
                      EnteredSource({"attack": [3, 2, 1], "defense": [6]}))
    assert texts(res2, "AL-6.4")[0].endswith("3<6 2=(2) 1<(2)")
    assert res2.outcome.hits == 0


def test_one_hit_one_die_grammar():
    """AL-6.1 to AL-7.1: "1 die", "1 hit", never "1 dice" or "1 hits"."""
    a = A(slots=[BLUE], abilities={"reroll_attack_at_most": 1})
    res = AL.resolve(AL.plan(battle(a, T(slots=[WHITE])), attack()),
                     EnteredSource({"attack": [1], "attack-reroll": [5], "defense": [3]}))
    log = " | ".join(texts(res))
    assert "1 blue die" in log and "1 white die" in log and "rerolls 1 die" in log and "1 hit" in log
    assert not re.search(r"\b1 (dice|hits|icons|order points)\b", log), log


# -- choice values: bad input, not a refusal --------------------------------------------------------------
@pytest.mark.parametrize(("choice", "value", "allowed"), [
    ("order", "clse", "ranged, close"),
    ("from_side", "sideways", "front, right, back, left"),
    ("to_side", "top", "front, right, back, left"),
])
def test_unknown_choice_value_was_a_rules_refusal(choice, value, allowed):
    """A choice value that is not one of the allowed values is bad input (exit 2), naming the choice."""
    with pytest.raises(RangefireError) as caught:
        AL.check(battle(A(), T()), attack(**{choice: value}))
    assert not isinstance(caught.value, IllegalAttackError)
    assert str(caught.value).startswith(f"{choice}: {value!r} is not one of {allowed}")


def test_unknown_choice_values_exit_2_at_the_command_line(tmp_path):
    path = tmp_path / "b.json"
    path.write_text(json.dumps(AL.dump(battle(A(), T()))))
    for option, value in (("--order", "clse"), ("--from-side", "sideways")):
        proc = run("odds", str(path), "-a", "A", "-t", "T", option, value, ok=2)
        assert value in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


# -- the lineup's exact limit and the estimate beyond it ----------------------------------------------------
def big(uid: str, side: str, pos: Any, facing: int, icon: str, count: int, **kw: Any) -> dict[str, Any]:
    """A unit with ``count`` icons of one kind, 12 to a slot."""
    slots = [{"icons": [icon] * min(12, count - i)} for i in range(0, count, 12)]
    return unit(uid, side, pos, facing, slots=slots, colours=("blue",) * 4, **kw)


def test_exact_lineup_ran_for_minutes_beyond_its_limit():
    """Past MAX_EXACT_DICE dice in all, odds are a Monte Carlo estimate labelled as such (exact False, with
    samples, seed and 95% intervals), decided from the dice counts before any work."""
    b = battle(big("A", "red", (0, 0), 0, "blue", 200), big("T", "blue", (0, 4), 180, "white", 200,
                                                            abilities={"defender_scores_in_ranged": True}))
    plan = AL.plan(b, attack())
    assert plan.attack_dice + plan.defense_dice > orders.MAX_EXACT_DICE
    odds = AL.odds(plan)
    assert odds.exact is False and odds.estimate is not None
    est = odds.estimate
    assert est["method"] == "monte carlo" and est["samples"] == orders.SAMPLES and est["seed"] == orders.SEED
    assert str(orders.MAX_EXACT_DICE) in est["why"]
    low, high = est["outcomes"]["hits"]["ci95"]
    assert low <= est["outcomes"]["hits"]["mean"] <= high
    assert set(odds.outcomes) == {"hits", "defender_hits"} and set(est["events"]) == {"critical"}
    data = odds.to_dict()
    assert data["exact"] is False and data["estimate"]["samples"] == orders.SAMPLES
    assert AL.odds(plan).to_dict() == data  # seeded: the same estimate every time


def test_estimate_agrees_with_exact_odds_just_below_the_limit():
    """At MAX_EXACT_DICE dice in all the odds are exact; forced to an estimate, every 95% interval holds the
    exact value (fixed seed, so this cannot flake)."""
    a = big("A", "red", (0, 0), 0, "blue", 40, abilities={"attack_dice": 1, "reroll_attack_at_most": 1,
                                                           "attack_die_bonus": 1})
    half = orders.MAX_EXACT_DICE // 2
    t = big("T", "blue", (0, 4), 180, "white", orders.MAX_EXACT_DICE - half - 1,
            abilities={"defender_scores_in_ranged": True})
    plan = AL.plan(battle(a, t), attack())
    assert plan.attack_dice + plan.defense_dice == orders.MAX_EXACT_DICE
    exact = AL.odds(plan)
    assert exact.exact
    guess = orders.odds_of(plan, exact_limit=0)
    assert not guess.exact and guess.estimate is not None
    for name in ("hits", "defender_hits"):
        low, high = guess.estimate["outcomes"][name]["ci95"]
        assert low <= float(exact.outcomes[name].mean()) <= high, name  # type: ignore[attr-defined]
    low, high = guess.estimate["events"]["critical"]["ci95"]
    assert low <= float(exact.events["critical"]) <= high


def test_estimate_at_the_command_line_says_exact_false(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(json.dumps(AL.dump(battle(big("A", "red", (0, 0), 0, "blue", 120),
                                              big("T", "blue", (0, 4), 180, "white", 60)))))
    data = json.loads(run("odds", str(path), "-a", "A", "-t", "T", "--json").stdout)
    assert data["exact"] is False and data["estimate"]["method"] == "monte carlo"
    assert "estimate, not exact" in run("odds", str(path), "-a", "A", "-t", "T").stdout
