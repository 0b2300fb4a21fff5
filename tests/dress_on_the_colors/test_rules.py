"""Dress on the Colors, clause by clause (../shared/rules/dress-on-the-colors.md).

The standard set-up: firer F (blue) at the origin facing +y (0 degrees), its front edge from (-3, 0) to
(3, 0); target T (grey) facing back at it (180 degrees), its front edge d inches up the table.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from rangefire.core import Attack, EnteredSource, IllegalAttackError, ScenarioError, ScriptedSource
from rangefire.geometry import Point
from rangefire.rulesets.dress_on_the_colors.table import footprint, in_arc, smoke_marker
from rangefire.rulesets.dress_on_the_colors.volley import DressOutcome, casualties
from tests.conftest import dc_battle, square, unit


def F(**kw):
    return unit("F", "blue", (0, 0), 0, **kw)


def T(d=10, **kw):
    return unit("T", "grey", (kw.pop("x", 0), d), 180, **kw)


def plan_of(doc, *units, target="T", terrain=(), **options):
    return doc.plan(dc_battle(*units, terrain=terrain, **options), Attack("F", target))


def refusals_of(doc, *units, target="T", terrain=(), **options):
    checked = doc.check(dc_battle(*units, terrain=terrain, **options), Attack("F", target))
    assert not checked.is_legal
    return [(r.clause, r.reason) for r in checked.refusals]


# -- DC-1 units and the table ----------------------------------------------------------------------
def test_dc_1_1_unit_defaults_and_marker_range():
    """DC-1.1: stands 1.5 x 1 by default, discipline 0, micro-hit marker 0 or 1 only."""
    b = dc_battle(F(), T())
    u = b.unit("F")
    assert (u.stand_width, u.stand_depth, u.discipline, u.micro_hits, u.disordered) == (Fraction(3, 2), 1, 0, 0, False)
    with pytest.raises(ScenarioError, match=r"units\[0\]\.micro_hits"):
        dc_battle(F(micro_hits=2), T())


def test_dc_1_2_footprints_by_formation():
    """DC-1.2: line side by side, march column one behind another, skirmish with a stand width between."""
    line = footprint(dc_battle(F(stands=3), T()).unit("F"))
    assert line.stands[0].bbox() == (Fraction(-9, 4), -1, Fraction(-3, 4), 0)
    assert line.stands[2].bbox() == (Fraction(3, 4), -1, Fraction(9, 4), 0)
    column = footprint(dc_battle(F(stands=3, formation="march-column"), T()).unit("F"))
    assert [s.bbox() for s in column.stands] == [
        (Fraction(-3, 4), -1, Fraction(3, 4), 0), (Fraction(-3, 4), -2, Fraction(3, 4), -1),
        (Fraction(-3, 4), -3, Fraction(3, 4), -2)]
    assert len(column.front) == 1 and column.half_width == Fraction(3, 4)
    skirm = footprint(dc_battle(F(stands=3, formation="skirmish"), T()).unit("F"))
    assert [s.bbox()[0] for s in skirm.stands] == [Fraction(-15, 4), Fraction(-3, 4), Fraction(9, 4)]
    assert len(skirm.front) == 3  # the fronts of the leading stands, not the gaps
    # facing 90 (east): the front edge runs north-south through the position
    east = footprint(dc_battle(unit("F", "blue", (0, 0), 90, stands=2), T()).unit("F"))
    assert east.front_corners == (Point.of(0, Fraction(3, 2)), Point.of(0, Fraction(-3, 2)))


def test_dc_1_2_skirmish_gaps_are_not_footprint(doc):
    """DC-1.2: the gap between skirmish stands is empty table: range is measured to a stand."""
    # Target skirmishers: stands at x in [-3.75,-2.25], [-0.75,0.75], [2.25,3.75]; firer is a 1-stand unit
    # facing them at x = 1.5, under the gap. Nearest stand corner is 0.75 across and 10 up.
    p = doc.plan(dc_battle(unit("F", "blue", (1.5, 0), 0, stands=1, stand_width=0.5),
                           T(10, stands=3, formation="skirmish")), Attack("F", "T"))
    assert p.distance2 == Fraction(1, 2) ** 2 + 100


def test_dc_1_3_terrain_grades():
    """DC-1.3: terrain is a polygon graded open, light or heavy (gunsmoke markers are polygons too)."""
    for kind in ("open", "light", "heavy", "gunsmoke"):
        dc_battle(F(), T(), terrain=({"id": "x", "kind": kind, "polygon": square(0, 0, 1, 1)},))
    with pytest.raises(ScenarioError, match=r"terrain\[0\]\.kind"):
        dc_battle(F(), T(), terrain=({"id": "x", "kind": "swamp", "polygon": square(0, 0, 1, 1)},))


# -- DC-2 arc, target and range --------------------------------------------------------------------
@pytest.mark.parametrize(("x", "inside"), [("8.25", True), ("8.26", False), ("-8.25", True), ("-8.26", False)])
def test_dc_2_1_arc_corners_boundary_is_exact(x, inside):
    """DC-2.1: lines 45 degrees outward from each front corner; touching the line is in the arc.

    F has 2 stands (corners at x = +-1.5). T (one stand, facing back) at y = 5 reaches down to its rear
    corner (x -+ 0.75, 6): in arc while |x| - 0.75 - 6 <= 1.5, i.e. |x| <= 8.25.
    """
    b = dc_battle(F(stands=2), unit("T", "grey", (x, 5), 180, stands=1))
    assert in_arc(footprint(b.unit("F")), footprint(b.unit("T")), "corners") is inside


def test_dc_2_1_arc_centre_option_is_narrower(doc):
    """DC-2.1 option arc = "centre": the 45 degree lines start at the front-edge midpoint."""
    b = dc_battle(F(stands=2), unit("T", "grey", (8, 5), 180, stands=1))
    assert in_arc(footprint(b.unit("F")), footprint(b.unit("T")), "corners")
    assert not in_arc(footprint(b.unit("F")), footprint(b.unit("T")), "centre")
    refused = refusals_of(doc, F(stands=2), unit("T", "grey", (8, 5), 180, stands=1), arc="centre")
    assert refused[0][0] == "DC-2.1"
    assert doc.check(dc_battle(F(stands=2), unit("T", "grey", (8, 5), 180, stands=1)), Attack("F", "T")).is_legal


def test_dc_2_1_target_behind_is_out_of_arc(doc):
    """DC-2.1: an enemy behind the front edge is outside the forward arc."""
    assert refusals_of(doc, F(), unit("T", "grey", (0, -5), 0))[0][0] == "DC-2.1"


def test_dc_2_2_range_from_front_edge_to_footprint(doc):
    """DC-2.2: measured from the firer's front edge (not its centre) to the nearest part of the target."""
    assert plan_of(doc, F(formation="march-column"), T(7)).distance2 == 49
    # Target off to the side: its nearest corner (x - 3, 8) to F's right front corner (3, 0).
    p = plan_of(doc, F(), T(8, x=9))
    assert p.distance2 == 3**2 + 8**2


