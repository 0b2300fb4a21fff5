"""Arcane Legions, the turn (AL-9): only the side to act takes orders; the end of a side's turn clears its
ranged orders and pushes and restores its order points where the scenario says how many."""

from __future__ import annotations

from typing import Any

import pytest

from rangefire.core import Attack, ScenarioError, SeededSource
from rangefire.rulesets import battle_from_mapping
from tests.arcane_legions.test_rules import AL, WHITE, A, T, unit
from tests.test_turns import logged_turn, replay_equals_out


def game(*units: dict[str, Any], turn: Any = None, players: Any = None) -> Any:
    data: dict[str, Any] = {"ruleset": "arcane-legions", "units": list(units),
                            "players": players or {"red": {"order_points": 8}, "blue": {"order_points": 8}}}
    if turn is not None:
        data["turn"] = turn
    return battle_from_mapping(data)[1]


def test_only_the_side_to_act_takes_orders_al_9_1():
    """AL-9.1: with a recorded turn a unit of another side is refused under AL-9.1; without one, no limit."""
    battle = game(A(), T(), turn={"number": 2, "side": "blue"})
    assert AL.side_to_act(battle) == "blue"
    checked = AL.check(battle, Attack("A", "T"))
    assert [(r.clause, r.reason) for r in checked.refusals] == [
        ("AL-9.1", "it is blue's turn (2); only its units take orders, and A is on red's side")]
    close = AL.check(battle, Attack("A", "T", (("order", "close"),)))
    assert [r.clause for r in close.refusals] == ["AL-9.1"]  # every order, not only ranged ones
    assert AL.check(game(A(), T(), turn={"number": 2, "side": "red"}), Attack("A", "T")).is_legal
    assert AL.check(game(A(), T()), Attack("A", "T")).is_legal


def test_a_turn_for_no_player_is_bad_input_al_9_1():
    with pytest.raises(ScenarioError, match=r"turn\.side: 'green' is not a side under players \(red, blue\)"):
        game(A(), T(), turn={"number": 1, "side": "green"})


def test_ending_the_turn_passes_it_in_the_order_of_the_scenario_al_9_1():
    """AL-9.1: red (first to appear), blue, then red again in turn 2; no recorded turn: turn 1 of red."""
    battle = game(A(), T())
    after, log = AL.end_turn(battle)
    assert "recorded no turn" in log[0].text and log[0].clause == "AL-9.1"
    assert after.turn.model_dump() == {"number": 1, "side": "blue", "order": ("red", "blue")}
    again, log = AL.end_turn(after)
    assert again.turn.model_dump() == {"number": 2, "side": "red", "order": ("red", "blue")}
    assert str(log[-1]) == "[AL-9.1] turn 1: blue's turn ends; the turn passes to red, turn 2 begins"


def test_end_of_turn_clears_orders_and_pushes_and_sets_order_points_al_9_2():
    """AL-9.2: the side whose turn ends has ranged_orders_this_turn and pushed cleared and its order points set
    to order_points_per_turn; the other side keeps its marks; without order_points_per_turn the points stay."""
    players = {"red": {"order_points": 1, "order_points_per_turn": 6}, "blue": {"order_points": 2}}
    battle = game(A(ranged_orders_this_turn=2, pushed=True), unit("B", "red", (5, 0), ranged_orders_this_turn=1),
                  T(ranged_orders_this_turn=1, pushed=True), players=players, turn={"number": 1, "side": "red"})
    after, log = AL.end_turn(battle)
    a, b, t = after.unit("A"), after.unit("B"), after.unit("T")
    assert (a.ranged_orders_this_turn, a.pushed, b.ranged_orders_this_turn) == (0, False, 0)
    assert (t.ranged_orders_this_turn, t.pushed) == (1, True)
    assert after.players["red"].order_points == 6 and after.players["blue"].order_points == 2
    texts = [str(x) for x in log]
    assert "[AL-9.2] A: 2 ranged orders this turn cleared; no longer pushed" in texts
    assert "[AL-9.2] red's order points: 1 become 6 (order_points_per_turn)" in texts
    blue_done, log = AL.end_turn(after)
    assert blue_done.players["blue"].order_points == 2 and blue_done.unit("T").ranged_orders_this_turn == 0
    assert "[AL-9.2] blue's order points stay 2 (no order_points_per_turn given)" in [str(x) for x in log]


def test_after_the_end_of_turn_a_new_ranged_order_is_no_push_al_9_2():
    """AL-9.2 with AL-5.2: a second ranged order in a turn is a push; in the side's next turn it is not."""
    battle = game(A(), T(slots=[WHITE] * 4))
    _, after = AL.play(battle, Attack("A", "T"), SeededSource(1))
    assert AL.plan(after, Attack("A", "T")).push
    for _ in range(2):
        after, _ = AL.end_turn(after)
    assert not AL.plan(after, Attack("A", "T")).push


def test_a_logged_turn_replays_to_the_battle_written_by_out_al_9_2(tmp_path):
    """AL-9.1, AL-9.2: orders and ends of turn logged through the command line replay to the same battle."""
    scenario, log, out = logged_turn(tmp_path, "ford.yaml", [
        ("resolve", "-a", "archers", "-t", "orc-band", "--seed", "1"),
        ("resolve", "-a", "spearmen", "-t", "wolf-riders", "--order", "close", "--seed", "2"),
        ("end-turn",), ("end-turn",), ("resolve", "-a", "archers", "-t", "orc-band", "--seed", "3")])
    data = replay_equals_out(tmp_path, scenario, log, out)
    assert data["battle"]["turn"] == {"number": 2, "side": "legion", "order": ["legion", "horde"]}
