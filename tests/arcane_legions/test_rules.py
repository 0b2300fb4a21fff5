"""Arcane Legions, clause by clause (../shared/rules/arcane-legions.md).

The standard set-up: archer sortie A (side "red") at the origin facing +y, front blue; target T (side "blue")
a sortie facing back at it, d steps up the table. Their front notches are then d - 1 steps apart.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from rangefire.core import Attack, EnteredSource, RangefireError, ScenarioError
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.rulesets.arcane_legions.table import base_of, is_adjacent

AL = find_ruleset("arcane-legions")
BLUE = {"icons": ["blue"]}
WHITE = {"icons": ["white"]}


def unit(uid: str, side: str, pos: Any, facing: Any = 0, base: str = "sortie", slots: Any = None,
         colours: tuple[str, str, str, str] = ("blue", "grey", "grey", "grey"), **kw: Any) -> dict[str, Any]:
    return {"id": uid, "side": side, "base": base, "position": list(pos), "facing": facing,
            "sides": dict(zip(("front", "right", "back", "left"), colours, strict=True)),
            "slots": slots if slots is not None else [BLUE, BLUE, BLUE], **kw}


def A(**kw: Any) -> dict[str, Any]:
    return unit("A", "red", (0, 0), 0, **kw)


def T(d: Any = 4, x: Any = 0, **kw: Any) -> dict[str, Any]:
    kw.setdefault("slots", [WHITE, WHITE])
    kw.setdefault("colours", ("blue", "blue", "blue", "blue"))
    return unit("T", "blue", (x, d), 180, **kw)


def battle(*units: dict[str, Any], terrain: tuple[Any, ...] = (), points: int = 8, **options: Any) -> Any:
    data = {"ruleset": "arcane-legions", "players": {"red": {"order_points": points}, "blue": {"order_points": 8}},
            "units": list(units), "terrain": list(terrain)}
    if options:
        data["options"] = options
    return battle_from_mapping(data)[1]


def attack(target: str = "T", attacker: str = "A", **choices: Any) -> Attack:
    return Attack(attacker, target, tuple(choices.items()))


def plan_of(*units: Any, terrain: tuple[Any, ...] = (), target: str = "T", choices: Any = None, **options: Any) -> Any:
    return AL.plan(battle(*units, terrain=terrain, **options), attack(target, **(choices or {})))


def refused(*units: Any, terrain: tuple[Any, ...] = (), target: str = "T", choices: Any = None, points: int = 8,
            **options: Any) -> tuple[str, str]:
    checked = AL.check(battle(*units, terrain=terrain, points=points, **options), attack(target, **(choices or {})))
    assert not checked.is_legal, checked
    return checked.refusals[0].clause, checked.refusals[0].reason


def square(x0: Any, y0: Any, x1: Any, y1: Any) -> list[list[Any]]:
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


# -- AL-1 units and geometry -----------------------------------------------------------------------
def test_al_1_1_bases_and_facing():
    """AL-1.1: a sortie is 1 x 1, a formation 2 wide and 1 deep, placed by centre and facing."""
    b = battle(A(base="formation"), T())
    assert base_of(b.unit("A")).polygon.bbox() == (-1, Fraction(-1, 2), 1, Fraction(1, 2))
    east = battle(unit("A", "red", (0, 0), 90, base="formation"), T())
    assert base_of(east.unit("A")).polygon.bbox() == (Fraction(-1, 2), -1, Fraction(1, 2), 1)
    assert base_of(east.unit("A")).sides["front"].normal == (1, 0)


def test_al_1_2_side_colours():
    """AL-1.2: each side is blue, red or grey; the colour decides the dice (AL-5.3)."""
    with pytest.raises(ScenarioError, match=r"units\[0\]\.sides\.front"):
        battle(A(colours=("green", "grey", "grey", "grey")), T())
    assert plan_of(A(), T()).attack_dice == 3
    assert plan_of(A(colours=("red", "grey", "grey", "grey")), T()).attack_dice == 0


def test_al_1_3_range_is_measured_notch_to_notch():
    """AL-1.3: notches at the corners and mid-stretch; a base edge nearer than any notch does not count."""
    assert plan_of(A(), T(7)).distance2 == 36  # front notches exactly 6 apart
    clause, _ = refused(A(), T(7, x="0.25"))  # edges still 6 apart, but the nearest notches are not
    assert clause == "AL-3.1"
    assert [len(base_of(battle(A(base="formation"), T()).unit("A")).sides[s].notches)
            for s in ("front", "right")] == [5, 3]


def test_al_1_4_adjacency_needs_a_shared_stretch():
    """AL-1.4: sharing an edge stretch is adjacency; touching at a corner only is not (unless the option)."""
    b = battle(A(), unit("E", "blue", (1, 0), 0), unit("C", "blue", (1, 1), 0), T())
    assert is_adjacent(b.unit("A"), b.unit("E"))
    assert not is_adjacent(b.unit("A"), b.unit("C"))
    assert is_adjacent(b.unit("A"), b.unit("C"), corner_contact=True)
    assert refused(A(), unit("C", "blue", (1, 1), 0), T(), corner_contact_is_adjacent=True)[0] == "AL-2.1"
    assert AL.check(battle(A(), unit("C", "blue", (1, 1), 0), T()), attack()).is_legal


def test_al_1_5_only_occupied_slots_are_ready():
    """AL-1.5: the icons of empty slots are not ready."""
    slots = [BLUE, {"icons": ["blue", "blue"], "occupied": False}, {"icons": ["blue", "red"]}]
    assert plan_of(A(slots=slots), T()).attack_dice == 2


# -- AL-2 who may shoot ----------------------------------------------------------------------------
def test_al_2_1_adjacent_to_an_enemy_cannot_shoot():
    """AL-2.1: a unit adjacent to any enemy may not be given a ranged order."""
    clause, reason = refused(A(), unit("E", "blue", (-1, 0), 0), T())
    assert clause == "AL-2.1" and "E" in reason


def test_al_2_2_needs_a_ready_blue_icon():
    """AL-2.2: at least one ready blue icon."""
    assert refused(A(slots=[{"icons": ["red"]}, {"icons": ["blue"], "occupied": False}]), T())[0] == "AL-2.2"


def test_al_2_3_an_enemy_in_range_and_sight():
    """AL-2.3: the target must be an enemy, in range, with line of sight not blocked."""
    assert refused(A(), unit("F", "red", (0, 3), 180), T(), target="F")[0] == "AL-2.3"
    assert refused(A(), T(9))[0] == "AL-3.1"


# -- AL-3 range and the attacking sides ------------------------------------------------------------
def test_al_3_1_sides_can_be_named():
    """AL-3.1: the attacker chooses its side and the side attacked; a side name that does not exist (AL-1.1)
    is bad input, not a refusal."""
    p = plan_of(A(), T(), choices={"from_side": "front", "to_side": "front"})
    assert (p.from_side, p.to_side, p.chosen_by_engine) == ("front", "front", False)
    with pytest.raises(RangefireError, match="from_side: 'top' is not one of front, right, back, left"):
        AL.check(battle(A(), T()), attack(from_side="top"))


@pytest.mark.parametrize(("d", "legal"), [("7", True), ("7.01", False)])
def test_al_3_2_six_steps_inclusive_exactly(d, legal):
    """AL-3.2: 6.0 steps is in range, 6.01 is not."""
    assert AL.check(battle(A(), T(d)), attack()).is_legal is legal


def test_al_3_3_a_side_only_works_forwards():
    """AL-3.3: the other unit's notch must lie strictly outside the line through the chosen side."""
    clause, _ = refused(A(), T(), choices={"from_side": "back"})
    assert clause == "AL-3.3"
    # a target level with the front edge (its notch on the line) cannot be shot from the front side
    level = unit("T", "blue", (3, 0), 270, slots=[WHITE])
    assert plan_of(A(colours=("blue", "blue", "grey", "grey")), level).from_side == "right"


