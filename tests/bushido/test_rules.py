"""Bushido, clause by clause (../shared/rules/bushido.md): eligibility, sight, zones of control, contact,
range bands, cover, modifiers and redirection.

The standard set-up: shooter S (side "prefecture", 30 mm, RCP 3, a bow 6/12/18) at the origin; target T
(side "ito", 40 mm) up the table. A 30 mm base has radius 75/127 in and a 40 mm base 100/127 in, so the
centres of S and T are d + 175/127 apart when their edges are d apart.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rangefire.core import Attack, ChoiceError, IllegalAttackError, ScenarioError
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.rulesets.bushido.table import in_contact, in_zone, sight

BU = find_ruleset("bushido")
R30, R40, R50 = Fraction(75, 127), Fraction(100, 127), Fraction(125, 127)
BOW = {"name": "bow", "short": 6, "medium": 12, "long": 18}


def fr(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def model(uid: str, side: str, pos: Any, base: int = 40, **kw: Any) -> dict[str, Any]:
    kw.setdefault("wounds", {"boxes": 5})
    return {"id": uid, "side": side, "position": [p if isinstance(p, int | float) else fr(p) for p in pos],
            "base": base, **kw}


def S(**kw: Any) -> dict[str, Any]:
    kw.setdefault("rcp", 3)
    kw.setdefault("weapon", BOW)
    return model("S", "prefecture", (0, 0), 30, **kw)


def T(edge: Any = 8, x: Any = 0, base: int = 40, **kw: Any) -> dict[str, Any]:
    r = {30: R30, 40: R40, 50: R50, 60: Fraction(150, 127)}[base]
    return model("T", "ito", (x, Fraction(edge) + R30 + r), base, **kw)


def battle(*units: dict[str, Any], terrain: tuple[Any, ...] = (), **kw: Any) -> Any:
    data = {"ruleset": "bushido", "units": list(units), "terrain": list(terrain), **kw}
    return battle_from_mapping(data)[1]


def piece(pid: str, kind: str, *points: tuple[Any, Any]) -> dict[str, Any]:
    return {"id": pid, "kind": kind, "polygon": [list(p) for p in points]}


def box(pid: str, kind: str, x0: Any, y0: Any, x1: Any, y1: Any) -> dict[str, Any]:
    return piece(pid, kind, (x0, y0), (x1, y0), (x1, y1), (x0, y1))


def check(b: Any, attacker: str = "S", target: str = "T", **choices: Any) -> Any:
    return BU.check(b, Attack(attacker, target, tuple(choices.items())))


def clauses(c: Any) -> list[str]:
    return [r.clause for r in c.refusals]


# -- BU-1 models and the table --------------------------------------------------------------------------------
def test_model_fields_and_states_bu_1_1():
    """BU-1.1: a model's id, owner, position, base, RCP (may be absent), wound track, weapon, states, traits."""
    b = battle(S(states=["aimed", "moved"], traits=["Ranged Expert"]), T(), model("U", "ito", (5, 5)))
    s, u = b.unit("S"), b.unit("U")
    assert s.rcp == 3 and u.rcp is None and s.states == ("aimed", "moved") and s.traits == ("Ranged Expert",)
    with pytest.raises(ScenarioError, match=r"units\[0\]\.states\[0\]"):
        battle(S(states=["hidden"]), T())


@pytest.mark.parametrize(("base", "pool"), [(30, 4), (40, 3), (50, 2), (60, 2)])
def test_size_from_the_base_bu_1_2(base, pool):
    """BU-1.2 (with BU-5.4): 30 mm Small +1 defence die, 40 mm Medium none, 50 and 60 mm Large -1 (long band: 3)."""
    plan = check(battle(S(), T(14, base=base))).plan
    assert plan.band == "long" and plan.defense_pool == pool