def test_dc_2_3_must_target_closest_unengaged(doc):
    """DC-2.3: the closest unengaged enemy in the arc must be the target; the refusal names it."""
    near, far = unit("N", "grey", (0, 5), 180), T(9)
    refused = refusals_of(doc, F(), near, far)
    assert refused[0][0] == "DC-2.3" and "N" in refused[0][1]
    assert plan_of(doc, F(), near, far, target="N").target == "N"
    assert plan_of(doc, F(), near, far, target=None).target == "N"
    # Engaged enemies are skipped: with N engaged, T is the closest and N cannot be targeted.
    assert plan_of(doc, F(), {**near, "engaged": True}, far, target=None).target == "T"
    assert refusals_of(doc, F(), {**near, "engaged": True}, far, target="N")[0][0] == "DC-2.3"


def test_dc_2_3_engaged_firer_cannot_fire(doc):
    """DC-2.3: engaged units cannot fire."""
    assert refusals_of(doc, F(engaged=True), T())[0] == ("DC-2.3", "F is engaged in melee: engaged units cannot fire")


def test_dc_2_3_equal_distance_firer_chooses(doc):
    """DC-2.3 ruling: on equal distance the firer chooses either."""
    a, b = unit("A", "grey", (-6, 5), 180, stands=1), unit("B", "grey", (6, 5), 180, stands=1)
    assert plan_of(doc, F(), a, b, target="A").tied_targets == ("A", "B")
    assert plan_of(doc, F(), a, b, target="B").target == "B"


def test_dc_2_3_only_enemies_in_range_count(doc):
    """DC-2.3 ruling: an enemy beyond 20 in is no obligation; nor is a friendly unit a target."""
    beyond = unit("X", "grey", (0, 21), 180)
    friend = unit("P", "blue", (0, 3), 180)
    assert refusals_of(doc, F(), beyond, friend, target=None)[0][0] == "DC-2.3"
    assert refusals_of(doc, F(), friend, T(), target="P")[0][0] == "DC-2.3"
    assert plan_of(doc, F(), friend, T(10), target=None).target == "T"


@pytest.mark.parametrize(("d", "band", "tn"), [
    ("6", "short", 3), ("6.01", "medium", 4), ("14", "medium", 4), ("14.01", "long", 5), ("20", "long", 5)])
def test_dc_2_4_bands_are_exact(doc, d, band, tn):
    """DC-2.4: d <= 6 short, 6 < d <= 14 medium, 14 < d <= 20 long (breechloader 3+/4+/5+ tells them apart)."""
    p = plan_of(doc, F(weapon="breechloader"), T(d))
    assert (p.band, p.target_number) == (band, tn)


