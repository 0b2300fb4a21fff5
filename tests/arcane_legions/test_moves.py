"""Arcane Legions, moving (AL-10): a unit of the side to act given a new position (its base centre) and/or
facing, checked on the exact bases and terrain that line of sight uses (AL-1.1, AL-4), measured in steps and
logged; order points untouched.

The set-up: red sortie A at (5, 5) facing up the table (its base 1 x 1: x 4.5 to 5.5, y 4.5 to 5.5); red formation
B at (8, 5) (2 x 1: x 7 to 9, y 4.5 to 5.5); blue sortie T at (5, 10) facing A; blocking rock x 14 to 16, y 4 to 6;
a hindering hedge x 4 to 6, y 7 to 8. It is red's turn.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rangefire.core import IllegalMoveError, Move, RangefireError, UnknownUnitError
from rangefire.rulesets import battle_from_mapping, find_ruleset
from tests.arcane_legions.test_rules import unit
from tests.conftest import square

AL = find_ruleset("arcane-legions")
RED_TURN = {"number": 1, "side": "red"}
TINY = Fraction(1, 10**12)
ROCK = {"id": "rock", "kind": "blocking", "polygon": square(14, 4, 16, 6)}
HEDGE = {"id": "hedge", "kind": "hindering", "polygon": square(4, 7, 6, 8)}


def A(**kw: Any) -> dict[str, Any]:
    return unit("A", "red", kw.pop("at", (5, 5)), kw.pop("facing", 0), **kw)


def B(**kw: Any) -> dict[str, Any]:
    return unit("B", "red", kw.pop("at", (8, 5)), kw.pop("facing", 0), base="formation", **kw)


def T(**kw: Any) -> dict[str, Any]:
    return unit("T", "blue", kw.pop("at", (5, 10)), 180, **kw)


def game(*units: dict[str, Any], turn: Any = RED_TURN, table: Any = None, terrain: Any = (ROCK, HEDGE),
         **options: Any) -> Any:
    data: dict[str, Any] = {"ruleset": "arcane-legions", "units": list(units or (A(), B(), T())),
                            "players": {"red": {"order_points": 5}, "blue": {"order_points": 8}},
                            "terrain": list(terrain)}
    if turn is not None:
        data["turn"] = turn
    if table is not None:
        data["table"] = table
    if options:
        data["options"] = options
    return battle_from_mapping(data)[1]


def move(battle: Any, uid: str = "A", **kw: Any) -> Any:
    for name in ("to", "by"):
        if name in kw:
            kw[name] = tuple(Fraction(v) for v in kw[name])
    for name in ("facing", "turn"):
        if name in kw:
            kw[name] = Fraction(kw[name])
    return AL.check_move(battle, Move(uid, **kw))


def refusals(checked: Any) -> list[tuple[str, str]]:
    assert not checked.is_legal
    return [(r.clause, r.reason) for r in checked.refusals]


def lines(checked: Any) -> list[str]:
    return [str(line) for line in checked.log]


# -- AL-10.1: a new position and/or facing for a unit of the side to act ---------------------------------------
def test_a_move_gives_a_new_position_and_facing_al_10_1():
    """AL-10.1: ``to`` places the base centre, ``facing`` sets the bearing; ``by`` and ``turn`` add to them."""
    checked = move(game(), to=(3, 2), facing=90)
    a = checked.after.unit("A")
    assert (a.position, a.facing) == ((3, 2), 90)
    assert lines(checked)[0] == "[AL-10.1] A moves: position (5, 5) to (3, 2); facing 0° to 90°"
    turned = move(game(A(facing=300)), by=(Fraction(-1, 2), 1), turn=90)
    assert (turned.after.unit("A").position, turned.after.unit("A").facing) == ((Fraction(9, 2), 6), 30)


def test_a_move_of_another_sides_unit_is_refused_al_10_1():
    battle = game()
    assert refusals(move(battle, "T", by=(0, 1))) == [
        ("AL-10.1", "it is red's turn (1); only its units move, and T is on blue's side")]
    with pytest.raises(IllegalMoveError, match=r"T is on blue's side \[AL-10\.1\]"):
        AL.move(battle, Move("T", by=(Fraction(0), Fraction(1))))
    assert move(game(turn={"number": 1, "side": "blue"}), "T", by=(0, 1)).is_legal


def test_before_a_side_to_act_is_recorded_any_side_moves_and_the_log_says_so_al_10_3():
    """AL-10.3 (with AL-9.1): with no side to act recorded nothing limits whose unit moves; the log says so under
    AL-10.3. Once a turn is recorded, only that side's units move (AL-10.1)."""
    battle = game(turn=None)
    assert AL.side_to_act(battle) is None
    checked = move(battle, by=(0, 1))
    assert checked.is_legal and checked.log[0].clause == "AL-10.3"
    assert "nothing limits which side's units move" in checked.log[0].text
    started = AL.end_turn(battle)[0]  # red's turn ended: blue's begins
    assert move(started, "T", by=(0, 1)).is_legal
    assert [c for c, _ in refusals(move(started, by=(0, 1)))] == ["AL-10.1"]


