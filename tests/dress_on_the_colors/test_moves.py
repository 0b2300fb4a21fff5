"""Dress on the Colors, moving (DC-10): a unit of the side to act given a new position, facing and/or formation,
checked on its stands' exact footprints, measured and logged, with what the move does to gunsmoke (DC-7.1) and the
start of turn (DC-6.1, DC-9.3).

The set-up: blue F (4 stands in line, 6 in wide and 1 deep) with its front edge's midpoint at (10, 10), facing up
the table (its stands x 7 to 13, y 9 to 10); blue G the same at (20, 10) (x 17 to 23); grey T at (10, 30) facing
down the table (x 7 to 13, y 30 to 31). It is blue's turn, on a 72 x 48 in table.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rangefire.core import Attack, IllegalMoveError, Move, RangefireError, ScriptedSource, UnknownUnitError
from rangefire.rulesets import battle_from_mapping, find_ruleset
from tests.conftest import square, unit

DOC = find_ruleset("dress-on-the-colors")
BLUE_TURN = {"number": 1, "side": "blue"}
TINY = Fraction(1, 10**12)
MISS = ScriptedSource([1, 1, 1, 1])  # four stands, four misses: no save, no discipline roll


def F(**kw: Any) -> dict[str, Any]:
    return unit("F", "blue", kw.pop("at", (10, 10)), kw.pop("facing", 0), **kw)


def G(**kw: Any) -> dict[str, Any]:
    return unit("G", "blue", kw.pop("at", (20, 10)), 0, **kw)


def T(**kw: Any) -> dict[str, Any]:
    return unit("T", "grey", kw.pop("at", (10, 30)), kw.pop("facing", 180), **kw)


def game(*units: dict[str, Any], turn: Any = BLUE_TURN, table: Any = None, terrain: Any = (),
         **options: Any) -> Any:
    data: dict[str, Any] = {"ruleset": "dress-on-the-colors", "units": list(units or (F(), G(), T())),
                            "terrain": list(terrain)}
    if turn is not None:
        data["turn"] = turn
    if table is not None:
        data["table"] = table
    if options:
        data["options"] = options
    return battle_from_mapping(data)[1]


def move(battle: Any, uid: str = "F", **kw: Any) -> Any:
    """The check of a move, every number given as a Fraction."""
    for name in ("to", "by"):
        if name in kw:
            kw[name] = tuple(Fraction(v) for v in kw[name])
    for name in ("facing", "turn"):
        if name in kw:
            kw[name] = Fraction(kw[name])
    return DOC.check_move(battle, Move(uid, **kw))


def refusals(checked: Any) -> list[tuple[str, str]]:
    assert not checked.is_legal
    return [(r.clause, r.reason) for r in checked.refusals]


def lines(checked: Any) -> list[str]:
    return [str(line) for line in checked.log]


# -- DC-10.1: a new position, facing and/or formation for a unit of the side to act ----------------------------
def test_a_move_gives_a_new_position_facing_and_formation_dc_10_1():
    """DC-10.1: ``to`` places the front edge's midpoint, ``facing`` sets the bearing, ``formation`` the formation;
    the log says each change."""
    checked = move(game(), to=(12, 14), facing=90, formation="skirmish")
    assert checked.is_legal, checked.refusals
    f = checked.after.unit("F")
    assert (f.position, f.facing, f.formation) == ((12, 14), 90, "skirmish")
    assert lines(checked)[0] == ("[DC-10.1] F moves: position (10, 10) to (12, 14); facing 0° to 90°; formation "
                                 "line to skirmish")


def test_by_moves_from_where_the_unit_stands_and_turn_adds_to_its_facing_dc_10_1():
    """DC-10.1: ``by`` is an offset from the present position, ``turn`` degrees added clockwise (kept in 0 to 360)."""
    checked = move(game(F(facing=350)), by=(Fraction(1, 2), -2), turn=20)
    f = checked.after.unit("F")
    assert (f.position, f.facing) == ((Fraction(21, 2), 8), 10)
    assert lines(checked)[0] == "[DC-10.1] F moves: position (10, 10) to (10.5, 8); facing 350° to 10°"


def test_a_move_marks_the_unit_moved_and_removes_its_gunsmoke_marker_dc_10_1_dc_7_1():
    """DC-10.1: the moved unit is marked ``moved`` and its gunsmoke marker goes; its next volley places no
    gunsmoke (DC-7.1), where the same volley unmoved would."""
    battle = game(F(gunsmoke=True), G(), T())
    checked = move(battle, by=(0, 1))
    f = checked.after.unit("F")
    assert f.moved and not f.gunsmoke
    assert "[DC-10.1] F's gunsmoke marker removed" in lines(checked)
    assert "[DC-7.1] no gunsmoke from F's next volley: it moved" in lines(checked)
    _, fired = DOC.play(checked.after, Attack("F"), MISS)
    assert not fired.unit("F").gunsmoke  # it moved: no marker [DC-7.1]
    _, unmoved = DOC.play(battle, Attack("F"), ScriptedSource([1, 1, 1, 1]))
    assert unmoved.unit("F").gunsmoke  # the same volley unmoved places one
    again = move(checked.after, by=(0, 1))  # moved already: no marker to remove
    assert not any("gunsmoke marker removed" in line for line in lines(again))


def test_the_start_of_turn_stays_until_the_turn_ends_dc_10_1_dc_6_1_dc_9_3():
    """DC-10.1: F begins its turn behind T's front baseline (enfilade, DC-6.1) and moves out in front of it: the
    volley is still an enfilade, judged where F began the turn; when the turn has gone round (DC-9.3) its start of
    turn is where it stands, and the enfilade is gone."""
    battle = game(F(at=(20, 34), facing=270), T())
    assert DOC.plan(battle, Attack("F")).enfilade
    checked = move(battle, to=(25, 25))
    f = checked.after.unit("F")
    assert (f.start_position, f.start_facing, f.position) == ((20, 34), 270, (25, 25))
    assert lines(checked)[-1] == ("[DC-10.1] F's start of turn stays at (20, 34), facing 270°, until its turn ends "
                                  "(DC-6.1, DC-9.3)")
    assert DOC.plan(checked.after, Attack("F")).enfilade
    assert not DOC.plan(game(F(at=(25, 25), facing=270), T()), Attack("F")).enfilade  # placed there: none
    twice = DOC.move(checked.after, Move("F", by=(Fraction(0), Fraction(-1))))[0]
    assert twice.unit("F").start_position == (20, 34)  # a second move keeps it too
    ended = DOC.end_turn(DOC.end_turn(checked.after)[0])[0]
    assert ended.unit("F").start_position == (25, 25) and not DOC.plan(ended, Attack("F")).enfilade


def test_a_move_of_another_sides_unit_is_refused_dc_10_1():
    """DC-10.1: in blue's turn grey's T may not move; by ``move`` the refusal is raised with its clause."""
    battle = game()
    assert refusals(move(battle, "T", by=(0, 1))) == [
        ("DC-10.1", "it is blue's turn (1); only its units move, and T is on grey's side")]
    with pytest.raises(IllegalMoveError, match=r"T is on grey's side \[DC-10\.1\]"):
        DOC.move(battle, Move("T", by=(Fraction(0), Fraction(1))))
    assert move(game(turn={"number": 1, "side": "grey"}), "T", by=(0, 1)).is_legal


def test_before_a_side_to_act_is_recorded_any_side_moves_and_the_log_says_so_dc_10_4():
    """DC-10.4 (with DC-9.2): with no side to act recorded nothing limits whose unit moves, as nothing limits who
    fires; the log says so under DC-10.4. Once a turn is recorded, only that side's units move (DC-10.1)."""
    battle = game(turn=None)
    assert DOC.side_to_act(battle) is None
    for uid in ("F", "T"):
        checked = move(battle, uid, by=(0, 1))
        assert checked.is_legal and checked.log[0].clause == "DC-10.4"
        assert "no side to act is recorded: nothing limits which side's units move" in checked.log[0].text
    started = DOC.end_turn(battle)[0]
    assert move(started, "T", by=(0, 1)).is_legal
    assert [c for c, _ in refusals(move(started, "F", by=(0, 1)))] == ["DC-10.1"]
    assert all(line.clause != "DC-10.4" for line in move(started, "T", by=(0, 1)).log)