def test_weapon_bounds_wound_modifier_and_ammo_bu_1_3():
    """BU-1.3: three range bounds (in order), a wound modifier, optional Ammo; no weapon, no attack."""
    plan = check(battle(S(weapon={**BOW, "wound_modifier": 2, "ammo": 3}), T(armour=1))).plan
    assert plan.wound_roll_modifier == 1 and plan.ammo_before == 3
    assert clauses(check(battle(S(weapon=None), T()))) == ["BU-1.3"]
    with pytest.raises(ScenarioError, match=r"units\[0\]\.weapon: .*must not decrease"):
        battle(S(weapon={**BOW, "medium": 20}), T())


def test_terrain_kinds_bu_1_4():
    """BU-1.4: solid blocks sight; obscuring is seen into up to 3 in; clear changes nothing."""
    wide = (-5, 4, 5, 4.5)
    assert check(battle(S(), T(), terrain=(box("w", "solid", *wide),))).refusals[0].clause == "BU-3.2"
    assert check(battle(S(), T(), terrain=(box("w", "obscuring", *wide),))).is_legal
    assert check(battle(S(), T(), terrain=(box("w", "clear", -5, 1, 5, 7),))).is_legal
    with pytest.raises(ScenarioError, match=r"terrain\[0\]\.kind"):
        battle(S(), T(), terrain=(box("w", "woods", *wide),))


def test_distances_are_edge_to_edge_bu_1_5():
    """BU-1.5: exactly 6 in between the base edges is short range; a hair more is medium."""
    assert check(battle(S(), T(6))).plan.band == "short"
    assert check(battle(S(), T(Fraction(6000001, 1000000)))).plan.band == "medium"
    # on a diagonal too: 3-4-5 between centres, less both radii
    b = battle(S(), model("T", "ito", (3 * (6 + R30 + R40) / 5, 4 * (6 + R30 + R40) / 5)))
    assert check(b).plan.band == "short"


# -- BU-2 sight, zones of control, contact ----------------------------------------------------------------
def test_some_segment_is_enough_bu_2_1():
    """BU-2.1: a wall hiding the centre line but not the whole base still leaves sight; a wider one blocks it;
    obscuring terrain is seen through up to 3 in (exactly 3 in included); models do not block."""
    half = box("wall", "solid", -0.3, 4, 0.3, 4.2)
    assert check(battle(S(), T(), terrain=(half,))).is_legal
    assert not sight(battle(S(), T(), terrain=(box("wall", "solid", -2, 4, 2, 4.2),)), *_st()).is_clear
    exactly_three = box("mist", "obscuring", -20, 2, 20, 5)
    b = battle(S(), T(), terrain=(exactly_three,))
    seen = sight(b, b.unit("S"), b.unit("T"))
    assert seen.is_clear and seen.line is not None and seen.line.obscured2 == 9
    deeper = box("mist", "obscuring", -20, 2, 20, Fraction(5001, 1000))
    b = battle(S(), T(), terrain=(deeper,))
    seen = sight(b, b.unit("S"), b.unit("T"))
    assert not seen.is_clear and seen.too_deep == ("mist",)
    between = model("M", "ito", (0, 4), 60)
    assert check(battle(S(), T(), between)).is_legal


def _st() -> tuple[Any, Any]:
    b = battle(S(), T())
    return b.unit("S"), b.unit("T")


def test_sight_is_symmetric_bu_2_1():
    """BU-2.1: the same family of segments is judged both ways."""
    terrain = (box("rock", "solid", -1, 3, 0.1, 3.5), box("wood", "obscuring", -3, 6, 0.4, 8.7))
    b = battle(S(), T(x=1), terrain=terrain)
    s, t = b.unit("S"), b.unit("T")
    assert sight(b, s, t).is_clear == sight(b, t, s).is_clear