def test_dc_2_4_beyond_20_cannot_fire(doc):
    """DC-2.4: beyond 20 in the unit cannot fire."""
    assert refusals_of(doc, F(), T("20.01"))[0][0] == "DC-2.4"


# -- DC-3 firepower --------------------------------------------------------------------------------
def test_dc_3_1_one_die_per_stand(doc):
    """DC-3.1: roll 1D6 per stand firing."""
    for stands in (1, 4, 7):
        p = plan_of(doc, F(stands=stands), T(10))
        r = doc.resolve(p, ScriptedSource([2] * stands))
        assert (p.dice, len(r.dice["hit"])) == (stands, stands)


@pytest.mark.parametrize(("weapon", "short", "medium", "long"), [
    ("smoothbore", 3, 5, None), ("rifled-musket", 4, 4, 5), ("breechloader", 3, 4, 5), ("artillery", 2, 4, 5)])
def test_dc_3_2_target_numbers(doc, weapon, short, medium, long):
    """DC-3.2: the table; artillery canister at short, roundshot at medium and long; "-" cannot fire."""
    for d, tn in (("5", short), ("10", medium), ("17", long)):
        checked = doc.check(dc_battle(F(weapon=weapon), T(d)), Attack("F", "T"))
        if tn is None:
            assert checked.refusals[0].clause == "DC-3.2"
        else:
            assert checked.plan.target_number == tn


def test_dc_3_2_artillery_names_its_shot(doc):
    """DC-3.2 ruling: canister at short range, roundshot beyond."""
    notes = {n.clause: n.text for n in plan_of(doc, F(weapon="artillery"), T(5)).notes}
    assert "canister" in notes["DC-3.2"]
    notes = {n.clause: n.text for n in plan_of(doc, F(weapon="artillery"), T(10)).notes}
    assert "roundshot" in notes["DC-3.2"]


@pytest.mark.parametrize(("firer", "target", "penalty"), [
    ({}, {"formation": "skirmish"}, 1),
    ({"disordered": True}, {}, 1),
    ({"formation": "march-column"}, {}, 1),
    ({"disordered": True, "formation": "march-column"}, {"formation": "skirmish"}, 3)])
def test_dc_3_3_modifiers_stack(doc, firer, target, penalty):
    """DC-3.3: -1 skirmish target, -1 disordered firer, -1 march column firer; they stack."""
    p = plan_of(doc, F(**firer), T(10, **target))
    assert sum(m.delta for m in p.modifiers) == -penalty
    assert all(m.clause == "DC-3.3" for m in p.modifiers)
    assert p.need == 4 + penalty


def test_dc_3_4_natural_one_never_hits_and_unreachable_needs(doc):
    """DC-3.4: a natural 1 never hits (canister 2+); a need above 6 cannot hit, though a 6 still suppresses."""
    p = plan_of(doc, F(weapon="artillery", stands=2), T(3))
    assert p.need == 2
    r = doc.resolve(p, EnteredSource({"hit": [1, 2]}))
    assert r.outcome.hits == 1
    # smoothbore 5+ at medium, three penalties: needs 8
    p = plan_of(doc, F(weapon="smoothbore", disordered=True, formation="march-column"), T(10, formation="skirmish"))
    assert p.need == 8
    odds = doc.odds(p)
    assert odds.outcomes["hits"].probability(0) == 1
    assert odds.events["suppression"] == 1 - Fraction(5, 6) ** 4
    r = doc.resolve(p, EnteredSource({"hit": [6, 6, 6, 6], "discipline": [6, 6]}))
    assert (r.outcome.hits, r.outcome.suppression) == (0, True)


# -- DC-4 saves and casualties ---------------------------------------------------------------------
def test_dc_4_1_saves_by_grade(doc):
    """DC-4.1: open no save, light 5+, heavy 4+; a save at the number cancels the hit."""
    for kind, save in (("light", 5), ("heavy", 4)):
        wood = {"id": "w", "kind": kind, "polygon": square(-5, 9, 5, 12)}
        p = plan_of(doc, F(), T(10), terrain=(wood,))
        assert (p.cover, p.save) == (kind, save)
        r = doc.resolve(p, EnteredSource({"hit": [6, 6, 2, 2], "save": [save, save - 1], "discipline": [6, 6]}))
        assert (r.outcome.hits, r.outcome.unsaved_hits) == (2, 1)
    p = plan_of(doc, F(), T(10))
    assert (p.cover, p.save) == ("open", None)
    r = doc.resolve(p, EnteredSource({"hit": [6, 5, 2, 2], "discipline": [6, 6]}))
    assert r.outcome.unsaved_hits == 2 and "save" not in r.dice


