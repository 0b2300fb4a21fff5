"""Bushido, the turn (BU-8): one ranged attack a model a turn; ending an activation passes ``active_side``;
ending the turn clears the turn's states and attack marks."""

from __future__ import annotations

import pytest

from rangefire.core import Attack, EnteredSource, IllegalAttackError, ScenarioError
from tests.bushido.test_rules import BU, S, T, battle, clauses, model
from tests.test_turns import logged_turn, replay_equals_out

MISS = {"attack": [1, 1, 1], "defense": [2, 2]}


def shoot(b, dice=None, attacker="S", target="T"):
    return BU.play(b, Attack(attacker, target), EnteredSource(dice or MISS))[1]


def test_a_second_ranged_attack_in_a_turn_is_refused_bu_8_1():
    """BU-8.1: the attack marks the model, hit or miss; a second one is refused under BU-8.1, by resolve too."""
    after = shoot(battle(S(), T(12)))
    assert after.unit("S").attacked and not after.unit("T").attacked
    assert clauses(BU.check(after, Attack("S", "T"))) == ["BU-8.1"]
    with pytest.raises(IllegalAttackError, match=r"S has already made a ranged attack this turn .*\[BU-8\.1\]"):
        shoot(after)


def test_one_attack_per_turn_is_an_option_bu_8_1():
    """BU-8.1: with ``one_attack_per_turn = false`` the model is marked but may attack again."""
    after = shoot(battle(S(), T(12), options={"one_attack_per_turn": False}))
    assert after.unit("S").attacked and BU.check(after, Attack("S", "T")).is_legal


def test_the_active_side_limits_who_shoots_bu_8_3_and_bu_8_2():
    """BU-8.3: a model not of ``active_side`` is refused under BU-8.3 (not BU-3.1, which is about RCP); ending
    the activation passes it on [BU-8.2]."""
    b = battle(S(), T(12, rcp=2, weapon={"name": "bow", "short": 6, "medium": 12, "long": 18}),
               active_side="prefecture")
    assert BU.side_to_act(b) == "prefecture"
    assert clauses(BU.check(b, Attack("T", "S"))) == ["BU-8.3"]
    assert [r.reason for r in BU.check(b, Attack("T", "S")).refusals] == [
        "it is prefecture's activation; T is on ito's side: only the active side attacks"]
    passed, log = BU.end_activation(b)
    assert passed.active_side == "ito" and BU.side_to_act(passed) == "ito"
    assert [str(x) for x in log] == ["[BU-8.2] prefecture's activation ends; the activation passes to ito"]
    assert BU.check(passed, Attack("T", "S")).is_legal
    assert clauses(BU.check(passed, Attack("S", "T"))) == ["BU-8.3"]
    back, _ = BU.end_activation(passed)
    assert back.active_side == "prefecture" and back.turn == b.turn  # an activation does not end the turn


def test_ending_an_activation_without_an_active_side_starts_from_the_first_bu_8_2():
    b = battle(S(), T(12))
    passed, log = BU.end_activation(b)
    assert passed.active_side == "ito"
    assert "recorded no active side: prefecture, the first side" in log[0].text


def test_ending_the_turn_clears_states_and_attack_marks_prone_and_wounds_stay_bu_8_2():
    """BU-8.2: aimed, moved, ran, will_move, surprised and the attack mark go from every model, of both sides;
    prone and wounds stay; the number grows by one; the active side is not changed by the turn's end."""
    b = battle(S(states=["aimed", "moved", "prone"], attacked=True),
               T(12, states=["ran", "will_move", "surprised", "prone"], attacked=True,
                 wounds={"boxes": 5, "marked": 2}),
               turn={"number": 4}, active_side="ito")
    after, log = BU.end_turn(b)
    s, t = after.unit("S"), after.unit("T")
    assert (s.states, s.attacked, t.states, t.attacked) == (("prone",), False, ("prone",), False)
    assert t.wounds.marked == 2 and after.turn.number == 5 and after.active_side == "ito"
    texts = [str(x) for x in log]
    assert "[BU-8.2] S: aimed, moved, its attack mark cleared" in texts
    assert "[BU-8.2] T: ran, will_move, surprised, its attack mark cleared" in texts
    assert "[BU-8.2] prone and wounds stay (S prone, T prone, T 2/5 wounds)" in texts
    assert texts[-1] == "[BU-8.2] turn 4 ends; turn 5 begins (ito stays the active side)"
    assert b.unit("S").attacked  # the old battle is untouched


def test_a_battle_without_a_turn_is_read_at_turn_1_with_its_order_bu_8_2_bu_8_4():
    """BU-8.2, BU-8.4: a scenario without a turn is read as turn 1, the order of its sides recorded; its end is
    turn 1's."""
    b = battle(S(), T(12))
    assert b.turn.model_dump() == {"number": 1, "order": ("prefecture", "ito")}
    after, log = BU.end_turn(b)
    assert after.turn.number == 2 and str(log[-1]) == "[BU-8.2] turn 1 ends; turn 2 begins"
    assert after.turn.order == ("prefecture", "ito")


def test_after_the_end_of_turn_the_model_may_attack_again_bu_8_2():
    after = shoot(battle(S(), T(12)))
    assert BU.check(BU.end_turn(after)[0], Attack("S", "T")).is_legal


def test_a_turn_number_is_a_whole_number_from_1():
    with pytest.raises(ScenarioError, match=r"turn\.number"):
        battle(S(), T(12), turn={"number": 0})
    with pytest.raises(ScenarioError, match=r"turn\.side"):
        battle(S(), T(12), turn={"number": 1, "side": "ito"})  # the side to act is active_side


def test_a_logged_turn_replays_to_the_battle_written_by_out_bu_8_1_bu_8_2(tmp_path):
    """BU-8.1, BU-8.2: an attack with a nomination, the end of the activation and of the turn, logged through
    the command line, replay to the battle --out wrote; the log records the activation as such."""
    scenario, log, out = logged_turn(tmp_path, "temple.yaml", [
        ("resolve", "-a", "yoichi", "-t", "takeda", "--redirect-to", "yojimbo", "--seed", "7"),
        ("end-turn", "--activation"), ("end-turn",), ("end-turn", "--activation"),
        ("resolve", "-a", "yoichi", "-t", "takeda", "--seed", "8")])
    records = log.read_text().splitlines()
    assert '"activation": true' in records[1] and '"activation": false' in records[2]
    data = replay_equals_out(tmp_path, scenario, log, out)
    yoichi = next(u for u in data["battle"]["units"] if u["id"] == "yoichi")
    assert yoichi["attacked"] is True and yoichi["states"] == [] and data["battle"]["turn"] == {
        "number": 2, "order": ["prefecture", "ito"]}


def test_activations_pass_in_the_order_the_sides_first_appear_bu_8_2():
    """BU-8.2: ito's model comes first in the file, so ito is the first side and prefecture follows it."""
    b = battle(model("X", "ito", (0, 20)), S(), T(12))
    assert BU.end_activation(b)[0].active_side == "prefecture"