def test_al_3_4_the_engine_chooses_most_net_dice_then_shortest():
    """AL-3.4: the choice giving the attacker most dice net of the defender's, then the shortest; reported."""
    # T up and to the right, facing west: A's grey right side reaches it as near as the blue front does
    # (they share the corner notch), but the front gives 3 more dice; T's south (left) side is grey.
    diagonal = unit("T", "blue", (3, 3), 270, slots=[WHITE], colours=("blue", "blue", "blue", "grey"))
    p = plan_of(A(), diagonal)
    assert p.from_side == "front" and p.chosen_by_engine
    assert any(n.clause == "AL-3.4" for n in p.notes)
    # the engine attacks T's grey left side if it can see it: 3 fewer defense dice
    assert p.to_side == "left" and p.defense_dice == 0
    forced = plan_of(A(), diagonal, choices={"from_side": "right", "to_side": "front"})
    assert forced.attack_dice == 0


# -- AL-4 line of sight ----------------------------------------------------------------------------
def test_al_4_1_line_between_the_chosen_notches():
    """AL-4.1: the line of sight is the segment between the two chosen notches."""
    p = plan_of(A(), T(4), choices={"from_side": "front", "to_side": "front"})
    assert p.from_notch[1] == Fraction(1, 2) and p.to_notch[1] == Fraction(7, 2)
    assert p.from_notch[0] == p.to_notch[0]