def test_dc_4_2_cover_from_overlap_and_from_crossing_within_one_inch(doc):
    """DC-4.2: the best grade the target overlaps, or that the line of fire crosses within 1 in of it."""
    # T's front edge at y = 10. A wall whose near side lies exactly 1 in out, at y = 9: the interior it
    # puts on the line of fire begins beyond 1 in, so it gives no cover; at y = 9.01 it does.
    far_wall = {"id": "far", "kind": "heavy", "polygon": square(-5, "8.5", 5, 9)}
    near_wall = {"id": "near", "kind": "heavy", "polygon": square(-5, "8.5", 5, "9.01")}
    assert plan_of(doc, F(), T(10), terrain=(far_wall,)).cover == "open"
    assert plan_of(doc, F(), T(10), terrain=(near_wall,)).cover_from == ("near",)
    # Overlap of the footprint: light woods around the target.
    woods = {"id": "woods", "kind": "light", "polygon": square(-10, "10.5", 10, 15)}
    assert plan_of(doc, F(), T(10), terrain=(woods,)).cover == "light"
    # Best grade wins.
    p = plan_of(doc, F(), T(10), terrain=(woods, near_wall))
    assert (p.cover, p.cover_from) == ("heavy", ("near",))
    # Touching the footprint's edge is not overlapping: terrain wholly behind the target gives nothing.
    behind = {"id": "behind", "kind": "heavy", "polygon": square(-5, 11, 5, 13)}
    assert plan_of(doc, F(), T(10), terrain=(behind,)).cover == "open"


def test_dc_4_2_line_touching_a_corner_is_not_crossing(doc):
    """DC-4.2: the line of fire crosses terrain only through its interior; grazing a corner is touching."""
    # A 1-stand firer at x = 0 and target at x = 0: the line of fire is x = 0, from y=0 to y=10.
    # A light hedge whose corner sits exactly on x = 0 at y = 9.5 only touches the line.
    tip = {"id": "tip", "kind": "light", "polygon": [[0, "9.5"], [2, 9], [2, 10]]}
    units = (unit("F", "blue", (0, 0), 0, stands=1), unit("T", "grey", (0, 10), 180, stands=1))
    assert plan_of(doc, *units, terrain=(tip,)).cover == "open"
    crossing = {"id": "tip", "kind": "light", "polygon": [["-0.01", "9.5"], [2, 9], [2, 10]]}
    assert plan_of(doc, *units, terrain=(crossing,)).cover == "light"


@pytest.mark.parametrize(("near_side", "grade"), [("9", "open"), ("9.1", "heavy"), ("8.99", "open")])
def test_terrain_exactly_one_inch_away_gives_no_cover_DC_4_4(doc, near_side, grade):
    """DC-4.4: "within 1 in" is strict: terrain whose nearest point to the footprint (front edge y = 10) is
    exactly 1.0 in away gives no cover; at 0.9 in it does."""
    wall = {"id": "wall", "kind": "heavy", "polygon": square(-5, 8, 5, near_side)}
    assert plan_of(doc, F(), T(10), terrain=(wall,)).cover == grade


@pytest.mark.parametrize(("away", "grade"), [("1", "open"), ("0.9", "heavy"), ("1.1", "open")])
def test_terrain_exactly_one_inch_away_on_a_slanting_line_gives_no_cover_DC_4_4(doc, away, grade):
    """DC-4.4 on a line of fire that is not square to the table: from F's right front corner (3/4, 0) to T's
    nearest corner (27/4, 8), a 6-8-10 line. A wall square to that line whose near side is ``away`` inches
    from that corner along it: exactly 1.0 in gives no cover, 0.9 in does."""
    units = (unit("F", "blue", (0, 0), 0, stands=1), unit("T", "grey", ("7.5", 8), 180, stands=1))
    assert plan_of(doc, *units).line_of_fire == ((Fraction(3, 4), 0), (Fraction(27, 4), 8))
    t = Fraction(away)
    corner = Point(Fraction(27, 4) - t * Fraction(3, 5), 8 - t * Fraction(4, 5))  # t along the line from T
    along, back = Point(Fraction(4, 5), Fraction(-3, 5)), Point(Fraction(-3, 5), Fraction(-4, 5))
    pts = [corner + along.scale(2), corner + along.scale(-2), corner + along.scale(-2) + back.scale(Fraction(1, 2)),
           corner + along.scale(2) + back.scale(Fraction(1, 2))]
    wall = {"id": "wall", "kind": "heavy", "polygon": [[str(p.x), str(p.y)] for p in pts]}
    assert plan_of(doc, *units, terrain=(wall,)).cover == grade


@pytest.mark.parametrize(("stands", "marker", "unsaved", "lost", "left_marker"), [
    (4, 0, 1, 0, 1), (4, 1, 1, 1, 0), (4, 0, 2, 1, 0), (4, 1, 4, 2, 1), (2, 1, 9, 2, 0), (1, 0, 2, 1, 0)])
