"""Dress on the Colors, the turn (DC-9): one volley a turn, the side to act, the end of a side's turn.

Blue F at the origin facing +y, grey T 10 in up the table facing back (as in test_rules).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rangefire.core import Attack, IllegalAttackError, ScenarioError, ScriptedSource
from rangefire.rulesets import battle_from_mapping, find_ruleset
from tests.conftest import unit
from tests.test_turns import logged_turn, replay_equals_out

MISS = ScriptedSource([1, 1, 1, 1])  # four stands, four misses: no save, no discipline roll


def F(**kw):
    return unit("F", "blue", (0, 0), 0, **kw)


def T(d=10, **kw):
    return unit("T", "grey", (kw.pop("x", 0), d), 180, **kw)


def doc_side_to_act(battle):
    return find_ruleset("dress-on-the-colors").side_to_act(battle)


def game(*units, turn=None, **options):
    data = {"ruleset": "dress-on-the-colors", "units": list(units)}
    if turn is not None:
        data["turn"] = turn
    if options:
        data["options"] = options
    return battle_from_mapping(data)[1]


def clauses(doc, battle, attacker="F", target=None):
    return [r.clause for r in doc.check(battle, Attack(attacker, target)).refusals]


def test_a_second_volley_in_a_turn_is_refused_dc_9_1(doc):
    """DC-9.1: the volley marks the unit as having fired; a second one is refused under DC-9.1, by resolve too."""
    battle = game(F(), T())
    assert not battle.unit("F").fired
    _, after = doc.play(battle, Attack("F"), MISS)
    assert after.unit("F").fired and not after.unit("T").fired
    assert clauses(doc, after) == ["DC-9.1"]
    with pytest.raises(IllegalAttackError, match=r"F has already fired a volley this turn .*\[DC-9\.1\]"):
        doc.play(after, Attack("F"), ScriptedSource([1] * 4))
    assert clauses(doc, after, "T") == []  # the other unit has not fired


def test_one_volley_per_turn_is_an_option_dc_9_1(doc):
    """DC-9.1: with ``one_volley_per_turn = false`` the unit is still marked but may fire again."""
    battle = game(F(), T(), one_volley_per_turn=False)
    _, after = doc.play(battle, Attack("F"), ScriptedSource([1] * 4))
    assert after.unit("F").fired and doc.check(after, Attack("F")).is_legal
    assert doc.default_options()["one_volley_per_turn"] is True


def test_only_the_side_to_act_fires_dc_9_2(doc):
    """DC-9.2: with a recorded turn only that side's units fire; without one, nothing limits who fires."""
    battle = game(F(), T(), turn={"number": 3, "side": "grey"})
    assert doc.side_to_act(battle) == "grey"
    checked = doc.check(battle, Attack("F"))
    assert [(r.clause, r.reason) for r in checked.refusals] == [
        ("DC-9.2", "it is grey's turn (3); F is on blue's side")]
    assert doc.check(battle, Attack("T")).is_legal
    free = game(F(), T())
    assert doc.side_to_act(free) is None
    assert doc.check(free, Attack("F")).is_legal and doc.check(free, Attack("T")).is_legal


def test_a_turn_for_no_side_is_bad_input_dc_9_2():
    """DC-9.2: the recorded side must be the side of a unit; the number a whole number from 1."""
    with pytest.raises(ScenarioError, match=r"turn\.side: 'green' is not the side of any unit \(sides: blue, grey\)"):
        game(F(), T(), turn={"number": 1, "side": "green"})
    with pytest.raises(ScenarioError, match=r"turn\.number"):
        game(F(), T(), turn={"number": 0, "side": "blue"})
    with pytest.raises(ScenarioError, match=r"turn\.side: 'green' is not in turn\.order \(blue, grey\) \[DC-9\.4\]"):
        game(F(), T(), turn={"number": 1, "side": "green", "order": ["blue", "grey"]})
    # a turn that names no side yet limits no side [DC-9.2]
    assert doc_side_to_act(game(F(), T(), turn={"number": 1})) is None


