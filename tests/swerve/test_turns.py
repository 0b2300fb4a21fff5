"""swerve, the turn (SW-8.1): the turn passes from player to player in the order of the scenario; at the start
of a player's turn that player's swerved cards are unswerved."""

from __future__ import annotations

from typing import Any

import pytest

from rangefire.core import ScenarioError
from rangefire.rulesets import battle_from_mapping
from tests.swerve.test_rules import SW, attack, play
from tests.test_turns import logged_turn, replay_equals_out


def table(turn: Any = None, **swerved: bool) -> Any:
    cards = [
        {"id": "launcher", "owner": "jason", "type": "weapon", "timing": "main", "mission": "canyon",
         "ranged": {"accuracy": 30, "damage": 1}},
        {"id": "buggy", "owner": "jason", "type": "vehicle", "speed": 10, "mission": "canyon"},
        {"id": "unit", "owner": "tyler", "type": "unit", "speed": 20, "toughness": 2, "mission": "canyon"},
        {"id": "truck", "owner": "tyler", "type": "vehicle", "speed": 5, "mission": "canyon"},
    ]
    for card in cards:
        card["swerved"] = swerved.get(card["id"], False)
    data: dict[str, Any] = {"ruleset": "swerve", "players": {"jason": {"deck": [5]}, "tyler": {"deck": [0]}},
                            "cards": cards}
    if turn is not None:
        data["turn"] = turn
    return battle_from_mapping(data)[1]


def test_the_turn_passes_to_the_next_player_sw_8_1():
    """SW-8.1: jason, tyler (the order of players), then jason in turn 2; the battle records whose turn it is."""
    b = table(turn={"number": 1, "side": "jason"})
    assert SW.side_to_act(b) == "jason"
    after, log = SW.end_turn(b)
    assert after.turn.model_dump() == {"number": 1, "side": "tyler"} and SW.side_to_act(after) == "tyler"
    assert str(log[0]) == "[SW-8.1] turn 1: jason's turn ends; the turn passes to tyler"
    again, _ = SW.end_turn(after)
    assert again.turn.model_dump() == {"number": 2, "side": "jason"}


def test_the_next_player_s_swerved_cards_are_unswerved_sw_8_1():
    """SW-8.1: at the start of tyler's turn tyler's swerved cards are unswerved; jason's stay swerved until his."""
    b = table(turn={"number": 1, "side": "jason"}, launcher=True, buggy=True, unit=True, truck=True)
    after, log = SW.end_turn(b)
    swerved = {c.id: c.swerved for c in after.cards}
    assert swerved == {"launcher": True, "buggy": True, "unit": False, "truck": False}
    assert str(log[-1]) == "[SW-8.1] tyler's turn starts: unit, truck unswerved"
    again, log = SW.end_turn(after)
    assert not any(c.swerved for c in again.cards)
    assert str(log[-1]) == "[SW-8.1] jason's turn starts: launcher, buggy unswerved"


def test_a_swerved_launcher_can_pay_again_in_its_owner_s_next_turn_sw_8_1():
    """SW-8.1 with SW-2.1: the launcher swerved to begin combat cannot pay again until jason's next turn."""
    b = table(turn={"number": 1, "side": "jason"})
    _, after = play(b, attack("attacker:pass", "defender:pass"))
    assert SW.check(after, attack()).refusals[0].clause == "SW-2.1"
    tyler, _ = SW.end_turn(after)
    assert SW.check(tyler, attack()).refusals[0].clause == "SW-2.1"
    jason, _ = SW.end_turn(tyler)
    assert SW.check(jason, attack()).is_legal


def test_no_recorded_turn_is_turn_1_of_the_first_player_sw_8_1():
    after, log = SW.end_turn(table(unit=True))
    assert "recorded no turn" in log[0].text and after.turn.model_dump() == {"number": 1, "side": "tyler"}
    assert not after.card("unit").swerved


def test_a_turn_for_no_player_is_bad_input_sw_8_1():
    with pytest.raises(ScenarioError, match=r"turn\.side: 'amy' is not a player \(jason, tyler\)"):
        table(turn={"number": 1, "side": "amy"})


def test_a_logged_turn_replays_to_the_battle_written_by_out_sw_8_1(tmp_path):
    """SW-8.1: the rules' own example, then the end of jason's turn (road-warrior unswerved), replayed."""
    scenario, log, out = logged_turn(tmp_path, "sawblade.yaml", [
        ("resolve", "-a", "sawblade-launcher", "-t", "road-warrior", "--actions",
         "attacker:pass,defender:swerve-target,attacker:pass,defender:pass"),
        ("end-turn",)])
    data = replay_equals_out(tmp_path, scenario, log, out)
    swerved = {c["id"]: c["swerved"] for c in data["battle"]["cards"]}
    assert swerved == {"sawblade-launcher": True, "road-warrior": False}