def test_dc_4_3_casualties_closed_form(stands, marker, unsaved, lost, left_marker):
    """DC-4.3: floor((m+U)/2) stands lost, marker (m+U) mod 2, losses stop at 0 stands."""
    assert casualties(stands, marker, unsaved) == (lost, left_marker)


@pytest.mark.parametrize(("stands", "marker", "unsaved"), [(1, 1, 2), (3, 0, 7), (2, 1, 4)])
def test_losses_exactly_the_stands_with_an_odd_total_leave_no_marker_DC_4_3(doc, stands, marker, unsaved):
    """DC-4.3: losses that exactly equal the stands destroy the unit even when m + U is odd; a destroyed unit
    keeps no micro-hit marker (the odd hit has nothing left to mark)."""
    assert casualties(stands, marker, unsaved) == (stands, 0)
    p = plan_of(doc, F(stands=unsaved), T(10, stands=stands, micro_hits=marker))
    r = doc.resolve(p, EnteredSource({"hit": [5] * unsaved}))
    assert (r.outcome.stands_lost, r.outcome.micro_hits, r.outcome.destroyed) == (stands, 0, True)


def test_dc_4_3_applied_to_the_battle(doc):
    """DC-4.3: the target loses stands and keeps the marker; at 0 stands it is destroyed and removed."""
    b = dc_battle(F(stands=5), T(10, stands=3, micro_hits=1))
    res, after = doc.play(b, Attack("F", "T"), EnteredSource({"hit": [5, 5, 2, 2, 2]}))
    assert (after.unit("T").stands, after.unit("T").micro_hits) == (2, 1)
    assert b.unit("T").stands == 3  # the old battle is untouched
    res, after = doc.play(b, Attack("F", "T"), EnteredSource({"hit": [5, 5, 5, 5, 5]}))
    assert res.outcome.destroyed and "T" not in doc.unit_ids(after)


# -- DC-5 suppression ------------------------------------------------------------------------------
def test_dc_5_1_any_natural_six_suppresses_whatever_the_saves(doc):
    """DC-5.1: a natural 6 triggers suppression even when the hit is saved; one check however many 6s."""
    wall = {"id": "wall", "kind": "heavy", "polygon": square(-5, "9.5", 5, 10)}
    p = plan_of(doc, F(), T(10), terrain=(wall,))
    r = doc.resolve(p, EnteredSource({"hit": [6, 6, 1, 1], "save": [6, 6], "discipline": [1, 2]}))
    assert r.outcome.unsaved_hits == 0 and r.outcome.suppression and r.outcome.disorder
    assert len(r.dice["discipline"]) == 2
    r = doc.resolve(p, EnteredSource({"hit": [5, 5, 1, 1], "save": [1, 1]}))
    assert not r.outcome.suppression and "discipline" not in r.dice


def test_dc_5_1_enfilade_dice_count_for_suppression(doc):
    """DC-5.1 ruling: enfilade dice count; a 6 on the last (enfilade) die suppresses."""
    b = dc_battle(unit("F", "blue", (-10, -3), 90, stands=2), unit("T", "grey", (0, 0), 0, stands=2))
    p = doc.plan(b, Attack("F", "T"))
    assert p.enfilade_dice == 1
    r = doc.resolve(p, EnteredSource({"hit": [1, 1, 6], "discipline": [6, 6]}))
    assert r.outcome.suppression


@pytest.mark.parametrize(("discipline", "disordered", "rolled", "fails"), [
    (0, False, (3, 3), False), (0, False, (3, 2), True), (1, False, (3, 1), True), (1, False, (3, 2), False),
    (0, True, (3, 3), True), (0, True, (4, 3), False)])
def test_dc_5_2_discipline_check(doc, discipline, disordered, rolled, fails):
    """DC-5.2: 2D6 + discipline, -1 if already disordered, passes on 6 or more."""
    p = plan_of(doc, F(), T(10, discipline=discipline, disordered=disordered))
    r = doc.resolve(p, EnteredSource({"hit": [6, 1, 1, 1], "discipline": list(rolled)}))
    assert r.outcome.disorder is fails


def test_dc_5_2_discipline_options_and_flag(doc):
    """DC-5.2 options discipline_dice and discipline_pass; disorder is a flag (a second failure changes nothing)."""
    p = plan_of(doc, F(), T(10), discipline_dice=3, discipline_pass=11)
    assert (p.discipline_dice, p.discipline_pass) == (3, 11)
    r = doc.resolve(p, EnteredSource({"hit": [6, 1, 1, 1], "discipline": [3, 3, 4]}))
    assert r.outcome.disorder  # 10 < 11
    b = dc_battle(F(), T(10, disordered=True))
    _, after = doc.play(b, Attack("F", "T"), EnteredSource({"hit": [6, 1, 1, 1], "discipline": [1, 1]}))
    assert after.unit("T").disordered is True
    # exact odds follow the options: 3D6 + 0 < 11 fails with probability 1/2
    p3 = plan_of(doc, F(stands=1), T(10), discipline_dice=3, discipline_pass=11)
    assert doc.odds(p3).events["disorder"] == Fraction(1, 6) * Fraction(1, 2)