def test_a_wall_of_two_abutting_pieces_blocks_along_their_shared_edge_bu_2_5():
    """BU-2.5: a wall across the table built of two solid pieces that abut on the centre line: the centre line
    runs along their shared edge, inside neither, yet the two cover it on both sides: no line of sight (as one
    wall), and the refusal names both pieces."""
    wall = (box("west", "solid", -5, 4, 0, Fraction(21, 5)), box("east", "solid", 0, 4, 5, Fraction(21, 5)))
    b = battle(S(), T(), terrain=wall)
    seen = sight(b, b.unit("S"), b.unit("T"))
    assert not seen.is_clear and seen.blocked_by == ("east", "west")
    refused = check(b)
    assert clauses(refused) == ["BU-3.2"] and "solid east, west" in refused.refusals[0].reason


def test_obscuring_depth_is_measured_on_the_union_of_the_pieces_bu_2_6():
    """BU-2.6: two pieces of mist overlap (2 to 4.5 in and 3.5 to 5.5 in up the table): 3.5 in of the union, too
    deep, though neither alone is; and two pieces abutting along the centre line are 4 in deep along it."""
    overlapping = (box("low", "obscuring", -20, 2, 20, Fraction(9, 2)),
                   box("high", "obscuring", -20, Fraction(7, 2), 20, Fraction(11, 2)))
    b = battle(S(), T(), terrain=overlapping)
    seen = sight(b, b.unit("S"), b.unit("T"))
    assert not seen.is_clear and seen.too_deep == ("high", "low")
    for single in overlapping:
        assert sight(battle(S(), T(), terrain=(single,)), *_st()).is_clear
    abutting = (box("west", "obscuring", -20, 2, 0, 6), box("east", "obscuring", 0, 2, 20, 6))
    b = battle(S(), T(), terrain=abutting)
    assert not sight(b, b.unit("S"), b.unit("T")).is_clear


def test_zone_of_control_reaches_one_inch_exactly_not_a_hair_more_bu_2_2():
    """BU-2.2: an enemy exactly 1 in away holds the shooter in its zone; 1 in + 10^-10 in does not (decided
    exactly: a rim point may miss the zone's edge by 10^-9 in, so only the exact gate keeps this one out); nor
    does an enemy it cannot see."""
    for edge, inside in ((1, True), (1 + Fraction(1, 10**10), False), (Fraction(1001, 1000), False)):
        b = battle(S(), T(12), model("E", "ito", (edge + R30 + R40, 0)))
        assert in_zone(b, b.unit("E"), b.unit("S")) is inside
        assert ("BU-3.3" in clauses(check(b))) is inside
    walled = battle(S(), T(12), model("E", "ito", (Fraction(1, 2) + R30 + R40, 0)),
                    terrain=(box("screen", "solid", Fraction(7, 10), -2, Fraction(8, 10), 2),))
    assert not in_zone(walled, walled.unit("E"), walled.unit("S"))
    assert check(walled).is_legal


def test_base_contact_bu_2_3():
    """BU-2.3: bases touch at edge distance 0 exactly; an enemy in contact forbids shooting (BU-3.3)."""
    b = battle(S(), T(12), model("E", "ito", (R30 + R40, 0)))
    assert in_contact(b.unit("S"), b.unit("E"))
    assert clauses(check(b)) == ["BU-3.3"]
    assert "base contact" in check(b).refusals[0].reason
    with pytest.raises(ScenarioError, match="overlaps"):
        battle(S(), T(12), model("E", "ito", (R30 + R40 - Fraction(1, 100), 0)))


# -- BU-3 who may shoot, and at whom -------------------------------------------------------------------------
def test_only_a_model_with_an_rcp_bu_3_1():
    """BU-3.1: no RCP, no ranged attack; and only the active side's models shoot, refused under BU-8.3."""
    refused = check(battle(S(rcp=None), T()))
    assert clauses(refused) == ["BU-3.1"] and "no RCP" in refused.refusals[0].reason
    assert clauses(check(battle(S(), T(), active_side="ito"))) == ["BU-8.3"]
    assert check(battle(S(), T(), active_side="prefecture")).is_legal