# -- DC-10.2: stands may touch, not overlap; engaged units; terrain; the table's edge -----------------------
def test_a_move_ending_touching_another_stand_is_legal_and_a_hair_further_is_refused_dc_10_2():
    """DC-10.2: F's right edge on G's left edge (x = 17) touches: legal; 10^-12 in further overlaps: refused."""
    battle = game()
    assert move(battle, to=(14, 10)).is_legal
    assert refusals(move(battle, to=(14 + TINY, 10))) == [
        ("DC-10.2", "F's stands would overlap the stands of G (stands may touch, not overlap)")]
    assert move(battle, to=(10, 30)).is_legal  # front to front with T (an enemy): touching
    assert refusals(move(battle, to=(10, 30 + TINY)))[0][0] == "DC-10.2"


def test_overlap_is_judged_stand_by_stand_dc_10_2():
    """DC-10.2: a skirmish line's stands stand one stand width apart; a single stand moved into the gap between
    two of them touches both and overlaps none: legal. The outline round the skirmishers is not a stand."""
    skirmish = F(formation="skirmish")  # stands 1.5 wide at x 4.75, 7.75, 10.75, 13.75 (each to +1.5)
    lone = unit("S", "blue", (0, 40), 0, stands=1)
    battle = game(skirmish, lone, T())
    assert move(battle, "S", to=(10, 10)).is_legal  # x 9.25 to 10.75: exactly the gap
    assert refusals(move(battle, "S", to=(Fraction(37, 4), 10)))[0][0] == "DC-10.2"  # x 8.5 to 10
    assert refusals(move(battle, "S", to=(10 + TINY, 10)))[0][0] == "DC-10.2"