def test_dc_5_3_no_check_for_a_destroyed_unit(doc):
    """DC-5.3: suppression is resolved after casualties, and not for a destroyed unit."""
    p = plan_of(doc, F(), T(10, stands=1, micro_hits=1))
    r = doc.resolve(p, EnteredSource({"hit": [6, 1, 1, 1]}))  # no discipline dice needed
    assert r.outcome.destroyed and r.outcome.suppression and not r.outcome.disorder
    assert [line.clause for line in r.log].count("DC-5.3") == 1
    # every natural 6 is a hit that kills the 1-stand target: disorder is impossible
    assert doc.odds(p).events["disorder"] == 0


# -- DC-6 enfilade ---------------------------------------------------------------------------------
def test_dc_6_1_strictly_behind_the_front_baseline(doc):
    """DC-6.1: every corner of every firer stand, at its start-of-turn position, strictly behind the line.

    T faces +y with its front edge on y = 0. F (2 stands, facing east) spans y in [c - 1.5, c + 1.5].
    """
    target = unit("T", "grey", (0, 0), 0, stands=2)

    def enfilades(c):
        return doc.plan(dc_battle(unit("F", "blue", (-10, c), 90, stands=2), target), Attack("F", "T")).enfilade

    assert not enfilades("-1.5")  # its top corner lies on the baseline: not strictly behind
    assert enfilades("-1.51")
    assert not enfilades("-1")  # astride the baseline


def test_dc_6_1_uses_the_start_of_turn_position(doc):
    """DC-6.1: where the firer began its turn decides, not where it stands now."""
    target = unit("T", "grey", (0, 0), 0, stands=2)
    moved_in = unit("F", "blue", (-10, "-3.5"), 90, stands=4, moved=True, start_position=[-10, 5], start_facing=90)
    assert not doc.plan(dc_battle(moved_in, target), Attack("F", "T")).enfilade
    came_round = unit("F", "blue", (-10, 2), 90, stands=2, moved=True, start_position=[-10, -5])
    assert doc.plan(dc_battle(came_round, target), Attack("F", "T")).enfilade


@pytest.mark.parametrize(("stands", "extra"), [(1, 0), (2, 1), (3, 1), (4, 2), (7, 3)])
def test_dc_6_2_one_die_per_two_stands(doc, stands, extra):
    """DC-6.2: +1D6 for every two stands firing, rounded down."""
    b = dc_battle(unit("F", "blue", (-12, -8), 90, stands=stands), unit("T", "grey", (0, 0), 0, stands=2))
    p = doc.plan(b, Attack("F", "T"))
    assert p.enfilade and (p.enfilade_dice, p.dice) == (extra, stands + extra)


@pytest.mark.parametrize(("kind", "save"), [("heavy", 5), ("light", 6), (None, None)])
def test_dc_6_3_enfilade_worsens_the_save(doc, kind, save):
    """DC-6.3: 4+ becomes 5+, 5+ becomes 6+, open stays no save."""
    terrain = ({"id": "woods", "kind": kind, "polygon": square(-5, -3, 5, 1)},) if kind else ()
    b = dc_battle(unit("F", "blue", (-12, -8), 90, stands=2), unit("T", "grey", (0, 0), 0, stands=2),
                  terrain=terrain)
    assert doc.plan(b, Attack("F", "T")).save == save


def test_enfilade_dice_and_worse_save_are_cited_as_modifiers_DC_6_2_DC_6_3(doc):
    """DC-6.2 and DC-6.3 in the check: the extra dice and the worse save are modifiers with their clauses;
    the cover note (DC-4.2) gives the grade's own save, and the to-hit number is untouched."""
    wall = {"id": "wall", "kind": "heavy", "polygon": square(-5, -3, 5, 1)}
    b = dc_battle(unit("F", "blue", (-12, -8), 90, stands=4), unit("T", "grey", (0, 0), 0, stands=2),
                  terrain=(wall,))
    p = doc.plan(b, Attack("F", "T"))
    assert [(m.clause, m.delta) for m in p.modifiers] == [("DC-6.2", 2), ("DC-6.3", 1)]
    assert "4+ becomes 5+" in p.modifiers[1].reason
    notes = {n.clause: n.text for n in p.notes}
    assert notes["DC-4.2"].endswith("saves on 4+")
    assert (p.need, p.save, p.dice) == (4, 5, 6)
    assert dict(p.summary())["to hit"] == "4+: a natural 4+"


