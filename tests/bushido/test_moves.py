"""Bushido, moving and changing the table (BU-9.1, BU-9.2, with BU-9.3 before any activation is recorded): a move
gives a model of the active side a new position and marks it ``moved`` or ``ran`` [BU-5.3]; its player sets and
clears ``will_move``, ``aimed`` and ``prone``; a move leaving the base overlapping another base [BU-2.3], inside
solid terrain, off the table or beyond ``max_move`` is refused.

The set-up of tests/bushido/test_rules.py: S (prefecture, 30 mm, radius 75/127 in) at the origin, T (ito, 40 mm,
radius 100/127 in) up the table.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rangefire.core import Attack, RangefireError, ScenarioError, UnknownUnitError
from rangefire.core.moves import IllegalMoveError, Mark, Move
from rangefire.core.moves import square_root as root
from rangefire.core.options import house_rules, option_rows
from rangefire.geometry import Point, Polygon
from rangefire.geometry.discs import Disc
from rangefire.rulesets import battle_from_mapping
from rangefire.rulesets.bushido.moves import overlaps_polygon
from rangefire.rulesets.bushido.scenario import Options
from tests.bushido.test_rules import BU, R30, R40, S, T, battle, box, model

HAIR = Fraction(1, 10**12)
TOUCH = R30 + R40  # centre to centre of S (30 mm) and a 40 mm base whose edges touch


def refusals(checked: Any) -> list[tuple[str, str]]:
    return [(r.clause, r.reason) for r in checked.refusals]


def clauses(checked: Any) -> list[str]:
    return [r.clause for r in checked.refusals]


def moved(b: Any, uid: str = "S", **kw: Any) -> Any:
    return BU.move(b, Move(uid, **kw))[0]


def xy(x: Any, y: Any) -> tuple[Fraction, Fraction]:
    return Fraction(x), Fraction(y)


# -- BU-9.1: a new position, marked moved or ran ---------------------------------------------------------------
def test_a_move_gives_a_new_position_and_marks_the_model_moved_bu_9_1():
    """BU-9.1 with BU-5.3: ``to`` or ``by`` gives S a new position; S is marked ``moved``; the distance (centre to
    centre) is reported and logged; the old battle is untouched and T is not changed."""
    b = battle(S(), T(12), active_side="prefecture")
    checked = BU.check_move(b, Move("S", by=xy(3, 4)))
    assert checked.is_legal and checked.distance == 5 and BU.move_unit == "in"
    after = checked.after
    assert after.unit("S").position == xy(3, 4) and after.unit("S").states == ("moved",)
    assert [str(line) for line in checked.log] == [
        "[BU-9.1] S moved 5.00 in from (0.00, 0.00) to (3.00, 4.00): marked moved [BU-5.3]"]
    assert b.unit("S").position == xy(0, 0) and b.unit("S").states == ()
    assert after.unit("T") == b.unit("T") and after.terrain == b.terrain and after.active_side == b.active_side
    again, log = BU.move(after, Move("S", to=xy(3, 1)))
    assert again.unit("S").position == xy(3, 1) and again.unit("S").states == ("moved",)
    assert log[-1].text.endswith("to (3.00, 1.00): already marked moved [BU-5.3]")
    assert checked.to_dict()["distance"] == 5 and checked.to_dict()["legal"] is True
    for still in (Move("S", by=xy(0, 0)), Move("S", to=xy(3, 1))):
        assert refusals(BU.check_move(again, still)) == [
            ("BU-9.1", "S stands at (3.00, 1.00) already: a move gives it a new position")]


def test_a_run_marks_the_model_ran_and_the_attack_takes_both_modifiers_bu_9_1():
    """BU-9.1: a move declared a run marks ``ran`` (not ``moved``); a model that ran and moved takes -2 attack dice
    [BU-5.3, BU-5.5]: the moves feed the attack's modifiers."""
    b = battle(S(), T(12), active_side="prefecture")
    ran, log = BU.move(b, Move("S", by=xy(0, -2), run=True))
    assert ran.unit("S").states == ("ran",) and "S ran 2.00 in" in log[-1].text and "marked ran" in log[-1].text
    pools = [BU.check(x, Attack("S", "T")).plan.attack_pool for x in (b, ran, moved(ran, by=xy(0, 1)))]
    assert pools == [3, 2, 1]


