"""swerve, clause by clause (../shared/rules/swerve.md): beginning, actions, reveal, winner, damage, odds."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from rangefire.core import (
    Attack,
    DiceError,
    EnteredSource,
    IllegalAttackError,
    RangefireError,
    ScenarioError,
    SeededSource,
)
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.rulesets.swerve import SwerveOutcome
from rangefire.rulesets.swerve.combat import Action

SW = find_ruleset("swerve")


def game(*extra_cards: dict[str, Any], deck=(5, 10, 0), order="known", hands=None, **options: Any) -> Any:
    """Cards other than tactics are in play at one mission [SW-1.5] unless they say otherwise."""
    in_play = [c if c["type"] == "tactic" or "mission" in c else {**c, "mission": "canyon"} for c in extra_cards]
    data: dict[str, Any] = {
        "ruleset": "swerve",
        "players": {"jason": {"deck": list(deck), "deck_order": order}, "tyler": {"deck": [0]}},
        "cards": [
            {"id": "launcher", "owner": "jason", "type": "weapon", "timing": "main", "mission": "canyon",
             "ranged": {"accuracy": 30, "damage": 1, "cost": "swerve-self", "targets": ["unit"]}},
            {"id": "unit", "owner": "tyler", "type": "unit", "speed": 20, "toughness": 2, "mission": "canyon"},
            *in_play],
        "hands": hands or {},
    }
    if options:
        data["options"] = options
    return battle_from_mapping(data)[1]


def attack(*actions: str, target: str = "unit", attacker: str = "launcher") -> Attack:
    return Attack(attacker, target, (("actions", actions),))


def refusal(battle: Any, att: Attack) -> tuple[str, str]:
    checked = SW.check(battle, att)
    assert not checked.is_legal, checked
    return checked.refusals[0].clause, checked.refusals[0].reason


def play(battle: Any, att: Attack, source: Any = None) -> Any:
    return SW.play(battle, att, source or SeededSource(1))


TACTIC = {"id": "smoke", "owner": "tyler", "type": "tactic", "timing": "ranged-combat", "effect": {"speed": 10}}
BRAWL = {"id": "brawl", "owner": "tyler", "type": "tactic", "timing": "close-combat", "effect": {"speed": 20}}
SPOTTER = {"id": "spotter", "owner": "jason", "type": "unit", "speed": 5, "timing": "combat",
           "effect": {"accuracy": 10, "damage": 1}}


# -- SW-1 cards and state --------------------------------------------------------------------------
def test_sw_1_1_cards_and_cross_checks():
    """SW-1.1: cards with owner and type; an owner or hand naming nobody is a scenario error."""
    assert game().card("unit").speed == 20
    with pytest.raises(ScenarioError, match=r"cards\[2\]\.owner: 'zed' is not a player"):
        game({"id": "x", "owner": "zed", "type": "unit"})
    with pytest.raises(ScenarioError, match=r"cards\[2\]\.type"):
        game({"id": "x", "owner": "tyler", "type": "car"})
    # an action naming a card that does not exist is refused with the clause
    assert refusal(game(), attack("attacker:play:ghost"))[0] == "SW-1.1"


def test_sw_1_2_ranged_text_is_data():
    """SW-1.2: cost, starting accuracy and damage, and target types are read from the card."""
    plan = SW.plan(game(), attack("attacker:pass", "defender:pass"))
    assert plan.start == (30, 20, 1)
    b = game({"id": "car", "owner": "tyler", "type": "vehicle", "speed": 10})
    assert refusal(b, attack(target="car"))[0] == "SW-2.2"  # the launcher targets units only


def test_sw_1_3_effects_add_to_the_acting_sides_totals():
    """SW-1.3: an effect adds N to a total; on the defender's side only speed counts."""
    b = game(SPOTTER, TACTIC, hands={"tyler": ["smoke"]})
    plan = SW.plan(b, attack("attacker:use:spotter", "defender:play:smoke", "attacker:pass", "defender:pass"))
    assert plan.final == (40, 30, 2)
    not_a_tactic = refusal(b, attack("attacker:play:spotter"))
    assert not_a_tactic[0] == "SW-1.3"