def test_enfilade_with_nothing_to_add_says_so_DC_6_2_DC_6_3(doc):
    """DC-6.2 rounded down (1 stand: +0 dice) and DC-6.3 in the open (no save stays none): notes, not
    modifiers of nothing."""
    b = dc_battle(unit("F", "blue", (-12, -8), 90, stands=1), unit("T", "grey", (0, 0), 0, stands=2))
    p = doc.plan(b, Attack("F", "T"))
    assert p.enfilade and p.modifiers == ()
    notes = {n.clause: n.text for n in p.notes}
    assert "no extra dice" in notes["DC-6.2"] and "no save" in notes["DC-6.3"]


# -- DC-7 gunsmoke ---------------------------------------------------------------------------------
def test_dc_7_1_stationary_fire_places_a_marker(doc):
    """DC-7.1: a unit that did not move places a marker as wide as its front and 1 in deep, after the volley."""
    b = dc_battle(F(), T(10))
    res, after = doc.play(b, Attack("F", "T"), ScriptedSource([1] * 4))
    assert after.unit("F").gunsmoke and not b.unit("F").gunsmoke
    assert res.log[-1].clause == "DC-7.1"
    assert smoke_marker(after.unit("F")).bbox() == (-3, 0, 3, 1)
    _, after = doc.play(dc_battle(F(moved=True), T(10)), Attack("F", "T"), ScriptedSource([1] * 4))
    assert not after.unit("F").gunsmoke


def test_dc_7_1_a_marker_is_removed_when_the_unit_moves(doc):
    """DC-7.1 ruling: a unit has at most one marker, removed when the unit moves."""
    assert plan_of(doc, F(gunsmoke=True, moved=True), T(10)).modifiers == ()
    _, after = doc.play(dc_battle(F(gunsmoke=True, moved=True), T(10)), Attack("F", "T"), ScriptedSource([1] * 4))
    assert not after.unit("F").gunsmoke


def test_dc_7_2_smoke_penalty_only_beyond_six_inches(doc):
    """DC-7.2: a line through a marker suffers -1 only when longer than 6.0 in; the firer's own marker counts."""
    assert [m.clause for m in plan_of(doc, F(gunsmoke=True), T("6.01")).modifiers] == ["DC-7.2"]
    assert plan_of(doc, F(gunsmoke=True), T(6)).modifiers == ()
    assert plan_of(doc, F(gunsmoke=True), T(10)).need == 5


def test_dc_7_2_through_a_marker_once_however_many(doc):
    """DC-7.2: the penalty is -1 however many markers are crossed; touching a marker's edge is not crossing."""
    smoke = [{"id": f"s{i}", "kind": "gunsmoke", "polygon": square(-1, y, 1, y + 1)} for i, y in enumerate((3, 6))]
    p = plan_of(doc, F(stands=1), T(10, stands=1), terrain=tuple(smoke))
    assert [m.delta for m in p.modifiers] == [-1] and p.smoke_from == ("s0", "s1")
    beside = {"id": "beside", "kind": "gunsmoke", "polygon": square(0, 3, 2, 4)}  # its edge lies on x = 0
    assert plan_of(doc, F(stands=1), T(10, stands=1), terrain=(beside,)).modifiers == ()
    # the target's own marker lies on the line of fire too: "through"
    assert plan_of(doc, F(), T(10, gunsmoke=True)).smoke_from == ("T:gunsmoke",)


def _tie_notes(plan):
    return [n.text for n in plan.notes if n.clause == "DC-7.3"]


@pytest.mark.parametrize(("firer", "target", "middle"), [
    # a skirmish target: three tied stretches, one per stand; the middle one is the middle stand's
    ({"stands": 8}, {"stands": 3, "formation": "skirmish"}, 0),
    # skirmish firer: three front edges tie; the middle one is the middle stand's
    ({"stands": 3, "formation": "skirmish"}, {"stands": 8}, 0),
    # lines overlapping by x in [1, 3] (F spans -3..3, T spans 1..7): the middle of the overlap
    ({}, {"x": 4}, 2),
])
def test_tied_shortest_lines_use_the_middle_one_DC_7_3(doc, firer, target, middle):
    """DC-7.3: where several segments tie as the shortest line of fire, gunsmoke and cover are judged on the
    middle one, and the check says that others tied. Smoke and a wall only in front of the middle count."""
    p = plan_of(doc, F(**firer), T(10, **target))
    assert p.line_of_fire == ((middle, 0), (middle, 10))
    assert _tie_notes(p) and "tie" in _tie_notes(p)[0]
    assert p.details()["line_of_fire_tied"] is True
    left, right = middle - Fraction(1, 4), middle + Fraction(1, 4)
    smoke = {"id": "smoke", "kind": "gunsmoke", "polygon": square(left, 4, right, 5)}
    assert plan_of(doc, F(**firer), T(10, **target), terrain=(smoke,)).smoke_from == ("smoke",)
    wall = {"id": "wall", "kind": "heavy", "polygon": square(left, "9.5", right, "9.9")}
    assert plan_of(doc, F(**firer), T(10, **target), terrain=(wall,)).cover == "heavy"