def test_a_move_or_state_change_of_another_sides_model_is_refused_bu_9_1():
    """BU-9.1 (out of its side's activation, BU-8.3): T, of ito, cannot be moved nor marked in prefecture's
    activation; once the activation passes it can, and S cannot."""
    b = battle(S(), T(12), active_side="prefecture")
    expected = ("BU-9.1", "it is prefecture's activation [BU-8.3]; T is on ito's side: only the active side may "
                          "move its models")
    assert refusals(BU.check_move(b, Move("T", by=xy(1, 0)))) == [expected]
    with pytest.raises(IllegalMoveError, match=r"only the active side may move its models \[BU-9\.1\]"):
        BU.move(b, Move("T", by=xy(1, 0)))
    for state in BU.markable:
        assert clauses(BU.check_mark(b, Mark("T", state))) == ["BU-9.1"]
    assert "may clear prone on its models" in BU.check_mark(b, Mark("T", "prone", on=False)).refusals[0].reason
    passed, _ = BU.end_activation(b)
    assert BU.check_move(passed, Move("T", by=xy(1, 0))).is_legal
    assert clauses(BU.check_move(passed, Move("S", by=xy(1, 0)))) == ["BU-9.1"]


def test_with_no_active_side_recorded_any_sides_model_moves_bu_9_3():
    """BU-9.3: before an activation is recorded nothing limits whose model moves (as for attacks, BU-8.3); the log
    says so; the move is still a move [BU-9.1]."""
    b = battle(S(), T(12))
    after, log = BU.move(b, Move("T", by=xy(1, 0)))
    assert after.unit("T").states == ("moved",)
    assert str(log[0]) == ("[BU-9.3] no active side is recorded: nothing limits which side's models move or change "
                           "state (T is one of ito's)")
    marked, log = BU.mark(b, Mark("T", "prone"))
    assert marked.unit("T").states == ("prone",) and log[0].clause == "BU-9.3"


# -- BU-9.1: will_move, aimed and prone ------------------------------------------------------------------------
def test_will_move_is_declared_before_the_attack_and_costs_an_attack_die_bu_9_1():
    """BU-9.1: ``will_move`` may be declared (or taken back) before the model's attack, not after it; declared, the
    attack takes the moved modifier [BU-5.3]."""
    b = battle(S(), T(12), active_side="prefecture")
    declared, log = BU.mark(b, Mark("S", "will_move"))
    assert declared.unit("S").states == ("will_move",)
    assert str(log[-1]) == ("[BU-9.1] S declares will_move (it will move this activation: the attacker's moved "
                            "modifier [BU-5.3])")
    assert BU.check(declared, Attack("S", "T")).plan.attack_pool == 2
    assert BU.mark(declared, Mark("S", "will_move", on=False))[0] == b
    attacked = battle(S(attacked=True), T(12), active_side="prefecture")
    for on in (True, False):
        assert refusals(BU.check_mark(attacked, Mark("S", "will_move", on=on))) == [
            ("BU-9.1", "S has made its ranged attack this turn: will_move is declared before the attack")]
    assert BU.check_mark(attacked, Mark("S", "aimed")).is_legal  # aimed and prone are not tied to the attack


@pytest.mark.parametrize(("state", "effect"), [("aimed", "the attacker's aimed modifier [BU-5.3]"),
                                               ("prone", "the defender's prone modifier [BU-5.4]")])
def test_aimed_and_prone_are_set_and_cleared_by_the_models_player_bu_9_1(state, effect):
    """BU-9.1: the player sets and clears ``aimed`` and ``prone`` on its own models in its activation; the battle
    after clearing is the battle before setting."""
    b = battle(S(), T(12), active_side="prefecture")
    on, log = BU.mark(b, Mark("S", state))
    assert on.unit("S").states == (state,) and str(log[-1]) == f"[BU-9.1] S is marked {state} ({effect})"
    off, log = BU.mark(on, Mark("S", state, on=False))
    assert off == b and str(log[-1]) == f"[BU-9.1] S's {state} is cleared ({effect})"
    same, log = BU.mark(on, Mark("S", state))
    assert same == on and str(log[-1]) == f"[BU-9.1] S is already {state}: nothing changes"


