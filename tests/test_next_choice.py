"""Who makes the next choice of an attack, as data: the side (as ``Ruleset.sides`` names it) beside the words
[BU-4.2: the target's player nominates; SW-3.1: the attacker acts first, then the players alternate]."""

from __future__ import annotations

from rangefire.core import Attack
from rangefire.demo import example_path
from rangefire.rulesets import RULESETS, load_battle


def test_the_target_s_player_nominates_bu_4_2():
    ruleset, battle = load_battle(example_path("temple.yaml"))
    attack = Attack("yoichi", "takeda")
    question = ruleset.next_choice(battle, attack)
    assert question is not None
    target_side = next(u.side for u in battle.units if u.id == "takeda")  # read from the scenario, not the engine
    attacker_side = next(u.side for u in battle.units if u.id == "yoichi")
    assert question.side == target_side != attacker_side and question.side in ruleset.sides(battle)
    assert question.clause == "BU-4.2" and question.name == "redirect_to"
    assert question.allowed[0] == "keep takeda" and "nominate yojimbo" in question.allowed
    # the words as before, beside the side
    assert ruleset.next_choices(battle, attack) == (f"{target_side} (the target's player)", list(question.allowed))
    assert question.to_dict()["side"] == target_side
    # once answered nothing is left (one swap only, BU-4.3); the answer read back out of the choices
    for answer in question.allowed:
        answered = ruleset.with_choice(attack, answer)
        assert ruleset.next_choice(battle, answered) is None
        assert ruleset.answers_in(answered) == (attack, (answer,))


def test_swerve_players_alternate_attacker_first_sw_3_1():
    ruleset, battle = load_battle(example_path("ambush.yaml"))
    owner = {c.id: c.owner for c in battle.cards}
    attacker, defender = owner["rail-gun"], owner["dune-buggy"]
    attack = Attack("rail-gun", "dune-buggy")
    line = ["attacker:pass", "defender:swerve-target", "attacker:pass", "defender:pass"]
    expected = [attacker, defender, attacker, defender]
    for i, (action, side) in enumerate(zip(line, expected, strict=True)):
        question = ruleset.next_choice(battle, attack)
        assert question is not None, i
        assert question.side == side and question.clause == "SW-3.1" and question.name == "actions"
        role = "attacker" if side == attacker else "defender"
        assert question.who == f"{side} ({role})"
        assert all(a.startswith(role + ":") for a in question.allowed) and action in question.allowed
        attack = ruleset.with_choice(attack, action)
    assert ruleset.next_choice(battle, attack) is None  # both passed in succession [SW-3.2]
    assert ruleset.answers_in(attack) == (Attack("rail-gun", "dune-buggy"), tuple(line))


def test_games_of_no_sequence_ask_nothing():
    for ruleset in RULESETS:
        if ruleset.key in ("bushido", "swerve"):
            continue
        example = {"arcane-legions": ("ford.yaml", "archers", "orc-band"),
                   "dress-on-the-colors": ("wheatfield.yaml", "15th-alabama", None)}[ruleset.key]
        _, battle = load_battle(example_path(example[0]))
        attack = Attack(example[1], example[2])
        assert ruleset.next_choice(battle, attack) is None and ruleset.next_choices(battle, attack) is None
        assert ruleset.answers_in(attack) == (attack, ())