def test_target_must_be_an_enemy_in_sight_bu_3_2():
    """BU-3.2: a friend is no target; an enemy out of sight is none either."""
    b = battle(S(), T(), model("F", "prefecture", (3, 3)))
    assert clauses(check(b, target="F")) == ["BU-3.2"]
    hidden = battle(S(), T(), terrain=(box("house", "solid", -3, 3, 3, 6),))
    refused = check(hidden)
    assert clauses(refused) == ["BU-3.2"] and "house" in refused.refusals[0].reason


def test_not_in_a_zone_of_control_nor_in_contact_bu_3_3():
    """BU-3.3: both conditions are refusals naming the enemy."""
    b = battle(S(), T(12), model("E", "ito", (Fraction(1, 2) + R30 + R40, 0)))
    refused = check(b)
    assert clauses(refused) == ["BU-3.3"] and "E" in refused.refusals[0].reason
    assert "zone of control" in refused.refusals[0].reason


def test_within_long_range_bu_3_4():
    """BU-3.4: 18 in exactly is long range; beyond it the attack cannot be declared."""
    assert check(battle(S(), T(18))).plan.band == "long"
    refused = check(battle(S(), T(Fraction(18001, 1000))))
    assert clauses(refused) == ["BU-3.4"] and "long range" in refused.refusals[0].reason


def test_no_ammo_no_shot_bu_3_5():
    """BU-3.5: Ammo 0 cannot fire; no Ammo trait is unlimited."""
    assert clauses(check(battle(S(weapon={**BOW, "ammo": 0}), T()))) == ["BU-3.5"]
    assert check(battle(S(weapon={**BOW, "ammo": 1}), T())).is_legal
    assert check(battle(S(), T())).plan.ammo_before is None


# -- BU-5 dice ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("edge", "band", "dice"), [(6, "short", 1), (12, "medium", 2), (18, "long", 3),
                                                    (Fraction(601, 100), "medium", 2)])
def test_range_bands_give_defence_dice_bu_5_1(edge, band, dice):
    """BU-5.1: up to short (inclusive) 1 die, up to medium 2, up to long 3 (a Medium target, no modifiers)."""
    plan = check(battle(S(), T(edge))).plan
    assert (plan.band, plan.defense_pool) == (band, dice)


def test_attack_dice_are_the_rcp_bu_5_2():
    """BU-5.2: the attack pool is the RCP, with no split."""
    for rcp in (1, 4, 7):
        assert check(battle(S(rcp=rcp), T())).plan.attack_dice == rcp


@pytest.mark.parametrize(("states", "delta"), [(["aimed"], 1), (["ran"], -1), (["moved"], -1), (["will_move"], -1),
                                               (["moved", "will_move"], -1), (["aimed", "ran", "moved"], -1)])
def test_attacker_modifiers_bu_5_3(states, delta):
    """BU-5.3: aimed +1, ran -1, has moved or will move -1 (once)."""
    plan = check(battle(S(rcp=4, states=states), T())).plan
    assert plan.attack_pool == 4 + delta
    assert all(m.clause == "BU-5.3" for m in plan.modifiers)


def test_cover_costs_the_attacker_a_die_bu_5_3_and_bu_5_7():
    """BU-5.3, BU-5.7: obscuring terrain within 1 in of the target's base on every line gives cover (-1 attack
    die); 1 in exactly still does; farther, or with a line that avoids it, it does not."""
    t_edge = 8 + R30  # y of the target's near edge (S's far edge is at R30)
    for gap, covered in ((Fraction(1, 2), True), (Fraction(3, 2), False)):
        hedge = box("hedge", "obscuring", -4, t_edge - gap - 1, 4, t_edge - gap)
        plan = check(battle(S(), T(), terrain=(hedge,))).plan
        assert plan.in_cover is covered, gap
        assert plan.attack_pool == 3 - covered
        assert any("in cover (hedge)" in m.reason and m.delta == -1 for m in plan.modifiers) is covered
        assert plan.cover_by == (("hedge",) if covered else ())
    narrow = box("bush", "obscuring", -Fraction(1, 5), t_edge - 1, Fraction(1, 5), t_edge - Fraction(1, 2))
    assert not check(battle(S(), T(), terrain=(narrow,))).plan.in_cover  # a line passes beside it