def test_an_engaged_unit_does_not_move_unless_the_option_allows_it_dc_10_2():
    """DC-10.2: an engaged unit's move is refused; with ``engaged_may_move = true`` it moves, the log naming the
    house rule."""
    assert refusals(move(game(F(engaged=True), G(), T()), by=(0, -1))) == [
        ("DC-10.2", "F is engaged in melee: an engaged unit does not move (engaged_may_move = false)")]
    checked = move(game(F(engaged=True), G(), T(), engaged_may_move=True), by=(0, -1))
    assert checked.is_legal
    assert ("[DC-10.2] F is engaged in melee and moves: engaged_may_move = true (house rule; the rules say false)"
            in lines(checked))


def test_terrain_does_not_stop_a_move_dc_10_2():
    """DC-10.2: F moves into heavy woods and onto a gunsmoke marker: legal; the log names the woods."""
    woods = {"id": "woods", "kind": "heavy", "polygon": square(0, 0, 30, 5)}
    smoke = {"id": "smoke", "kind": "gunsmoke", "polygon": square(0, 5, 30, 8)}
    checked = move(game(terrain=(woods, smoke)), to=(10, Fraction(11, 2)))  # stands y 4.5 to 5.5
    assert checked.is_legal
    assert "[DC-10.2] F's stands stand in woods: terrain does not stop a move" in lines(checked)


def test_a_move_leaving_the_table_is_refused_where_the_scenario_gives_it_dc_10_2():
    """DC-10.2: on a 72 x 48 in table F's stands (6 x 1) fit from (3, 1) with two edges on the table's edges; a
    hair beyond either edge is refused; at 45 degrees a corner leaves it. Without ``table`` there is no edge."""
    table = {"width": 72, "depth": 48}
    battle = game(table=table)
    assert move(battle, to=(3, 1)).is_legal
    assert move(battle, to=(69, 48)).is_legal  # the far corner
    for to in ((3 - TINY, 1), (3, 1 - TINY), (69 + TINY, 48), (69, 48 + TINY)):
        assert refusals(move(battle, to=to)) == [("DC-10.2", "F's stands would leave the table (72 x 48 in)")], to
    assert refusals(move(battle, to=(3, 1), facing=45))[0][0] == "DC-10.2"
    assert move(game(), to=(-100, -100)).is_legal


# -- DC-10.3: the distance moved -------------------------------------------------------------------------------
def test_the_distance_is_the_farthest_any_corner_travelled_dc_10_3():
    """DC-10.3: by (3, 4) every corner moves 5 in; a single stand (1.5 x 1) turned about face about its front
    midpoint does not move that point, but its back corners go from (+-0.75, -1) to (-+0.75, 1): 2.5 in; a line of
    4 forming march column: its right stand (x 1.5 to 3, y -1 to 0) becomes the last (x -0.75 to 0.75, y -4 to
    -3), each corner 2.25 across and 3 back: 3.75 in."""
    checked = move(game(), by=(3, 4))
    assert checked.distance == 5 and "[DC-10.3] moved 5.00 in, the farthest any corner of its stands travelled" \
        in lines(checked)
    assert move(game(F(stands=1), G(), T()), turn=180).distance == Fraction(5, 2)
    assert move(game(), formation="march-column").distance == Fraction(15, 4)
    assert move(game(), facing=0).distance == 0  # as it stood: nothing travelled
    pivot = move(game(), turn=90)  # the back corners (+-3, -1) of a 6 x 1 line turned about (0, 0): sqrt(20)
    assert pivot.distance == Fraction(4472135954999, 10**12)  # irrational: rounded down to 10^-12 in