def test_the_marks_change_the_attack_as_their_clauses_say_bu_9_1():
    """BU-9.1 feeding BU-5.3 and BU-5.4: aimed S rolls one more die; prone T one fewer defense die."""
    b = battle(S(), T(12), active_side="prefecture")
    aimed = BU.mark(b, Mark("S", "aimed"))[0]
    assert BU.check(aimed, Attack("S", "T")).plan.attack_pool == 4
    prone = battle(S(), T(12), active_side="ito")
    prone = BU.end_activation(BU.mark(prone, Mark("T", "prone"))[0])[0]
    assert BU.check(prone, Attack("S", "T")).plan.defense_pool == BU.check(b, Attack("S", "T")).plan.defense_pool - 1


def test_only_the_states_a_player_sets_are_markable_bu_9_1():
    """BU-9.1: will_move, aimed and prone; moved and ran come with a move, surprised from the rules: asking to set
    them, or an unknown state, is bad input that names the states."""
    assert BU.markable == ("will_move", "aimed", "prone")
    b = battle(S(), T(12))
    for state in ("moved", "ran", "surprised", "hidden"):
        with pytest.raises(RangefireError, match=r"is not a state a player sets in bushido \(states: will_move, "
                                                 r"aimed, prone\)"):
            BU.check_mark(b, Mark("S", state))


# -- BU-9.2: other bases, solid terrain, the table, max_move ---------------------------------------------------
def test_bases_exactly_touching_are_legal_a_hair_inside_is_refused_bu_9_2():
    """BU-9.2 with BU-2.3: S may end touching T (edge distance 0), straight or on a diagonal (3-4-5), not a hair
    closer; the refusal names T."""
    b = battle(S(), T(12, x=20))
    t = b.unit("T").position
    assert BU.check_move(b, Move("S", to=(t[0] - TOUCH, t[1]))).is_legal
    k = TOUCH / 5
    assert BU.check_move(b, Move("S", to=(t[0] - 3 * k, t[1] - 4 * k))).is_legal
    inside = (t[0] - TOUCH + HAIR, t[1])
    assert refusals(BU.check_move(b, Move("S", to=inside))) == [
        ("BU-9.2", "at (18.62, 13.38) S's base would overlap the base of T; bases may touch but not overlap "
                   "[BU-2.3]")]
    assert clauses(BU.check_move(b, Move("S", to=(t[0] - 3 * k, t[1] - 4 * k + HAIR)))) == ["BU-9.2"]
    assert clauses(BU.check_move(b, Move("S", to=t))) == ["BU-9.2"]


def test_a_move_into_solid_terrain_is_refused_touching_its_edge_is_not_bu_9_2():
    """BU-9.2: a base that shares area with solid terrain is refused (its centre outside, inside or on the edge);
    a base touching the edge is legal; obscuring and clear terrain do not stop a move."""
    wall = box("wall", "solid", 10, 0, 12, 4)
    b = battle(S(), T(12), terrain=(wall, box("mist", "obscuring", 0, -10, 4, -6),
                                    box("field", "clear", 4, -10, 8, -6)))
    assert BU.check_move(b, Move("S", to=(10 - R30, Fraction(2)))).is_legal
    assert BU.check_move(b, Move("S", to=(12 + R30, Fraction(-1)))).is_legal
    corner = R30 / 5  # touching the corner (12, 4) on a 3-4-5 diagonal
    assert BU.check_move(b, Move("S", to=(12 + 3 * corner, 4 + 4 * corner))).is_legal
    for to in ((10 - R30 + HAIR, Fraction(2)), (Fraction(11), Fraction(2)), (Fraction(10), Fraction(2)),
               (12 + 3 * corner - HAIR, 4 + 4 * corner)):
        assert refusals(BU.check_move(b, Move("S", to=to))) == [
            ("BU-9.2", f"at ({float(to[0]):.2f}, {float(to[1]):.2f}) S's base would stand inside solid wall")]
    assert BU.check_move(b, Move("S", to=xy(2, -8))).is_legal and BU.check_move(b, Move("S", to=xy(6, -8))).is_legal