def test_bases_may_touch_but_not_overlap_al_10_1_al_1_1():
    """AL-10.1: A's right side on B's left side (x = 7) touches: legal; 10^-12 further overlaps: refused. Corner
    to corner is touching too. AL-1.1: B, a formation 2 wide and 1 deep, turned a quarter where A stands beside
    it reaches into A: refused, though its centre does not move."""
    battle = game()
    assert move(battle, to=(Fraction(13, 2), 5)).is_legal
    assert refusals(move(battle, to=(Fraction(13, 2) + TINY, 5))) == [
        ("AL-10.1", "A's base would overlap the base of B (bases may touch, not overlap)")]
    assert move(battle, to=(Fraction(13, 2), 6)).is_legal  # corner (7, 5.5) to corner
    beside = game(A(at=(8, Fraction(25, 4))), B(), T())  # A: y 5.75 to 6.75, above B (y up to 5.5)
    pivot = move(beside, "B", turn=90)  # B becomes x 7.5 to 8.5, y 4 to 6
    assert pivot.distance == 0 and [c for c, _ in refusals(pivot)] == ["AL-10.1"]
    assert refusals(move(battle, to=(5, Fraction(19, 2))))[0][1].startswith("A's base would overlap the base of T")


def test_a_base_may_not_enter_blocking_terrain_but_may_touch_it_or_stand_in_hindering_al_10_1():
    """AL-10.1: A's right side on the rock's edge (x = 14) is legal; 10^-12 into it, or wholly inside it, is
    refused; hindering terrain does not stop a move."""
    battle = game()
    assert move(battle, to=(Fraction(27, 2), 5)).is_legal
    for to in ((Fraction(27, 2) + TINY, 5), (15, 5)):
        assert refusals(move(battle, to=to)) == [("AL-10.1", "A's base would lie inside blocking terrain (rock)")]
    assert move(battle, to=(5, Fraction(15, 2))).is_legal  # in the hedge


def test_a_move_leaving_the_table_is_refused_where_the_scenario_gives_it_al_10_1():
    """AL-10.1: on a 30 x 20 step table a sortie fits at (0.5, 0.5); a hair beyond is refused, and so is a
    sortie turned 45 degrees there (its corners reach 0.71 from its centre). Without ``table``, no edge."""
    battle = game(table={"width": 30, "depth": 20})
    assert move(battle, to=(Fraction(1, 2), Fraction(1, 2))).is_legal
    assert move(battle, to=(Fraction(59, 2), Fraction(39, 2))).is_legal
    for to in ((Fraction(1, 2) - TINY, 1), (1, Fraction(1, 2) - TINY), (Fraction(59, 2) + TINY, 1)):
        assert refusals(move(battle, to=to)) == [("AL-10.1", "A's base would leave the table (30 x 20 steps)")], to
    assert refusals(move(battle, to=(Fraction(1, 2), Fraction(1, 2)), facing=45))[0][0] == "AL-10.1"
    assert move(game(), to=(-50, -50)).is_legal


# -- AL-10.2: the distance in steps; no order points ------------------------------------------------------------
def test_the_distance_is_measured_between_base_centres_al_10_2():
    """AL-10.2: by (3, 4) is 5 steps; a turn on the spot is 0 (the centre does not move); by (1, 1) is sqrt(2),
    reported to 10^-12."""
    checked = move(game(), by=(-3, -4))
    assert checked.distance == 5 and "[AL-10.2] moved 5.00 steps between base centres" in lines(checked)
    assert move(game(), turn=45).distance == 0
    assert move(game(), by=(-1, -1)).distance == Fraction(1414213562373, 10**12)


def test_max_move_steps_refuses_a_longer_move_exactly_al_10_2():
    """AL-10.2: with max_move_steps 5 a move of exactly 5 steps is legal and 5 + 10^-12 is refused; the rules set
    no allowance."""
    battle = game(max_move_steps=5)
    assert move(battle, by=(-3, -4)).is_legal
    assert refusals(move(battle, by=(-3, -4 - TINY))) == [
        ("AL-10.2", "A would move 5.000000000001 steps, farther than max_move_steps 5 (a house rule: the rules set "
                    "no allowance)")]
    assert move(game(), by=(-40, 0)).is_legal