def test_max_move_refuses_a_longer_move_exactly_dc_10_3():
    """DC-10.3: with max_move 5 a move of exactly 5 in is legal and 5 + 10^-12 is refused, saying the distance;
    the rules set no allowance (a move across the table is legal)."""
    battle = game(max_move=5)
    checked = move(battle, by=(3, 4))
    assert checked.is_legal and "[DC-10.3] moved 5.00 in, the farthest any corner of its stands travelled " \
        "(max_move 5 in)" in lines(checked)
    refused = move(battle, by=(3, 4 + TINY))
    assert refusals(refused) == [("DC-10.3", "F would move 5.000000000001 in, farther than max_move 5 in (a house "
                                             "rule: the rules set no allowance)")]
    assert refused.distance == 5 + TINY  # sqrt(25 + 8 * 10^-12 + 10^-24), rounded up: beyond 5, as it is
    assert refusals(move(battle, by=(0, -6)))[0][1].startswith("F would move 6.00 in, farther than max_move 5 in")
    assert move(battle, turn=90).is_legal  # sqrt(20) = 4.47 in
    assert move(game(), by=(60, 0)).is_legal


def test_a_refused_move_lists_every_clause_it_breaks_dc_10_1_dc_10_2_dc_10_3():
    battle = game(F(), G(), T(engaged=True), max_move=1, table={"width": 72, "depth": 48})
    clauses = [c for c, _ in refusals(move(battle, "T", to=(20, Fraction(19, 2))))]  # onto G
    assert clauses == ["DC-10.1", "DC-10.2", "DC-10.2", "DC-10.3"]


# -- the move as a value ----------------------------------------------------------------------------------------
def test_a_move_returns_a_new_battle_and_leaves_the_old_one_dc_10_1():
    battle = game(F(gunsmoke=True), G(), T())
    before = DOC.dump(battle)
    after, log = DOC.move(battle, Move("F", to=(Fraction(12), Fraction(14)), facing=Fraction(90)))
    assert DOC.dump(battle) == before and after is not battle
    assert [u for u in after.units if u.id != "F"] == [u for u in battle.units if u.id != "F"]
    assert (after.terrain, after.options, after.turn, after.table) == (battle.terrain, battle.options, battle.turn,
                                                                       battle.table)
    assert [line.clause for line in log] == ["DC-10.1", "DC-10.3", "DC-7.1", "DC-10.1", "DC-10.1"]


def test_the_moved_battle_reads_back_as_it_is(tmp_path):
    """The moved battle's dump (its table, moved mark, start of turn, a third of an inch) reads back equal."""
    battle = game(F(gunsmoke=True), G(), T(), table={"width": 72, "depth": 48}, max_move="15/2")
    after, _ = DOC.move(battle, Move("F", by=(Fraction(1, 3), Fraction(5, 2)), turn=Fraction(-45, 2),
                                     formation="march-column"))
    dumped = DOC.dump(after)
    assert dumped["table"] == {"width": 72, "depth": 48} and dumped["options"]["max_move"] == 7.5
    assert battle_from_mapping(dumped)[1] == after
    assert "table" not in DOC.dump(game())  # none given, none written


def test_the_check_as_json_says_the_distance_and_the_refusals():
    data = move(game(max_move=1), by=(3, 4)).to_dict()
    assert (data["legal"], data["distance"], data["log"]) == (False, 5, [])
    assert data["refusals"][0]["clause"] == "DC-10.3"


# -- bad input --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("given", "says"), [
    ({"to": ["nan", 1]}, "to: must be a number, got 'nan'"),
    ({"to": [float("nan"), 1]}, "to: must be a finite number, got nan"),
    ({"to": ["1e999999", 1]}, "to: must be a number of magnitude at most 1000000"),
    ({"by": [1, "0." + "0" * 40 + "1"]}, "by: must be a number of at most 40"),
    ({"facing": "1e-41"}, "facing: must be a number of at most 40 decimal places"),
])
def test_a_bad_number_in_a_move_is_refused_naming_its_field(given, says):
    with pytest.raises(RangefireError, match=re.escape(says)):
        DOC.check_move(game(), Move.from_dict({"unit": "F", **given}))