@pytest.mark.parametrize(("states", "base", "delta"), [
    (["prone"], 40, -1), (["ran"], 40, -1), (["surprised"], 40, -1), ([], 50, -1), ([], 30, 1),
    (["prone", "ran", "surprised"], 60, -4), (["prone"], 30, 0)])
def test_defender_modifiers_stack_bu_5_4_and_bu_5_5(states, base, delta):
    """BU-5.4 and BU-5.5: prone, ran, surprised -1 each; Large -1; Small +1; all stack."""
    plan = check(battle(S(), T(14, base=base, states=states))).plan
    assert plan.defense_pool == 3 + delta


def test_ran_and_moved_take_two_bu_5_5():
    """BU-5.5: modifiers change the number of dice and stack: a model that ran and moved takes -2."""
    plan = check(battle(S(rcp=5, states=["ran", "moved"]), T())).plan
    assert plan.attack_pool == 3 and plan.attack_dice == 3


def test_zero_pool_in_a_plan_bu_5_6():
    """BU-5.6: RCP 1, ran and moved: pool -1 rolls 1 die and the defender gains 2."""
    plan = check(battle(S(rcp=1, states=["ran", "moved"]), T())).plan
    assert (plan.attack_pool, plan.attack_dice, plan.defense_pool, plan.defense_dice) == (-1, 1, 2, 4)
    assert any(m.clause == "BU-5.6" and m.delta == 2 for m in plan.modifiers)


# -- BU-4 redirection -----------------------------------------------------------------------------------------
def guard(x: Any = 0, y: Any = 5, **kw: Any) -> dict[str, Any]:
    return model("G", "ito", (x, y), 40, **kw)


def test_nominees_listed_bu_4_2():
    """BU-4.2: a model of the target's player whose base the line crosses, and who sees the shooter, may be
    nominated; odds are given for it; the shooter's own side may not be."""
    b = battle(S(), T(), guard(), model("F", "prefecture", (0, Fraction(5, 2)), 30))
    plan = check(b).plan
    assert [(n.id, n.crosses) for n in plan.nominees] == [("G", "base")]
    assert any(n.clause == "BU-4.2" and "may nominate G instead" in n.text for n in plan.notes)
    odds = BU.odds(plan).to_dict()
    assert set(odds["nominations"]) == {"G"}
    assert odds["nominations"]["G"]["events"]["hit"] != odds["events"]["hit"]  # closer: fewer defence dice
    refused = check(b, redirect_to="F")
    assert clauses(refused) == ["BU-4.2"] and "not one of ito's models" in refused.refusals[0].reason


def test_nominee_through_its_zone_of_control_bu_4_2():
    """BU-4.2: the line passes 1.5 in from G's centre: outside its base, inside its zone, which G sees; a wall
    between G and the line takes the zone away (G still sees the shooter)."""
    b = battle(S(), T(12), guard(Fraction(3, 2), 7))
    assert [(n.id, n.crosses) for n in check(b).plan.nominees] == [("G", "zone of control")]
    screened = battle(S(), T(12), guard(Fraction(3, 2), 7),
                      terrain=(box("screen", "solid", Fraction(3, 10), 5, Fraction(35, 100), 9),))
    assert check(screened).plan.nominees == ()
    refused = check(screened, redirect_to="G")
    assert clauses(refused) == ["BU-4.2"] and "zone of control" in refused.refusals[0].reason