def test_sw_1_4_tactics_come_from_the_hand_once():
    """SW-1.4: a tactic is played from its owner's hand, once."""
    b = game(TACTIC, hands={"tyler": ["smoke"]})
    assert refusal(b, attack("attacker:pass", "defender:play:smoke", "attacker:pass",
                             "defender:play:smoke"))[0] == "SW-1.4"
    assert refusal(game(TACTIC), attack("attacker:pass", "defender:play:smoke"))[0] == "SW-1.4"


# -- SW-2 beginning --------------------------------------------------------------------------------
def test_sw_2_1_cost_is_paid_and_a_swerved_launcher_cannot_pay():
    """SW-2.1: the launcher's "swerve this" is paid; a swerved launcher cannot begin ranged combat."""
    b = game()
    _, after = play(b, attack("attacker:pass", "defender:pass"))
    assert after.card("launcher").swerved and not b.card("launcher").swerved
    clause, reason = refusal(after, attack())
    assert clause == "SW-2.1" and "swerved" in reason
    assert refusal(b, attack(attacker="unit"))[0] == "SW-2.1"  # a unit with no ranged text


def test_sw_2_2_exactly_one_unit_or_vehicle_of_the_opponent():
    """SW-2.2: one target, a unit or vehicle, not one's own; other cards at the mission take no part."""
    b = game(SPOTTER, {"id": "mate", "owner": "tyler", "type": "unit", "speed": 30})
    assert refusal(b, Attack("launcher", None))[0] == "SW-2.2"
    assert refusal(b, attack(target="spotter"))[0] == "SW-2.2"
    assert refusal(b, attack("attacker:pass", "defender:swerve:mate"))[0] == "SW-2.2"


def test_sw_2_3_and_2_4_starting_totals():
    """SW-2.3: accuracy and damage start at the card's values; SW-2.4: speed at the target's, damage 0."""
    res, _ = play(game(), attack("attacker:pass", "defender:pass"))
    assert [line.clause for line in res.log][:3] == ["SW-2.1", "SW-2.3", "SW-2.4"]
    assert res.outcome.accuracy == 30 + 5 and res.outcome.speed == 20


# -- SW-3 actions ----------------------------------------------------------------------------------
def test_sw_3_1_attacker_first_then_alternate():
    """SW-3.1: the attacker acts first, then the players alternate; out of turn is refused."""
    clause, reason = refusal(game(), attack("defender:pass"))
    assert clause == "SW-3.1" and "attacker's turn" in reason
    assert refusal(game(), attack("attacker:pass", "attacker:pass"))[0] == "SW-3.1"


def test_sw_3_2_two_passes_in_succession_end_the_stage():
    """SW-3.2: the stage ends on two passes in succession; a player who passed may act again before that."""
    b = game(TACTIC, hands={"tyler": ["smoke"]})
    plan = SW.plan(b, attack("attacker:pass", "defender:swerve-target", "attacker:pass", "defender:play:smoke",
                             "attacker:pass", "defender:pass"))
    assert plan.final[1] == 50
    assert refusal(b, attack("attacker:pass", "defender:pass", "attacker:pass"))[0] == "SW-3.2"


def test_sw_3_3_the_attacker_may_not_swerve_cards():
    """SW-3.3: the attacker may not swerve other cards to add to accuracy or damage."""
    b = game(SPOTTER)
    assert refusal(b, attack("attacker:swerve:spotter"))[0] == "SW-3.3"
    assert refusal(b, attack("attacker:swerve-target"))[0] == "SW-3.3"


def test_sw_3_4_the_defender_swerves_the_target_once():
    """SW-3.4: the defender may swerve the unswerved target to add its speed again (20 becomes 40)."""
    plan = SW.plan(game(), attack("attacker:pass", "defender:swerve-target", "attacker:pass", "defender:pass"))
    assert plan.final[1] == 40
    assert refusal(game(), attack("attacker:pass", "defender:swerve-target", "attacker:pass",
                                  "defender:swerve-target"))[0] == "SW-3.4"
    swerved = battle_from_mapping({**SW.dump(game()), "cards": [
        SW.dump(game())["cards"][0], {**SW.dump(game())["cards"][1], "swerved": True}]})[1]
    assert refusal(swerved, attack("attacker:pass", "defender:swerve-target"))[0] == "SW-3.4"