@pytest.mark.parametrize(("kw", "says"), [
    ({"to": (float("nan"), Fraction(1))}, "to: must be a finite number, got nan"),
    ({"to": (Fraction(10**7), Fraction(1))}, "to: must be a number of magnitude at most 1000000"),
    ({"by": (Fraction(1, 10**41), Fraction(0))}, "by: must be a number of at most 40 decimal places"),
    ({"to": (Fraction(999_999), 0)}, None),  # the front edge there: legal without a table
    ({"by": (Fraction(999_995), Fraction(0))}, "by: the move would leave it at 1e\\+06, beyond the 1000000"),
    ({"to": (4 + Fraction(1, 10**40), Fraction(0))}, "to: the move would leave it at 4.0000000000000000000000000000000"
                                                     "000000001, more digits than a battle file keeps"),
    ({"formation": "wedge"}, "formation: must be line, march-column or skirmish, got 'wedge'"),
    ({"run": True, "by": (Fraction(1), Fraction(0))}, "run: a Dress on the Colors move has no run"),
    ({"mission": "m"}, "mission: a Dress on the Colors move has no mission"),
    ({}, "a move gives the unit a new position"),
])
def test_a_move_built_in_code_is_held_to_the_same_numbers(kw, says):
    """A Move built in code (floats, huge Fractions) is checked as a request's numbers are; a moved unit must be
    writable in a battle file; what the game has no use for is named."""
    if says is None:
        assert DOC.check_move(game(), Move("F", **kw)).is_legal
        return
    with pytest.raises(RangefireError, match=says):
        DOC.check_move(game(), Move("F", **kw))


def test_an_unknown_unit_is_bad_input():
    with pytest.raises(UnknownUnitError, match=r"unit 'X' is not in this battle \(units: F, G, T\)"):
        DOC.check_move(game(), Move("X", by=(Fraction(1), Fraction(0))))


# -- properties -------------------------------------------------------------------------------------------------
QUARTERS = st.integers(-20, 200).map(lambda n: Fraction(n, 4))
FACINGS = st.sampled_from([Fraction(f) for f in (0, 30, 45, 90, 135, 180, 270, Fraction(719, 2))])
FORMATIONS = st.sampled_from([None, "line", "march-column", "skirmish"])
WORLD = game(F(gunsmoke=True, facing=Fraction(45, 2)), G(formation="skirmish"), T(),
             unit("C", "blue", (30, 20), 90, formation="march-column", stands=3),
             table={"width": 50, "depth": 40},
             terrain=({"id": "woods", "kind": "light", "polygon": square(0, 12, 20, 20)},))


@settings(max_examples=60, deadline=None)
@given(x=QUARTERS, y=QUARTERS, facing=FACINGS, formation=FORMATIONS)
def test_a_legal_move_changes_no_other_unit_and_moving_back_restores_the_unit_dc_10_1(x, y, facing, formation):
    """DC-10.1, DC-10.3: any legal move leaves every other unit, the terrain and the turn as they were, and the
    old battle untouched; moving back (``to`` the old position, ``facing`` the old facing and formation) gives
    the old place, over the same distance, and keeps the start of turn."""
    before = DOC.dump(WORLD)
    checked = DOC.check_move(WORLD, Move("F", to=(x, y), facing=facing, formation=formation))
    assert DOC.dump(WORLD) == before
    if not checked.is_legal:
        assert checked.refusals and checked.after is None
        return
    after = checked.after
    assert [u for u in after.units if u.id != "F"] == [u for u in WORLD.units if u.id != "F"]
    assert (after.terrain, after.turn, after.options, after.table) == (WORLD.terrain, WORLD.turn, WORLD.options,
                                                                       WORLD.table)
    old = WORLD.unit("F")
    back = DOC.check_move(after, Move("F", to=old.position, facing=old.facing, formation=old.formation))
    assert back.is_legal, back.refusals
    f = back.after.unit("F")
    assert (f.position, f.facing, f.formation) == (old.position, old.facing, old.formation)
    assert (f.start_position, f.start_facing) == (old.position, old.facing)
    assert back.distance == checked.distance