def test_al_4_2_blocking_terrain_refuses():
    """AL-4.2: every line through blocking terrain: the attack may not be made."""
    wall = {"id": "wall", "kind": "blocking", "polygon": square(-5, 1.5, 5, 2)}
    clause, reason = refused(A(), T(4), terrain=(wall,))
    assert clause == "AL-4.2" and "wall" in reason


def test_al_4_3_each_unit_and_hindering_piece_once():
    """AL-4.3: -1 die for each unit and each hindering piece the line passes through, once each."""
    woods = {"id": "woods", "kind": "hindering", "polygon": square(-5, 1.5, 5, 2)}
    bystander = unit("P", "blue", (0, "2.5"), 0, base="formation", slots=[WHITE], colours=("grey",) * 4)
    p = plan_of(A(), T(5), bystander, terrain=(woods,))
    assert p.hindered_by == ("P", "woods") and p.attack_dice == 1
    assert [m.delta for m in p.modifiers if "hindrance" in m.reason] == [-2]


def test_al_4_4_touching_neither_blocks_nor_hinders_unless_the_option():
    """AL-4.4: a line that only touches a piece is reported as touching and costs nothing; with the option
    touching_hinders it hinders.

    At exactly 6 steps only the three straight lines between facing front notches are in range (x = -0.5, 0,
    0.5); a small triangle touches each of them at one vertex, and none crosses any.
    """
    spikes = tuple({"id": f"spike{i}", "kind": "hindering", "polygon": poly} for i, poly in enumerate([
        [[-0.5, 3], [-1.5, 2.5], [-1.5, 3.5]], [[0, 3], [0.2, 2.9], [0.2, 3.1]], [[0.5, 3], [1.5, 2.5], [1.5, 3.5]]]))
    p = plan_of(A(), T(7), terrain=spikes)
    assert (p.sight, p.hindered_by, p.attack_dice) == ("touching", (), 3)
    assert len(p.touching) == 1 and p.touching[0].startswith("spike")
    hindered = plan_of(A(), T(7), terrain=spikes, touching_hinders=True)
    assert hindered.attack_dice == 2 and len(hindered.hindered_by) == 1


def test_al_4_4_touching_a_corner_exactly():
    """AL-4.4: a piece whose corner lies exactly on the only line of sight touches it: no hindrance."""
    a = unit("A", "red", (0, 0), 0, slots=[BLUE, BLUE], colours=("blue", "grey", "grey", "grey"))
    t = unit("T", "blue", (0, 4), 180, slots=[WHITE], colours=("blue", "grey", "grey", "grey"))
    # the middle notches (0, 0.5) and (0, 3.5): a diamond touching x = 0 at (0, 2)
    diamond = {"id": "stone", "kind": "hindering", "polygon": [[0, 2], [1, 1.5], [2, 2], [1, 2.5]]}
    p = plan_of(a, t, terrain=(diamond,))
    assert p.hindered_by == () and p.attack_dice == 2
    p2 = plan_of(a, t, terrain=(diamond,), touching_hinders=True)
    assert p2.attack_dice == 2  # the engine finds another line that does not touch it


# -- AL-5 cost and dice ----------------------------------------------------------------------------
def test_al_5_1_order_points():
    """AL-5.1: 1 point for a sortie, 2 for a formation, changed by order_cost; refused without; spent."""
    assert plan_of(A(), T()).cost == 1
    assert plan_of(A(base="formation"), T()).cost == 2
    assert plan_of(A(abilities={"order_cost": 1}), T()).cost == 2
    assert refused(A(base="formation"), T(), points=1)[0] == "AL-5.1"
    b = battle(A(), T())
    _, after = AL.play(b, attack(), EnteredSource({"attack": [1, 1, 1], "defense": [1, 1]}))
    assert after.players["red"].order_points == 7 and b.players["red"].order_points == 8


def test_al_5_2_second_order_needs_a_push_once():
    """AL-5.2: a second ranged order in a turn removes one figure; a unit is pushed once per turn."""
    b = battle(A(), T())
    _, once = AL.play(b, attack(), EnteredSource({"attack": [1, 1, 1], "defense": [1, 1]}))
    p = AL.plan(once, attack())
    assert p.push and p.attack_dice == 2
    _, twice = AL.play(once, attack(), EnteredSource({"attack": [1, 1], "defense": [1, 1]}))
    assert twice.unit("A").pushed and twice.unit("A").figures == 2
    checked = AL.check(twice, attack())
    assert checked.refusals[0].clause == "AL-5.2"