def test_overlaps_polygon_is_exact():
    square = Polygon.of([(0, 0), (2, 0), (2, 2), (0, 2)])
    r = Fraction(1, 3)
    assert not overlaps_polygon(Disc(Point(-r, Fraction(1)), r), square)
    assert overlaps_polygon(Disc(Point(-r + HAIR, Fraction(1)), r), square)
    assert overlaps_polygon(Disc(Point(Fraction(1), Fraction(1)), Fraction(0)), square)  # a point inside
    assert not overlaps_polygon(Disc(Point(Fraction(0), Fraction(1)), Fraction(0)), square)  # a point on the edge
    assert overlaps_polygon(Disc(Point(Fraction(0), Fraction(1)), r), square)


def test_a_move_off_the_table_is_refused_bu_9_2():
    """BU-9.2 with the scenario's ``table``: the whole base stays on the table (touching its edge is on it); without
    a table nothing is off it."""
    b = battle(S(), T(12), table={"width": 48, "depth": 36})
    assert b.table.width == 48
    for to in ((R30, R30), (48 - R30, 36 - R30)):
        assert BU.check_move(b, Move("S", to=to)).is_legal
    for to in ((R30 - HAIR, Fraction(5)), (Fraction(5), 36 - R30 + HAIR), (Fraction(-10), Fraction(5))):
        assert refusals(BU.check_move(b, Move("S", to=to))) == [
            ("BU-9.2", f"at ({float(to[0]):.2f}, {float(to[1]):.2f}) S's base would be off the table (48 in by 36 "
                       "in, from (0, 0))")]
    assert BU.check_move(battle(S(), T(12)), Move("S", to=xy(-10, 5))).is_legal


def test_the_distance_is_reported_and_max_move_refuses_a_longer_move_bu_9_2():
    """BU-9.2: the rules set no allowance (max_move none: 40 in is legal); with max_move 5 exactly 5 in (3-4-5) is
    legal and a hair more refused, said as just over 5 in beside the rules' value."""
    assert BU.check_move(battle(S(), T(12)), Move("S", by=xy(-40, 0))).is_legal
    b = battle(S(), T(12), options={"max_move": 5})
    assert BU.check_move(b, Move("S", by=xy(3, 4))).distance == 5
    assert BU.check_move(b, Move("S", by=xy(-3, -4))).is_legal
    over = BU.check_move(b, Move("S", by=(Fraction(-3), -4 - HAIR)))
    assert refusals(over) == [("BU-9.2", "S would move just over 5 in, more than max_move 5 in (house rule; the rules "
                                         "say no allowance)")]
    assert over.distance == 5 + Fraction(1, 10**12)  # rounded up: beyond the allowance, as the exact distance is
    assert refusals(BU.check_move(b, Move("S", by=xy(0, -6)))) == [
        ("BU-9.2", "S would move 6.00 in, more than max_move 5 in (house rule; the rules say no allowance)")]


def test_a_distance_is_exact_where_rational_else_to_twelve_places_bu_9_2():
    """BU-9.2: the distance reported is exact where it is rational, else rounded down to 10^-12 in; a move refused
    as longer than max_move reports it rounded up, so that it still lies beyond the allowance."""
    assert root(Fraction(25, 4)) == Fraction(5, 2) and root(Fraction(0)) == 0
    assert root(Fraction(2)) == Fraction(1414213562373, 10**12) and root(Fraction(2), up=True) == Fraction(
        1414213562374, 10**12)
    b = battle(S(), T(12), options={"max_move": "1.5"})
    assert BU.check_move(b, Move("S", by=xy(1, 1))).distance == Fraction(1414213562373, 10**12)
    refused = BU.check_move(b, Move("S", by=xy(1, 2)))
    assert refused.distance == Fraction(2236067977500, 10**12) and refused.distance ** 2 > 5 > (
        refused.distance - Fraction(1, 10**12)) ** 2