def test_nominee_must_see_the_shooter_bu_4_2():
    """BU-4.2 (2): the line crosses G's base, but a wall hides the shooter from G."""
    walls = (box("w1", "solid", -3, Fraction(47, 10), -0.9, Fraction(49, 10)),
             box("w2", "solid", 0.9, Fraction(47, 10), 3, Fraction(49, 10)))
    # G sits between two walls, the shooter sees T between them; G's sight to S is checked from G's whole base
    b = battle(S(), T(12), guard(0, 6), terrain=walls)
    assert [n.id for n in check(b).plan.nominees] == ["G"]  # the gap lets G see S
    # G's zone reaches the centre line and G sees it there, but a slab below G hides the shooter from it
    slab = box("slab", "solid", Fraction(1, 5), Fraction(11, 2), 3, Fraction(29, 5))
    hidden = battle(S(), T(12), guard(Fraction(3, 2), 7), terrain=(slab,))
    assert not sight(hidden, hidden.unit("G"), hidden.unit("S")).is_clear
    assert check(hidden).is_legal and check(hidden).plan.nominees == ()
    refused = check(hidden, redirect_to="G")
    assert clauses(refused) == ["BU-4.2"] and "no line of sight to S" in refused.refusals[0].reason


def test_touching_a_base_is_not_crossing_it_bu_4_4():
    """BU-4.4: a centre line that only grazes G's base does not cross the base; it still runs through the ring
    of G's zone of control beside the base (points 1 in from the base edge and nearer), which G sees."""
    tangent = battle(S(), T(12), guard(R40, 7))
    assert [(n.id, n.crosses) for n in check(tangent).plan.nominees] == [("G", "zone of control")]
    inside = battle(S(), T(12), guard(R40 - Fraction(1, 10**10), 7))  # a hair nearer: the line enters the base
    assert [(n.id, n.crosses) for n in check(inside).plan.nominees] == [("G", "base")]


def test_touching_the_edge_of_a_zone_of_control_is_not_crossing_it_bu_4_4():
    """BU-4.4: a centre line exactly 1 in from G's base edge only touches its zone of control: G may not be
    nominated, and a nomination of G is refused; a hair nearer, the line crosses the zone."""
    touching = battle(S(), T(12), guard(R40 + 1, 7))
    assert check(touching).plan.nominees == ()
    refused = check(touching, redirect_to="G")
    assert clauses(refused) == ["BU-4.2"] and "crosses neither its base nor a zone of control" in \
        refused.refusals[0].reason
    crossing = battle(S(), T(12), guard(R40 + 1 - Fraction(1, 10**10), 7))
    assert [(n.id, n.crosses) for n in check(crossing).plan.nominees] == [("G", "zone of control")]
    # the line's end (the target's centre) exactly on the zone's edge, the line running away from it: touching
    end = battle(S(), T(12), model("G", "ito", (0, 12 + R30 + R40 + R40 + 1), 40))
    assert check(end).plan.nominees == ()


def test_centre_line_only_one_swap_and_range_again_bu_4_3():
    """BU-4.3: the centre line decides (a base beside it but clear of it and its zone does not qualify); one
    swap only; range is measured again and beyond long range the attack fails with the Ammo spent."""
    beside = battle(S(), T(12), guard(Fraction(5, 2), 7))
    assert check(beside).plan.nominees == ()
    b = battle(S(weapon={**BOW, "ammo": 2}), T(12), guard(0, 6))
    swapped = check(b, redirect_to="G").plan
    assert swapped.redirected and swapped.target == "G" and swapped.declared_target == "T"
    assert swapped.alternatives == () and "nominations" not in BU.odds(swapped).to_dict()
    assert swapped.band == "short" and swapped.defense_pool == 1
    # the guard stands beside and behind a target near long range; its zone of control reaches the line's end,
    # but it is itself beyond long range: the attack fails, the Ammo is gone
    far = battle(S(weapon={**BOW, "ammo": 2}), T(Fraction(179, 10)), guard(1, Fraction(41, 2)))
    assert [n.crosses for n in check(far).plan.nominees] == ["zone of control"]
    plan = check(far, redirect_to="G").plan
    assert plan.fails and BU.odds(plan).events["hit"] == 0
    resolution, after = BU.play(far, Attack("S", "T", (("redirect_to", "G"),)), _NoDice())
    assert resolution.outcome.fails and resolution.dice == {}
    assert after.unit("S").weapon.ammo == 1 and after.unit("G").wounds.marked == 0
    assert any(line.clause == "BU-4.3" for line in resolution.log)
    # a house rule's long-range defense dice are not said for an attack that rolls none [BU-4.3, BU-5.1]
    ruled = battle(S(weapon={**BOW, "ammo": 2}), T(Fraction(179, 10)), guard(1, Fraction(41, 2)),
                   options={"defense_dice": {"long": 2}})
    assert check(ruled).plan.band == "long" and any(n.clause == "BU-5.1" for n in check(ruled).plan.notes)
    failed = check(ruled, redirect_to="G").plan
    assert failed.fails and not any(n.clause == "BU-5.1" for n in failed.notes)