def test_sw_3_5_timings():
    """SW-3.5: Close Combat (and Main) timings cannot be used; Combat and Ranged Combat can, by either player."""
    b = game(TACTIC, BRAWL, SPOTTER, hands={"tyler": ["smoke", "brawl"]})
    clause, reason = refusal(b, attack("attacker:pass", "defender:play:brawl"))
    assert clause == "SW-3.5" and "close-combat" in reason
    assert SW.check(b, attack("attacker:use:spotter", "defender:play:smoke")).is_legal
    main = {"id": "boost", "owner": "jason", "type": "unit", "timing": "main", "effect": {"accuracy": 5}}
    assert refusal(game(main), attack("attacker:use:boost"))[0] == "SW-3.5"


def test_sw_3_5_an_illegal_action_leaves_the_battle_unchanged(tmp_path):
    """SW-3.5: an illegal action is refused with its clause; nothing is spent."""
    b = game(BRAWL, hands={"tyler": ["brawl"]})
    with pytest.raises(IllegalAttackError, match=r"SW-3\.5"):
        play(b, attack("attacker:pass", "defender:play:brawl"))
    assert not b.card("launcher").swerved and b.hands["tyler"] == ("brawl",)


# -- SW-4 the winner -------------------------------------------------------------------------------
def test_sw_4_1_reveal_adds_the_top_cards_bonus():
    """SW-4.1: the attacker reveals the top card of its deck and adds its bonus."""
    res, _ = play(game(deck=(15, 0)), attack("attacker:pass", "defender:swerve-target", "attacker:pass",
                                             "defender:pass"))
    assert res.outcome.bonus == 15 and res.outcome.accuracy == 45 and res.outcome.attacker_wins


def test_sw_4_2_revealed_card_stays_on_top_and_empty_deck_gives_zero():
    """SW-4.2: the revealed card stays on top (next time it shows again); an empty deck gives 0."""
    b = game(deck=(0, 5, 10), order="unknown")
    res, after = play(b, attack("attacker:pass", "defender:pass"), EnteredSource({"bonus": [10]}))
    assert after.players["jason"].top_revealed == 10 and after.players["jason"].deck == (0, 5, 10)
    assert res.outcome.bonus == 10
    res, _ = play(game(deck=()), attack("attacker:pass", "defender:pass"))
    assert res.outcome.bonus == 0 and res.outcome.accuracy == 30


@pytest.mark.parametrize(("ties", "wins"), [(False, False), (True, True)])
def test_sw_4_3_equal_totals(ties, wins):
    """SW-4.3: the higher total wins; equal totals go to the defender unless attacker_wins_ties."""
    b = game(deck=(10,), attacker_wins_ties=ties)  # 30 + 10 against 20 + 20
    res, _ = play(b, attack("attacker:pass", "defender:swerve-target", "attacker:pass", "defender:pass"))
    assert (res.outcome.accuracy, res.outcome.speed, res.outcome.attacker_wins) == (40, 40, wins)


# -- SW-5 damage -----------------------------------------------------------------------------------
def test_sw_5_1_and_5_3_damage_counters_and_destruction():
    """SW-5.1: the target takes the total damage; SW-5.3: counters, destroyed at toughness, swerves stay."""
    b = game(deck=(20,))
    res, after = play(b, attack("attacker:pass", "defender:swerve-target", "attacker:pass", "defender:pass"))
    assert res.outcome.damage == 1 and after.card("unit").counters == 1 and after.card("unit").swerved
    killer = {"id": "cannon", "owner": "jason", "type": "weapon",
              "ranged": {"accuracy": 50, "damage": 2, "targets": ["unit"]}}
    res, dead = play(game(killer), attack("attacker:pass", "defender:pass", attacker="cannon"))
    assert res.outcome.destroyed and "unit" not in SW.unit_ids(dead)