def test_al_5_3_attack_dice_and_penalties():
    """AL-5.3: ready blue + attack_dice; -3 from a non-blue side; -1 firing into melee; -1 per hindrance."""
    assert plan_of(A(abilities={"attack_dice": 2}), T()).attack_dice == 5
    assert plan_of(A(colours=("red", "blue", "blue", "blue")), T(), choices={"from_side": "front"}).attack_dice == 0
    friend = unit("F", "red", (1, 4), 0, slots=[{"icons": ["red"]}], colours=("red",) * 4)
    p = plan_of(A(), T(4), friend)
    assert ("AL-5.3", -1) in [(m.clause, m.delta) for m in p.modifiers] and p.attack_dice == 2


def test_al_5_4_defense_dice():
    """AL-5.4: ready white + defense_dice; -3 when the attacked side is grey."""
    assert plan_of(A(), T(abilities={"defense_dice": 1})).defense_dice == 3
    grey = T(colours=("grey", "grey", "grey", "grey"), slots=[WHITE] * 4)
    assert plan_of(A(), grey).defense_dice == 1


def test_al_5_5_never_below_zero_and_the_option():
    """AL-5.5: counts stop at 0; with 0 attack dice the order is legal and paid; refuse_zero_dice refuses."""
    p = plan_of(A(colours=("red",) * 4, slots=[BLUE]), T())
    assert p.attack_dice == 0 and p.cost == 1
    assert AL.odds(p).outcomes["hits"].probability(0) == 1
    assert refused(A(colours=("red",) * 4, slots=[BLUE]), T(), refuse_zero_dice=True)[0] == "AL-5.5"


# -- AL-6 rolling and the lineup -------------------------------------------------------------------
def resolve(dice: dict[str, list[int]], a: Any = None, t: Any = None, **options: Any) -> Any:
    b = battle(a or A(), t or T(), **options)
    return AL.resolve(AL.plan(b, attack()), EnteredSource(dice))


def test_al_6_1_blue_against_white():
    """AL-6.1: the attacker rolls its dice (stage attack), the defender white dice (stage defense)."""
    r = resolve({"attack": [5, 4, 3], "defense": [4, 1]})
    assert r.dice == {"attack": (5, 4, 3), "defense": (4, 1)}
    assert r.outcome.hits == 3  # 5 > 4, 4 > 1, and 3 beats the phantom 2


def test_al_6_2_critical_on_the_first_roll():
    """AL-6.2: three or more 6s on the first roll: one extra hit (one per three with the option)."""
    six = A(slots=[BLUE] * 6)
    r = resolve({"attack": [6, 6, 6, 1, 1, 1], "defense": [6, 6]}, six)
    assert r.outcome.critical and r.outcome.hits == 1 + 1  # 6=6, 6=6, 6 > phantom 2; 1s lose; + critical
    r2 = resolve({"attack": [6, 6, 6, 6, 6, 6], "defense": [1, 1]}, six, crit_per_three_sixes=True)
    assert r2.outcome.hits == 6 + 2
    # a six that comes from a reroll is not on the first roll
    rr = A(slots=[BLUE] * 3, abilities={"reroll_attack_at_most": 1})
    r3 = resolve({"attack": [6, 6, 1], "attack-reroll": [6], "defense": [1, 1]}, rr)
    assert not r3.outcome.critical


def test_al_6_3_rerolls_before_bonuses():
    """AL-6.3: dice at or below T are rolled once more, then +N to each die (results may exceed 6)."""
    a = A(abilities={"reroll_attack_at_most": 2, "attack_die_bonus": 1})
    r = resolve({"attack": [2, 1, 5], "attack-reroll": [1, 6], "defense": [6, 6]}, a)
    assert r.outcome.lineup_hits == 1  # [2, 1, 5] -> [1, 6, 5] -> +1 -> 7 > 6, 6 = 6, 2 = phantom 2
    log = " ".join(line.text for line in r.log)
    assert "rerolls 2 dice" in log and "+1 to each of A's dice: 7 6 2" in log


def test_al_6_4_phantom_twos():
    """AL-6.4: a side that has run out compares a phantom die of value 2."""
    r = resolve({"attack": [3, 3, 2], "defense": [6]}, t=T(slots=[WHITE]))
    assert r.outcome.hits == 1  # 3 < 6; 3 > phantom 2; 2 = phantom 2