class _NoDice:
    """A source that fails if a die is asked for."""

    def roll(self, stage: str, count: int, sides: int = 6) -> tuple[int, ...]:
        raise AssertionError(f"no dice expected, {stage} asked for {count}")

    def choose(self, stage: str, options: Any, what: str = "value") -> int:
        raise AssertionError("no choice expected")

    def finish(self) -> None:
        pass


def test_redirect_refusals_leave_nothing_spent_bu_4_2():
    """BU-4.2: a redirect to the declared target itself is refused, one to an unknown model is bad input; nothing
    is spent either way."""
    b = battle(S(weapon={**BOW, "ammo": 2}), T(12), guard(0, 6))
    assert clauses(check(b, redirect_to="T")) == ["BU-4.2"]
    with pytest.raises(ChoiceError, match="redirect_to 'nobody' is not in this battle"):
        check(b, redirect_to="nobody")
    with pytest.raises(IllegalAttackError):
        BU.play(b, Attack("S", "T", (("redirect_to", "T"),)), _NoDice())
    assert b.unit("S").weapon.ammo == 2


# -- robustness: random tables ----------------------------------------------------------------------------------
quarter = st.integers(-48, 48).map(lambda n: Fraction(n, 4))


@settings(max_examples=60, deadline=None)
@given(spots=st.lists(st.tuples(quarter, quarter, st.sampled_from([30, 40, 50, 60])), min_size=2, max_size=5,
                      unique_by=lambda t: (t[0], t[1])),
       blocks=st.lists(st.tuples(st.sampled_from(["solid", "obscuring", "clear"]), quarter, quarter,
                                 st.integers(1, 16), st.integers(1, 16)), max_size=4),
       dx=st.integers(-30, 30), dy=st.integers(-30, 30))
def test_every_pair_of_a_random_table_is_checked_by_clause_bu_2_1(spots, blocks, dx, dy):
    """Any table: every pair gets a plan or refusals citing BU clauses, the odds sum to 1, and moving the whole
    table changes no verdict (BU-2.1 to BU-5.7 depend on relative positions only)."""
    from hypothesis import assume

    def table(shift_x: int, shift_y: int) -> Any:
        units = [model(f"m{i}", "a" if i % 2 == 0 else "b", (x + shift_x, y + shift_y), base,
                       rcp=2, weapon=BOW) for i, (x, y, base) in enumerate(spots)]
        terrain = tuple(box(f"t{j}", kind, x + shift_x, y + shift_y, x + shift_x + Fraction(w, 4),
                            y + shift_y + Fraction(h, 4)) for j, (kind, x, y, w, h) in enumerate(blocks))
        try:
            return battle(*units, terrain=terrain)
        except ScenarioError:
            return None  # overlapping bases: refused on reading [BU-2.3]

    here, there = table(0, 0), table(dx, dy)
    assume(here is not None)
    assert there is not None
    for u in here.units:
        for v in here.units:
            if u.id == v.id:
                continue
            c1, c2 = check(here, u.id, v.id), check(there, u.id, v.id)
            assert c1.is_legal == c2.is_legal and clauses(c1) == clauses(c2)
            assert all(c.startswith("BU-") for c in clauses(c1))
            if c1.plan is not None:
                assert (c1.plan.attack_dice, c1.plan.defense_dice, c1.plan.in_cover, c1.plan.band) == \
                    (c2.plan.attack_dice, c2.plan.defense_dice, c2.plan.in_cover, c2.plan.band)
                assert [n.id for n in c1.plan.nominees] == [n.id for n in c2.plan.nominees]
                odds = BU.odds(c1.plan)
                assert sum(odds.outcomes["wounds"].probabilities().values()) == 1


