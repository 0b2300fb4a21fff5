"""swerve, changing the table (SW-9.1, with SW-9.2 before any turn is recorded): in a player's turn that player
moves one of its cards in play to another mission; the card keeps its swerved state and damage counters; a card
of another player, or one not in play (in a hand, SW-1.5), is refused; nothing is measured.

The table: jason's launcher (swerved) and buggy at the canyon, tyler's unit (1 damage counter) at the canyon and
truck at the mesa; tyler's tactic smoke in his hand.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rangefire.core import RangefireError, UnknownUnitError
from rangefire.core.moves import IllegalMoveError, Mark, Move
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.rulesets.swerve.moves import missions

SW = find_ruleset("swerve")
CARDS = ("launcher", "buggy", "unit", "truck")


def table(turn: Any = "jason", *more: dict[str, Any]) -> Any:
    cards = [
        {"id": "launcher", "owner": "jason", "type": "weapon", "timing": "main", "mission": "canyon", "swerved": True,
         "ranged": {"accuracy": 30, "damage": 1}},
        {"id": "buggy", "owner": "jason", "type": "vehicle", "speed": 10, "mission": "canyon"},
        {"id": "unit", "owner": "tyler", "type": "unit", "speed": 20, "toughness": 3, "counters": 1,
         "mission": "canyon"},
        {"id": "truck", "owner": "tyler", "type": "vehicle", "speed": 5, "mission": "mesa"},
        {"id": "smoke", "owner": "tyler", "type": "tactic", "timing": "ranged-combat", "effect": {"speed": 10}},
        *more,
    ]
    data: dict[str, Any] = {"ruleset": "swerve", "players": {"jason": {"deck": [5]}, "tyler": {"deck": [0]}},
                            "cards": cards, "hands": {"tyler": ["smoke"]}}
    if turn is not None:
        data["turn"] = {"number": 1, "side": turn}
    return battle_from_mapping(data)[1]


def refusals(checked: Any) -> list[tuple[str, str]]:
    return [(r.clause, r.reason) for r in checked.refusals]


def test_a_player_moves_its_card_in_play_to_another_mission_sw_9_1():
    """SW-9.1: in jason's turn the launcher goes from the canyon to the mesa, still swerved; nothing is measured;
    the old battle is untouched and no other card changes."""
    b = table()
    checked = SW.check_move(b, Move("launcher", mission="mesa"))
    assert checked.is_legal and checked.distance is None and SW.move_unit is None
    after = checked.after
    assert after.card("launcher").mission == "mesa" and after.card("launcher").swerved
    assert after.card("launcher") == b.card("launcher").model_copy(update={"mission": "mesa"})
    assert [c for c in after.cards if c.id != "launcher"] == [c for c in b.cards if c.id != "launcher"]
    assert after.hands == b.hands and after.players == b.players and after.turn == b.turn
    assert b.card("launcher").mission == "canyon"
    assert [str(line) for line in checked.log] == [
        "[SW-9.1] jason moves launcher from canyon to mesa; it keeps its swerved state (swerved) and 0 damage "
        "counters"]
    assert checked.to_dict() == {"unit": "launcher", "legal": True, "refusals": [], "distance": None,
                                 "log": [line.to_dict() for line in checked.log]}


def test_a_card_keeps_its_damage_counters_and_swerved_state_sw_9_1():
    """SW-9.1: tyler's unit, with 1 damage counter, moves to the mesa in tyler's turn with its counter; the launcher
    that begins combat against it there fights on: the combat sees the card's counters and state."""
    after, log = SW.move(table("tyler"), Move("unit", mission="mesa"))
    unit = after.card("unit")
    assert (unit.mission, unit.counters, unit.swerved) == ("mesa", 1, False)
    assert log[-1].text.endswith("it keeps its swerved state (unswerved) and 1 damage counter")


def test_a_card_of_another_player_is_refused_sw_9_1():
    """SW-9.1: in jason's turn tyler's truck cannot be moved; in tyler's turn it can, and jason's buggy cannot."""
    b = table("jason")
    assert refusals(SW.check_move(b, Move("truck", mission="canyon"))) == [
        ("SW-9.1", "it is jason's turn; truck is tyler's card: a player moves only its own cards, in its turn")]
    with pytest.raises(IllegalMoveError, match=r"a player moves only its own cards, in its turn \[SW-9\.1\]"):
        SW.move(b, Move("truck", mission="canyon"))
    passed, _ = SW.end_turn(b)
    assert SW.check_move(passed, Move("truck", mission="canyon")).is_legal
    assert [r.clause for r in SW.check_move(passed, Move("buggy", mission="mesa")).refusals] == ["SW-9.1"]