def test_ending_a_turn_passes_it_and_grows_the_number_after_the_last_side_dc_9_2(doc):
    """DC-9.2: blue, then grey (the order the sides first appear), then blue in turn 2."""
    battle = game(F(), T(), unit("F2", "blue", (10, 0)), turn={"number": 1, "side": "blue"})
    after, log = doc.end_turn(battle)
    assert after.turn.model_dump() == {"number": 1, "side": "grey", "order": ("blue", "grey")}
    assert log[-1].clause == "DC-9.2" and log[-1].text == "turn 1: blue's turn ends; the turn passes to grey"
    again, log = doc.end_turn(after)
    assert again.turn.model_dump() == {"number": 2, "side": "blue", "order": ("blue", "grey")}
    assert log[-1].text.endswith("the turn passes to blue, turn 2 begins")
    assert battle.turn.side == "blue"  # the old battle is untouched


def test_a_battle_without_a_turn_starts_at_turn_1_of_the_first_side_dc_9_2(doc):
    """DC-9.2: no recorded turn: its first end of turn is turn 1 of the first side, and the log says so."""
    battle = game(T(), F(fired=True), unit("G", "grey", (20, 10), 180, fired=True))
    after, log = doc.end_turn(battle)
    assert log[0].clause == "DC-9.2" and "recorded no turn" in log[0].text and "turn 1 of grey" in log[0].text
    assert after.turn.model_dump() == {"number": 1, "side": "blue", "order": ("grey", "blue")}
    assert not after.unit("G").fired and after.unit("F").fired  # only grey's turn ended


def test_end_of_turn_clears_moved_and_fired_and_resets_the_start_dc_9_3(doc):
    """DC-9.3: the side whose turn ends has moved and fired cleared and its start of turn made the present one;
    a unit that moved has lost its gunsmoke marker (DC-7.1); a stationary unit keeps it; disorder and micro-hits
    stay; the other side is untouched."""
    battle = game(
        F(moved=True, fired=True, gunsmoke=True, start_position=[0, -3], start_facing=45, disordered=True,
          micro_hits=1),
        unit("F2", "blue", (10, 0), 0, fired=True, gunsmoke=True, start_position=[10, 0]),
        T(moved=True, fired=True, start_position=[0, 14]),
        turn={"number": 2, "side": "blue"})
    after, log = doc.end_turn(battle)
    f, f2, t = after.unit("F"), after.unit("F2"), after.unit("T")
    assert (f.moved, f.fired, f.start_position, f.start_facing) == (False, False, (0, 0), 0)
    assert (f.disordered, f.micro_hits) == (True, 1)
    assert f.gunsmoke is False  # it moved: its marker went, and clearing moved must not bring it back
    assert (f2.fired, f2.gunsmoke) == (False, True)  # stationary: its marker stays
    assert (t.moved, t.fired, t.start_position) == (True, True, (0, 14))  # grey's turn has not ended
    texts = [str(x) for x in log]
    assert "[DC-9.3] F: moved and fired cleared; its start of turn is now at (0.00, 0.00), facing 0" in texts
    assert "[DC-7.1] F moved this turn: its gunsmoke marker is gone" in texts
    assert any(x.startswith("[DC-9.3] gunsmoke markers stay until their unit moves (F2)") and "(F)" in x
               for x in texts)


def test_the_new_start_of_turn_ends_enfilade_from_the_old_one_dc_9_3(doc):
    """DC-9.3 with DC-6.1: F began its turn behind T's front line and enfilades; after the end of F's turn its
    start is where it stands now, in front of that line, and the enfilade is gone."""
    t = unit("T", "grey", (0, 10), 90, stand_width=Fraction(1))  # facing +x: its front line is x = 0
    battle = game(unit("F", "blue", (5, 8), 270, start_position=[-6, 8], start_facing=270), t,
                  turn={"number": 1, "side": "blue"})
    assert doc.plan(battle, Attack("F", "T")).enfilade
    after, _ = doc.end_turn(doc.end_turn(battle)[0])
    assert not doc.plan(after, Attack("F", "T")).enfilade


def test_a_logged_turn_replays_to_the_battle_written_by_out_dc_9_3(tmp_path):
    """DC-9.1, DC-9.3: resolve --log twice with --out, end-turn --log, then replay gives the same battle."""
    scenario, log, out = logged_turn(tmp_path, "wheatfield.yaml", [
        ("resolve", "-a", "20th-maine", "--dice", "hit=6,5,4,4,2,1", "--dice", "save=3,5", "--dice",
         "discipline=2,2"),
        ("resolve", "-a", "battery-d", "--seed", "7"), ("end-turn",)])
    replay_equals_out(tmp_path, scenario, log, out)