# -- bad input: checks on the raw file run before validation ----------------------------------------------------
ODD_VALUES = [["ito"], [30, 40], {"a": 1}, {}, [], None, True, 30.0, "30", 10**30, [[1, 2]], "12", {"x": 0, "y": 0}]


@pytest.mark.parametrize("value", ODD_VALUES, ids=repr)
@pytest.mark.parametrize("key", ["side", "base", "position", "id"])
def test_side_or_base_as_a_list_or_mapping_is_a_scenario_error_with_its_path(key, value):
    """A model's side, base, position or id of any type: the file is refused with the path, never a TypeError
    from the checks that run on the raw file before validation (overlapping bases, the active side, ids)."""
    units = [S(), T(), model("U", "ito", (5, 5))]
    units[2][key] = value
    if (isinstance(value, str) and key in ("side", "id")) or (key, value) in (("base", 30.0), ("position", [30, 40])):
        assert battle(*units, active_side="prefecture").units[2]  # any text is a valid side or id; 30.0 is 30
    else:
        with pytest.raises(ScenarioError, match=re.escape(f"units[2].{key}")):
            battle(*units, active_side="prefecture")


@pytest.mark.parametrize("value", ODD_VALUES, ids=repr)
@pytest.mark.parametrize("key", ["units", "terrain", "active_side", "options", "name"])
def test_top_level_keys_of_any_type_are_scenario_errors(key, value):
    """Top-level sections of any type: a clean error naming the key, never a traceback."""
    data = {"ruleset": "bushido", "units": [S(), T()], "terrain": [], key: value}
    try:
        battle_from_mapping(data)
    except ScenarioError as exc:
        assert key in str(exc)


@pytest.mark.parametrize("value", ODD_VALUES, ids=repr)
def test_terrain_and_positions_of_any_type_are_scenario_errors(value):
    """A terrain piece, a polygon, a vertex, a coordinate or a whole model of any type: a clean error."""
    for where, data in (
            ("terrain[0]", {"terrain": [value]}),
            ("terrain[0].polygon", {"terrain": [{"id": "w", "kind": "solid", "polygon": value}]}),
            ("terrain[0].polygon[0]", {"terrain": [{"id": "w", "kind": "solid", "polygon": [value, [0, 0], [1, 1]]}]}),
            ("units[1].position", {"units": [S(), {**T(), "position": [value, 0]}]}),
            ("units[1]", {"units": [S(), value]})):
        try:
            battle_from_mapping({"ruleset": "bushido", "units": [S(), T()], **data})
        except ScenarioError as exc:
            assert where.split("[")[0] in str(exc)


def test_a_base_written_30_0_is_still_checked_for_overlap_bu_2_3():
    """BU-2.3: validation reads base 30.0 as 30, so the overlap check on the raw file must read it too."""
    with pytest.raises(ScenarioError, match=r"units\[1\]\.position: its base overlaps"):
        battle(model("S", "prefecture", (0, 0), 30.0), model("E", "ito", (R30, 0), 30.0))


@pytest.mark.parametrize("value", [*ODD_VALUES, "00", {"0": 1, "1": 2}], ids=repr)
@pytest.mark.parametrize("key", ["side", "base", "position", "id"])
def test_raw_checks_take_values_of_any_type(key, value):
    """The checks on the raw file (bases overlapping [BU-2.3], the active side, ids used twice) run before
    validation, so they meet values of every type: they must neither raise nor read a malformed value as a
    valid one ("00" is no position at the origin, overlapping S), leaving validation to name it."""
    units = [S(), T(), model("U", "ito", (5, 5))]
    units[2][key] = value
    problems = BU.raw_problems({"ruleset": "bushido", "units": units, "active_side": "prefecture"})
    assert problems == []