def test_tied_lines_with_nothing_at_the_middle_take_the_firers_left_DC_7_3(doc):
    """DC-7.3: F's one narrow stand (front x 1.25..1.75) sits under the gap between two skirmish stands
    (x -0.75..0.75 and 2.25..3.75): two lines tie, 1.0 and 2.0 across by their midpoints, equally far from
    the middle 1.5; the one on the firer's left is taken."""
    p = plan_of(doc, unit("F", "blue", ("1.5", 0), 0, stands=1, stand_width="0.5"),
                T(10, stands=3, formation="skirmish"))
    assert p.line_of_fire == ((Fraction(5, 4), 0), (Fraction(3, 4), 10))
    assert _tie_notes(p)


def test_a_single_shortest_line_is_not_a_tie_DC_7_3(doc):
    """DC-7.3: no note when one segment alone is shortest (a corner to a corner)."""
    p = plan_of(doc, F(stands=1), T(8, x=9, stands=1))
    assert p.line_of_fire == ((Fraction(3, 4), 0), (Fraction(33, 4), 8))
    assert _tie_notes(p) == [] and p.details()["line_of_fire_tied"] is False


def test_the_tie_is_said_in_check_and_in_the_log_DC_7_3(doc):
    """DC-7.3: "the check says that others tied": the plan's note, and the resolve log, cite DC-7.3."""
    p = plan_of(doc, F(), T(10, stands=3, formation="skirmish"))
    r = doc.resolve(p, ScriptedSource([1] * 4))
    assert "DC-7.3" in [line.clause for line in r.log]


# -- DC-8 the volley in order ----------------------------------------------------------------------
def test_dc_8_1_the_volley_in_order(doc):
    """DC-8.1: check, to hit, saves, casualties, suppression, gunsmoke; each step logged with its clause."""
    wall = {"id": "wall", "kind": "heavy", "polygon": square(-5, "9.5", 5, 10)}
    p = plan_of(doc, F(), T(10), terrain=(wall,))
    r = doc.resolve(p, EnteredSource({"hit": [6, 5, 4, 1], "save": [1, 2, 3], "discipline": [1, 1]}))
    assert [line.clause for line in r.log] == ["DC-2.3", "DC-2.4", "DC-7.3", "DC-3.2", "DC-4.2", "DC-3.1", "DC-3.4",
                                               "DC-4.1", "DC-4.3", "DC-5.1", "DC-5.2", "DC-7.1"]
    assert r.outcome == DressOutcome(hits=3, unsaved_hits=3, stands_lost=1, suppression=True, disorder=True,
                                     target_stands=3, micro_hits=1, destroyed=False)


def test_planning_steps_are_in_the_resolve_log_DC_8_1(doc):
    """DC-8.1: the log names each step's clause, the planning steps too: target (DC-2.3), range (DC-2.4),
    target number (DC-3.2), cover (DC-4.2), modifiers (DC-7.2, DC-3.3), as the check shows them."""
    smoke = {"id": "smoke", "kind": "gunsmoke", "polygon": square(2, 4, 6, 5)}
    p = plan_of(doc, F(disordered=True), T(10, x=7), terrain=(smoke,))  # corner to corner: one line, no DC-7.3
    r = doc.resolve(p, ScriptedSource([1] * 4))
    clauses = [line.clause for line in r.log]
    assert clauses[:6] == ["DC-2.3", "DC-2.4", "DC-3.2", "DC-4.2", "DC-7.2", "DC-3.3"]
    assert [(line.clause, line.text) for line in r.log[:6]] == (
        [(n.clause, n.text) for n in p.notes] + [(m.clause, str(m).rsplit(" [", 1)[0]) for m in p.modifiers])
    assert "-1 firer is disordered" in [line.text for line in r.log]


def test_the_log_says_1_die_and_1_hit_not_1_dice(doc):
    """DC-8.1 log lines count in the singular for one: "1 die", "1 hit", "1 stand", never "1 dice"."""
    wall = {"id": "wall", "kind": "heavy", "polygon": square(-5, "9.5", 5, 10)}
    p = plan_of(doc, F(stands=1), T(10, stands=2, micro_hits=1), terrain=(wall,))
    r = doc.resolve(p, EnteredSource({"hit": [5], "save": [3]}))
    text = "\n".join(line.text for line in r.log)
    assert not re.search(r"\b1 (dice|hits|stands|saves|unsaved hits|micro-hits)\b", text), text
    for said in ("fires 1 die (1 stand)", ": 1 hit", "1 unsaved hit + 1 micro-hit: 1 stand lost, 1 left"):
        assert said in text


def test_illegal_attack_raises_with_clause(doc):
    """A refused attack raises IllegalAttackError carrying the clause (DC-2.4)."""
    with pytest.raises(IllegalAttackError, match=r"DC-2\.4"):
        doc.plan(dc_battle(F(), T(25)), Attack("F", "T"))