def test_al_6_5_ties_score_nothing():
    """AL-6.5: strictly higher scores one hit; equal dice score nothing."""
    r = resolve({"attack": [4, 4, 3], "defense": [4, 3]})
    assert r.outcome.hits == 2  # 4=4 no; 4>3 yes; 3>phantom 2 yes


def test_al_6_6_the_defender_scores_nothing_in_ranged_unless_able():
    """AL-6.6: higher defense dice score nothing in ranged combat; defender_scores_in_ranged lets them."""
    r = resolve({"attack": [1, 1, 1], "defense": [6, 6]})
    assert r.outcome.defender_hits == 0
    able = T(abilities={"defender_scores_in_ranged": True})
    r2 = resolve({"attack": [1, 1, 1], "defense": [6, 6]}, t=able)
    assert r2.outcome.defender_hits == 2
    assert "defender_hits" in AL.odds(AL.plan(battle(A(), able), attack())).outcomes


# -- AL-7 damage -----------------------------------------------------------------------------------
def test_al_7_1_damage_is_hits_plus_critical():
    """AL-7.1: the target takes hits plus the critical."""
    b = battle(A(slots=[BLUE] * 4), T(slots=[WHITE] * 6))
    res, after = AL.play(b, attack(), EnteredSource({"attack": [6, 6, 6, 5], "defense": [1] * 6}))
    assert res.outcome.hits == 5 and after.unit("T").figures == 1


def test_al_7_2_figures_fall_in_casualty_order():
    """AL-7.2: hit points per figure, last occupied slot first (or casualty_order); icons stop being ready;
    damage beyond the last figure is lost and the unit is destroyed."""
    t = T(slots=[{"icons": ["white"], "hp": 2}, {"icons": ["white", "white"]}, WHITE])
    b = battle(A(), t)
    _, after = AL.play(b, attack(), EnteredSource({"attack": [6, 5, 2], "defense": [1, 1, 1, 1]}))
    slots = after.unit("T").slots
    assert [s.occupied for s in slots] == [True, False, False] and after.unit("T").ready("white") == 1
    ordered = T(slots=[WHITE, {"icons": ["white"], "hp": 3}], casualty_order=[0, 1])
    _, after2 = AL.play(battle(A(), ordered), attack(), EnteredSource({"attack": [6, 6, 2], "defense": [1, 1]}))
    assert [(s.occupied, s.hp) for s in after2.unit("T").slots] == [(False, 0), (True, 2)]
    _, gone = AL.play(battle(A(), T(slots=[WHITE])), attack(), EnteredSource({"attack": [6, 6, 6], "defense": [1]}))
    assert "T" not in AL.unit_ids(gone)


# -- AL-8 close combat -----------------------------------------------------------------------------
def test_al_8_1_close_combat_needs_contact_and_uses_red():
    """AL-8.1: the target must be adjacent; red dice; -3 only from a grey side; no melee or hindrance penalty."""
    fighter = A(slots=[{"icons": ["red", "red"]}, {"icons": ["blue"]}], colours=("red", "grey", "grey", "grey"))
    foe = unit("T", "blue", (0, 1), 180, slots=[WHITE], colours=("blue",) * 4)
    p = plan_of(fighter, foe, choices={"order": "close"})
    assert (p.from_side, p.to_side, p.attack_dice, p.defense_dice) == ("front", "front", 2, 1)
    assert refused(fighter, T(4), choices={"order": "close"})[0] == "AL-8.1"
    grey = dict(fighter, sides={"front": "grey", "right": "grey", "back": "grey", "left": "grey"})
    assert plan_of(grey, foe, choices={"order": "close"}).attack_dice == 0


def test_al_8_2_the_defender_scores_and_both_take_damage():
    """AL-8.2: in close combat a higher defense die scores (a real die beating a phantom too); both take it."""
    fighter = A(slots=[{"icons": ["red"]}, {"icons": ["red"]}], colours=("red",) * 4)
    foe = unit("T", "blue", (0, 1), 180, slots=[{"icons": ["white"]}] * 3, colours=("blue",) * 4)
    b = battle(fighter, foe)
    res, after = AL.play(b, attack(order="close"), EnteredSource({"attack": [5, 1], "defense": [4, 3, 3]}))
    assert (res.outcome.hits, res.outcome.defender_hits) == (1, 2)
    assert "A" not in AL.unit_ids(after)  # both its figures fell
    assert after.unit("T").figures == 2
    odds = AL.odds(AL.plan(b, attack(order="close")))
    assert set(odds.outcomes) == {"hits", "defender_hits"}