def test_max_move_is_an_option_with_its_clause_bu_9_2():
    """BU-9.2: ``max_move`` (inches, default none) is an option like the others: its row, a house rule named with
    its clause, a bad value refused with its path, written back with the battle."""
    rows = {row.path: (row.default, row.clause) for row in option_rows(Options)}
    assert rows["options.max_move"] == ("none", "BU-9.2")
    b = battle(S(), T(12), options={"max_move": "2.5"})
    assert b.options.max_move == Fraction(5, 2)
    assert [(h.path, h.value, h.clause) for h in house_rules(b.options)] == [("options.max_move", 2.5, "BU-9.2")]
    assert BU.dump(b)["options"]["max_move"] == 2.5
    for bad in (0, -1, "far", True):
        with pytest.raises(ScenarioError, match=r"options\.max_move"):
            battle(S(), T(12), options={"max_move": bad})


# -- bad input ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("data", "says"), [
    ({"unit": "S", "to": [float("nan"), 0]}, "to: must be a finite number, got nan"),
    ({"unit": "S", "by": [0, float("inf")]}, "by: must be a finite number, got inf"),
    ({"unit": "S", "to": ["1e9", 0]}, "to: must be a number of magnitude at most 1000000, got '1e9'"),
    ({"unit": "S", "to": [10**30, 0]}, "to: must be a number of magnitude at most 1000000"),
    ({"unit": "S", "to": [1, 2, 3]}, "to: must be a point [x, y]"),
])
def test_nan_and_huge_coordinates_are_refused_with_a_clear_message(data, says):
    with pytest.raises(RangefireError) as caught:
        BU.check_move(battle(S(), T(12)), Move.from_dict(data))
    assert says in str(caught.value)


def test_a_move_built_in_code_is_checked_as_one_read_from_json():
    """A Move made in code with a float NaN, a coordinate too big, or a new position a battle file cannot hold is
    refused with the same words: the battle after a move always reads back."""
    b = battle(S(), T(12))
    with pytest.raises(RangefireError, match=r"^to: x must be a finite number, got nan$"):
        BU.check_move(b, Move("S", to=(float("nan"), Fraction(0))))  # type: ignore[arg-type]
    with pytest.raises(RangefireError, match=r"^by: y 1e\+07 lies beyond the magnitude a battle records"):
        BU.check_move(b, Move("S", by=(Fraction(0), Fraction(10**7))))
    far = battle(model("S", "prefecture", (900_000, 0), 30), T(12))
    with pytest.raises(RangefireError, match=r"^by: the new x 1\.8e\+06 lies beyond the magnitude a battle records"):
        BU.check_move(far, Move("S", by=xy(900_000, 0)))
    odd = Fraction(1, 10**19 + 1)
    with pytest.raises(RangefireError, match=r"^by: the new x .* cannot be written exactly in a battle file$"):
        BU.check_move(battle(model("S", "prefecture", (odd, 0), 30), T(12)), Move("S", by=(Fraction(1, 10**19 + 3),
                                                                                           Fraction(0))))


def test_an_unknown_unit_and_a_move_with_the_wrong_fields_are_bad_input():
    b = battle(S(), T(12))
    with pytest.raises(UnknownUnitError, match=r"unit 'X' is not in this battle \(units: S, T\)"):
        BU.check_move(b, Move("X", by=xy(1, 0)))
    with pytest.raises(UnknownUnitError):
        BU.check_mark(b, Mark("X", "aimed"))
    with pytest.raises(RangefireError, match=r"new position: to \[x, y\] or by \[dx, dy\] \[BU-9\.1\]"):
        BU.check_move(b, Move("S"))
    for extra in ({"facing": Fraction(90)}, {"mission": "canyon"}, {"formation": "line"}, {"turn": Fraction(10)}):
        with pytest.raises(RangefireError, match=r"nothing else \[BU-9\.1\]"):
            BU.check_move(b, Move("S", by=xy(1, 0), **extra))