def test_a_card_not_in_play_is_refused_sw_1_5():
    """SW-1.5 with SW-9.1: a card in a hand is not in play and never moves to a mission; nor does one at none."""
    b = table("tyler")
    assert refusals(SW.check_move(b, Move("smoke", mission="canyon"))) == [
        ("SW-1.5", "smoke is in tyler's hand, not in play: only a card in play moves to another mission [SW-9.1]")]
    loose = table("tyler", {"id": "drone", "owner": "tyler", "type": "unit", "speed": 3})
    assert refusals(SW.check_move(loose, Move("drone", mission="canyon"))) == [
        ("SW-1.5", "drone is at no mission: only cards in play (at a mission) act: only a card in play moves to "
                   "another mission [SW-9.1]")]


def test_another_mission_is_one_of_the_battle_s_missions_sw_9_1():
    """SW-9.1: "another mission": not the card's own, and one the battle has (a card in play stands at it); a name
    no card in play stands at is refused with the missions there are."""
    b = table()
    assert missions(b) == ["canyon", "mesa"]
    assert refusals(SW.check_move(b, Move("buggy", mission="canyon"))) == [
        ("SW-9.1", "buggy is at canyon already: a move takes it to another mission")]
    assert refusals(SW.check_move(b, Move("buggy", mission="Mesa"))) == [
        ("SW-9.1", "no card in play is at a mission 'Mesa': buggy may move to another mission of the battle (mesa)")]
    emptied, _ = SW.move(SW.end_turn(b)[0], Move("truck", mission="canyon"))
    assert missions(emptied) == ["canyon"]
    assert refusals(SW.check_move(emptied, Move("truck", mission="mesa"))) == [
        ("SW-9.1", "no card in play is at a mission 'mesa': truck may move to another mission of the battle (none)")]


def test_with_no_turn_recorded_any_players_card_moves_sw_9_2():
    """SW-9.2: before a turn is recorded (set-up) nothing limits whose card moves; the log says so."""
    after, log = SW.move(table(None), Move("truck", mission="canyon"))
    assert after.card("truck").mission == "canyon"
    assert str(log[0]) == "[SW-9.2] no turn is recorded: nothing limits whose card moves (truck is tyler's)"


def test_the_moved_battle_reads_back_through_the_battle_model():
    """The battle after a move is dumped and read again to the same battle (the mission, the swerved state, the
    counters, the hands and the turn as they were)."""
    b = table("tyler")
    after, _ = SW.move(SW.move(b, Move("unit", mission="mesa"))[0], Move("truck", mission="canyon"))
    assert battle_from_mapping(SW.dump(after))[1] == after
    assert {c.id: c.mission for c in after.cards} == {"launcher": "canyon", "buggy": "canyon", "unit": "mesa",
                                                      "truck": "canyon", "smoke": None}


def test_bad_input_unknown_card_no_mission_other_fields_and_marks():
    b = table()
    with pytest.raises(UnknownUnitError, match=r"unit 'ghost' is not in this battle"):
        SW.check_move(b, Move("ghost", mission="mesa"))
    with pytest.raises(RangefireError, match=r"^mission: a swerve move names the mission the card moves to"):
        SW.check_move(b, Move("buggy"))
    for extra in ({"to": (1, 2)}, {"facing": 90}, {"formation": "line"}, {"run": True}):
        with pytest.raises(RangefireError, match=r"a swerve move takes a card to another mission and nothing else "
                                                 r"\[SW-9\.1\]"):
            SW.check_move(b, Move("buggy", mission="mesa", **extra))
    with pytest.raises(RangefireError, match=r"'swerved' is not a state a player sets in swerve \(states: none\)"):
        SW.check_mark(b, Mark("buggy", "swerved"))
    with pytest.raises(RangefireError, match=r"mission: must be text"):
        Move.from_dict({"unit": "buggy", "mission": 3})


@settings(max_examples=60, deadline=None)
@given(card=st.sampled_from(CARDS), to=st.sampled_from(["canyon", "mesa"]), turn=st.sampled_from(["jason", "tyler",
                                                                                                  None]))
def test_a_legal_move_changes_no_other_card_and_moving_back_restores_it_sw_9_1(card, to, turn):
    b = table(turn)
    checked = SW.check_move(b, Move(card, mission=to))
    if not checked.is_legal:
        assert {r.clause for r in checked.refusals} == {"SW-9.1"}
        return
    after = checked.after
    assert [c for c in after.cards if c.id != card] == [c for c in b.cards if c.id != card]
    home = b.card(card).mission
    if home in missions(after):
        assert SW.move(after, Move(card, mission=home))[0] == b