def test_sw_5_2_the_defender_deals_no_damage():
    """SW-5.2: when the defender wins it deals no damage; nobody takes damage."""
    res, after = play(game(deck=(0,)), attack("attacker:pass", "defender:swerve-target", "attacker:pass",
                                              "defender:pass"))
    assert not res.outcome.attacker_wins and res.outcome.damage == 0
    assert after.card("unit").counters == 0 and res.log[-1].clause == "SW-5.2"


# -- SW-6 odds -------------------------------------------------------------------------------------
def test_sw_6_1_unknown_order_each_card_equally_likely():
    """SW-6.1: with the order unknown the top card is any card left, equally likely (repeats weigh more)."""
    b = game(deck=(0, 5, 5, 15, 25, 30), order="unknown")  # needs more than 10 against 40
    odds = SW.odds(SW.plan(b, attack("attacker:pass", "defender:swerve-target", "attacker:pass",
                                     "defender:pass")))
    assert odds.events["attacker_wins"] == Fraction(3, 6)
    assert odds.outcomes["damage"].probabilities() == {0: Fraction(1, 2), 1: Fraction(1, 2)}
    with pytest.raises(DiceError, match="bonus: 7 is not a combat bonus left in the deck that can come up"):
        play(b, attack("attacker:pass", "defender:pass"), EnteredSource({"bonus": [7]}))


def test_sw_6_2_best_line_for_each_side():
    """SW-6.2: odds for every line of play, and the best line: the defender swerves, then plays Smoke."""
    b = game(TACTIC, deck=(0, 5, 10, 15, 20, 25), order="unknown", hands={"tyler": ["smoke"]})
    odds = SW.odds(SW.plan(b, attack()))
    assert odds.lines.best_line[:2] == ("attacker:pass", "defender:swerve-target")
    assert "defender:play:smoke" in odds.lines.best_line
    assert odds.events["attacker_wins"] == Fraction(1, 6)  # 30 + 25 > 50
    by_line = {line.actions: line.attacker_wins for line in odds.lines.lines}
    assert by_line[("attacker:pass", "defender:pass")] == 1  # 30 + anything beats 20
    assert min(by_line.values()) == odds.events["attacker_wins"]


# -- SW-7 the rules' own example -------------------------------------------------------------------
def test_sw_7_1_the_sawblade_launcher_example():
    """SW-7.1: 30 against 20; pass, swerve (40), pass, pass; bonus 5: 35 against 40; no damage."""
    from rangefire.demo import example_path
    from rangefire.rulesets import load_battle

    _, b = load_battle(example_path("sawblade.yaml"))
    res, after = SW.play(b, Attack("sawblade-launcher", "road-warrior", (("actions", (
        "attacker:pass", "defender:swerve-target", "attacker:pass", "defender:pass")),)), SeededSource(0))
    texts = [line.text for line in res.log]
    assert "sawblade-launcher begins with accuracy 30, damage 1" in texts
    assert "road-warrior defends with speed 20; the defender's damage is 0" in texts
    assert "tyler (defender) swerves road-warrior: total speed 20 + 20 = 40" in texts
    assert "jason reveals a combat bonus of 5: total accuracy 30 + 5 = 35 against total speed 40" in texts
    assert res.outcome == SwerveOutcome(attacker_wins=False, damage=0, bonus=5, accuracy=35, speed=40,
                                        destroyed=False, spent=("road-warrior",))
    assert after.card("road-warrior").counters == 0 and after.card("road-warrior").swerved
    # and best play finds the same line: the defender's swerve is what wins it
    assert SW.odds(SW.plan(b, Attack("sawblade-launcher", "road-warrior"))).lines.best_line == (
        "attacker:pass", "defender:swerve-target", "attacker:pass", "defender:pass")


def test_actions_parse_player_names_and_reject_nonsense():
    assert Action.parse("tyler:swerve-target", {"tyler": "defender"}) == Action("defender", "swerve-target")
    with pytest.raises(ValueError):
        Action.parse("attacker:dance")
    # text that names no action is bad input (exit 2) naming the choice, not a refusal by the rules (exit 1)
    with pytest.raises(RangefireError, match=r"^actions: action 1 is not an action: 'attacker:dance'") as caught:
        refusal(game(), attack("attacker:dance"))
    assert caught.value.exit_code == 2 and not isinstance(caught.value, IllegalAttackError)