# -- the battle after a move ------------------------------------------------------------------------------------
def test_the_moved_battle_reads_back_through_the_battle_model():
    """The battle a move leaves (a position of thirds, states, the table, max_move) is dumped and read again to the
    same battle."""
    b = battle(S(), T(12), table={"width": 48, "depth": "72/2"}, options={"max_move": 6}, active_side="prefecture")
    after = moved(b, by=(Fraction(10, 3), Fraction(9, 7)), run=True)
    after = BU.mark(after, Mark("S", "will_move"))[0]
    data = BU.dump(after)
    assert data["table"] == {"width": 48, "depth": 36} and data["units"][0]["position"] == ["10/3", "9/7"]
    assert battle_from_mapping(data)[1] == after


def test_the_table_key_is_optional_and_checked():
    assert battle(S(), T(12)).table is None and "table" not in BU.dump(battle(S(), T(12)))
    with pytest.raises(ScenarioError, match=r"table\.width"):
        battle(S(), T(12), table={"width": 0, "depth": 36})
    with pytest.raises(ScenarioError, match=r"table\.height"):
        battle(S(), T(12), table={"width": 10, "depth": 36, "height": 3})


# -- properties ---------------------------------------------------------------------------------------------------
coordinate = st.fractions(min_value=-30, max_value=30, max_denominator=64)
CROWD = [model("A", "prefecture", (-6, 5), 40), model("B", "ito", (7, -4), 50), model("C", "ito", (0, 20), 60)]
WALLS = (box("wall", "solid", 3, 3, 5, 9), box("mist", "obscuring", -9, -9, -4, -2))


@settings(max_examples=120, deadline=None)
@given(dx=coordinate, dy=coordinate, run=st.booleans())
def test_a_legal_move_changes_no_other_model_and_moving_back_restores_the_position_bu_9_1(dx, dy, run):
    """BU-9.1: any legal move changes only the model moved (its position and one state); the move back by the
    opposite offset is legal and gives the old position, with no other model changed."""
    b = battle(S(), T(12), *CROWD, terrain=WALLS, active_side="prefecture")
    checked = BU.check_move(b, Move("S", by=(dx, dy), run=run))
    if not checked.is_legal:
        assert set(clauses(checked)) == ({"BU-9.1"} if dx == dy == 0 else {"BU-9.2"})
        return
    after = checked.after
    assert [u for u in after.units if u.id != "S"] == [u for u in b.units if u.id != "S"]
    assert after.terrain == b.terrain and after.options == b.options and after.active_side == b.active_side
    assert after.unit("S").position == (dx, dy) and checked.distance == root(dx * dx + dy * dy)
    assert abs(float(checked.distance) - math.hypot(dx, dy)) < 1e-6
    back = BU.check_move(after, Move("S", by=(-dx, -dy)))
    assert back.is_legal and back.after.unit("S").position == b.unit("S").position
    assert [u for u in back.after.units if u.id != "S"] == [u for u in b.units if u.id != "S"]


@settings(max_examples=60, deadline=None)
@given(states=st.lists(st.sampled_from(["will_move", "aimed", "prone"]), unique=True, min_size=1),
       held=st.sets(st.sampled_from(["moved", "ran", "surprised"])), uid=st.sampled_from(["S", "A"]))
def test_marks_set_then_cleared_give_the_battle_back_bu_9_1(states, held, uid):
    """BU-9.1: states set one after another, then cleared in any order, give back the battle as it was."""
    b = battle(S(), T(12), *CROWD, active_side="prefecture")
    b = b.model_copy(update={"units": tuple(u.model_copy(update={"states": tuple(sorted(held))}) if u.id == uid
                                            else u for u in b.units)})
    after = b
    for state in states:
        after = BU.mark(after, Mark(uid, state))[0]
    assert set(after.unit(uid).states) == held | set(states)
    for state in reversed(states):
        after = BU.mark(after, Mark(uid, state, on=False))[0]
    assert after == b