def test_a_move_neither_costs_nor_restores_order_points_al_10_2():
    battle = game()
    after, log = AL.move(battle, Move("A", by=(Fraction(-2), Fraction(0))))
    assert after.players == battle.players
    assert str(log[-1]) == "[AL-10.2] a move neither costs nor restores order points (red keeps 5)"
    none_left = game(A(), B(), T()).model_copy(update={"players": {}})
    assert AL.check_move(none_left, Move("A", by=(Fraction(-2), Fraction(0)))).is_legal


# -- the move as a value ----------------------------------------------------------------------------------------
def test_a_move_returns_a_new_battle_and_leaves_the_old_one_al_10_1():
    battle = game()
    before = AL.dump(battle)
    after, log = AL.move(battle, Move("A", to=(Fraction(2), Fraction(2)), facing=Fraction(180)))
    assert AL.dump(battle) == before and after is not battle
    assert [u for u in after.units if u.id != "A"] == [u for u in battle.units if u.id != "A"]
    assert [line.clause for line in log] == ["AL-10.1", "AL-10.2", "AL-10.2"]


def test_the_moved_battle_reads_back_as_it_is():
    battle = game(table={"width": 30, "depth": 20}, max_move_steps="13/2")
    after, _ = AL.move(battle, Move("A", by=(Fraction(-1, 3), Fraction(5, 2)), turn=Fraction(-45, 2)))
    dumped = AL.dump(after)
    assert dumped["table"] == {"width": 30, "depth": 20} and dumped["options"]["max_move_steps"] == 6.5
    assert battle_from_mapping(dumped)[1] == after


# -- bad input --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("given", "says"), [
    ({"to": ["nan", 1]}, "to: must be a number, got 'nan'"),
    ({"to": [1, "1e999999"]}, "to: must be a number of magnitude at most 1000000"),
    ({"turn": "0." + "0" * 40 + "1"}, "turn: must be a number of at most 40"),
    ({"formation": "line"}, "formation: an Arcane Legions move gives a unit a new position and/or facing, no "
                            "formation"),
    ({"run": True, "by": [1, 0]}, "run: an Arcane Legions move"),
    ({}, "a move gives the unit a new position (to or by) and/or facing"),
])
def test_bad_input_is_refused_naming_its_field(given, says):
    with pytest.raises(RangefireError, match=re.escape(says)):
        AL.check_move(game(), Move.from_dict({"unit": "A", **given}))


def test_a_move_built_in_code_is_held_to_the_same_numbers():
    for kw, says in (({"to": (float("nan"), Fraction(0))}, "to: must be a finite number, got nan"),
                     ({"facing": float("inf")}, "facing: must be a finite number, got inf"),
                     ({"by": (Fraction(10**6), Fraction(0))}, "by: the move would leave it at 1e+06, beyond")):
        with pytest.raises(RangefireError, match=re.escape(says)):
            AL.check_move(game(), Move("A", **kw))


def test_an_unknown_unit_is_bad_input():
    with pytest.raises(UnknownUnitError, match=r"unit 'X' is not in this battle \(units: A, B, T\)"):
        AL.check_move(game(), Move("X", by=(Fraction(1), Fraction(0))))


# -- properties -------------------------------------------------------------------------------------------------
QUARTERS = st.integers(-8, 88).map(lambda n: Fraction(n, 4))
FACINGS = st.sampled_from([Fraction(f) for f in (0, 30, 45, 90, 180, 270, Fraction(45, 2))])
WORLD = game(A(facing=30), B(), T(), unit("C", "red", (10, 12), 90, base="formation"),
             table={"width": 20, "depth": 15})


@settings(max_examples=60, deadline=None)
@given(x=QUARTERS, y=QUARTERS, facing=FACINGS)
def test_a_legal_move_changes_no_other_unit_and_moving_back_restores_the_unit_al_10_1(x, y, facing):
    """AL-10.1, AL-10.2: any legal move leaves every other unit, the terrain, the order points and the old battle
    as they were; moving back (``to`` the old centre, ``facing`` the old facing) restores the unit, over the same
    distance."""
    before = AL.dump(WORLD)
    checked = AL.check_move(WORLD, Move("A", to=(x, y), facing=facing))
    assert AL.dump(WORLD) == before
    if not checked.is_legal:
        assert checked.refusals and checked.after is None
        return
    after = checked.after
    assert [u for u in after.units if u.id != "A"] == [u for u in WORLD.units if u.id != "A"]
    assert (after.terrain, after.players, after.turn) == (WORLD.terrain, WORLD.players, WORLD.turn)
    old = WORLD.unit("A")
    back = AL.check_move(after, Move("A", to=old.position, facing=old.facing))
    assert back.is_legal, back.refusals
    assert back.after.unit("A") == old and back.distance == checked.distance
