"""The fast paths of Arcane Legions on the table (AL-1, AL-3, AL-4) against the exact work they stand for:
bases built in integers, notch distances and facing in integers, float screens of line of sight and of
adjacency. Each must give what Fraction arithmetic and exact tests give, on random tables."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rangefire.core import Attack
from rangefire.geometry import Contact, Frame, Point, Polygon, Segment, exact
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.rulesets.arcane_legions import table
from rangefire.rulesets.arcane_legions.scenario import SIDE_NAMES, Unit

coords = st.fractions(min_value=-6, max_value=6, max_denominator=4)
facings = st.one_of(st.sampled_from([0, 90, 180, 270, 45, 30]), st.integers(0, 359),
                    st.fractions(0, 360, max_denominator=7))


def unit(x, y, facing, base="formation", uid="u", side="a"):
    return Unit(id=uid, side=side, base=base, position=(x, y), facing=facing,
                sides={"front": "blue", "right": "grey", "back": "grey", "left": "red"}, slots=[{}])


def fraction_base(u):
    """The base as Fraction arithmetic builds it: corners by the frame, notches along each side [AL-1.1, AL-1.3]."""
    frame = Frame.at(Point(*u.position), u.facing)
    hw = Fraction(1) if u.base == "formation" else Fraction(1, 2)
    half = Fraction(1, 2)
    corners = {"fl": frame.world(-hw, half), "fr": frame.world(hw, half), "br": frame.world(hw, -half),
               "bl": frame.world(-hw, -half)}
    ends = {"front": ("fl", "fr"), "right": ("fr", "br"), "back": ("br", "bl"), "left": ("bl", "fl")}
    notches = {}
    for name, (a, b) in ends.items():
        n = 4 if (u.base == "formation" and name in ("front", "back")) else 2
        seg = Segment(corners[a], corners[b])
        notches[name] = tuple(seg.at(Fraction(i, n)) for i in range(n + 1))
    return (corners["bl"], corners["br"], corners["fr"], corners["fl"]), notches


@given(coords, coords, facings, st.sampled_from(["sortie", "formation"]))
@settings(max_examples=150, deadline=None)
def test_bases_in_integers_are_the_fraction_bases(x, y, facing, base):
    """AL-1.1, AL-1.3: every corner, notch and normal as Fraction arithmetic gives it."""
    u = unit(x, y, facing, base)
    built = table._make_base(u)
    vertices, notches = fraction_base(u)
    assert built.polygon.vertices == vertices
    assert {name: side.notches for name, side in built.sides.items()} == notches
    frame = Frame.at(Point(x, y), facing)
    assert built.sides["front"].normal == frame.forward and built.sides["right"].normal == frame.right


@given(coords, coords, facings, st.sampled_from(["sortie", "formation"]), coords, coords, facings,
       st.sampled_from(["sortie", "formation"]), st.sampled_from([Fraction(6), Fraction(9, 2), Fraction(13, 3)]))
@settings(max_examples=150, deadline=None)
def test_notch_distances_and_facing_in_integers(x1, y1, f1, b1, x2, y2, f2, b2, range_steps):
    """AL-3.1, AL-3.2, AL-3.3: the integer distances, the range (the rules' 6 steps or a house rule's, whole or
    not) and facing tests say what Fractions say, pair by pair."""
    ba, bb = table._make_base(unit(x1, y1, f1, b1)), table._make_base(unit(x2, y2, f2, b2, uid="v"))
    reach = table.Reach(ba, bb, range_steps)
    if range_steps == 6:
        assert Fraction(reach.limit, reach.scale) == 36
    for sa in SIDE_NAMES:
        for sb in SIDE_NAMES:
            for ka, kb, d2 in reach.pairs(sa, sb):
                na, nb = ba.sides[sa].notches[ka], bb.sides[sb].notches[kb]
                assert Fraction(d2, reach.scale) == (na - nb).norm2()
                assert (d2 <= reach.limit) == ((na - nb).norm2() <= range_steps ** 2)
                assert reach.facing(sa, sb, ka, kb) == (ba.sides[sa].faces(nb) and bb.sides[sb].faces(na))


polygons = st.sampled_from([
    [(0, 0), (2, 0), (2, 1), (0, 1)], [(0, 0), (3, 0), (0, 3)], [(0, 0), (4, 0), (4, 4), (2, 1), (0, 4)],
    [(-1, -1), (1, -1), (1, 1), (-1, 1)], [("1/3", "1/7"), ("5/2", "1/3"), ("1", "3")],
    [(0, 0), ("1/100", 0), ("1/100", 2), (0, 2)]])
ends = st.fractions(min_value=-3, max_value=5, max_denominator=2)


@given(polygons, ends, ends, ends, ends)
@settings(max_examples=400, deadline=None)
def test_settled_contact_never_contradicts_the_exact_contact(vertices, ax, ay, bx, by):
    """AL-4.1, AL-4.4: whatever the float screen settles (clear or crossing) is the exact answer; touching,
    grazing a corner and running along an edge are left to the exact test."""
    polygon = Polygon.of(vertices)
    segment = Segment(Point(ax, ay), Point(bx, by))
    settled = polygon.settled_contact(segment)
    if settled is not None:
        assert settled is polygon.contact(segment)


def test_settled_contact_settles_the_plain_cases_and_leaves_the_boundaries():
    square = Polygon.of([(0, 0), (2, 0), (2, 2), (0, 2)])
    assert square.settled_contact(Segment(Point.of(-1, 1), Point.of(3, 1))) is Contact.CROSSING
    assert square.settled_contact(Segment(Point.of(-1, 3), Point.of(3, 3))) is Contact.CLEAR
    assert square.settled_contact(Segment(Point.of(-1, 2), Point.of(3, 2))) is None  # along an edge
    assert square.settled_contact(Segment(Point.of(-1, 1), Point.of(1, -1))) is None  # a corner only
    exact.FAST_FILTERS = False
    try:
        assert square.settled_contact(Segment(Point.of(-1, 1), Point.of(3, 1))) is None
    finally:
        exact.FAST_FILTERS = True


def random_battle(seed: int):
    """Units of both kinds at any facing, often in contact or at a corner, among blocking and hindering pieces."""
    rng = random.Random(seed)
    units = []
    for i in range(rng.choice([6, 10, 14])):
        facing = rng.choice([0, 90, 180, 270, 45, 30, 135, rng.randint(0, 359)])
        position = [rng.choice([rng.randint(0, 24) / 2, round(rng.uniform(0, 12), 1)]) for _ in range(2)]
        units.append({"id": f"u{i}", "side": "red" if i % 2 else "blue", "base": rng.choice(["sortie", "formation"]),
                      "position": position, "facing": facing,
                      "sides": dict(zip(SIDE_NAMES, rng.choices(["blue", "grey", "red"], k=4), strict=True)),
                      "slots": [{"icons": ["blue", "white", "red"]}] * rng.randint(1, 3)})
    terrain = []
    for j in range(rng.randint(0, 8)):
        x, y, w, h = rng.randint(0, 24) / 2, rng.randint(0, 24) / 2, rng.choice([0.5, 1, 2]), rng.choice([0.5, 1])
        terrain.append({"id": f"t{j}", "kind": rng.choice(["hindering", "blocking"]),
                        "polygon": [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]})
    options = {"corner_contact_is_adjacent": rng.random() < 0.5, "touching_hinders": rng.random() < 0.5}
    return battle_from_mapping({"ruleset": "arcane-legions", "units": units, "terrain": terrain, "options": options,
                                "players": {"red": {"order_points": 99}, "blue": {"order_points": 99}}})[1]


def verdicts(battle):
    al = find_ruleset("arcane-legions")
    out = []
    for a in battle.units:
        for d in battle.units:
            if a.side != d.side:
                for order in ("ranged", "close"):
                    c = al.check(battle, Attack(a.id, d.id, choices=(("order", order),)))
                    out.append((c.is_legal, c.plan.to_dict() if c.plan else [str(r) for r in c.refusals]))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_checks_with_the_float_screens_equal_exact_tests_only(seed):
    """AL-1.4, AL-2.1, AL-3, AL-4, AL-8.1: every plan and every refusal, word for word, with the float screens
    on and with exact tests only; every unit adjacent to another is among its neighbours."""
    battle = random_battle(seed)
    fast = verdicts(battle)
    for u in battle.units:
        near = table.nearby(battle.units, u)
        assert all(v in near for v in battle.units if v.id != u.id and table.is_adjacent(u, v, True))
    exact.FAST_FILTERS = False
    try:
        table.clear_caches()
        assert verdicts(battle) == fast
    finally:
        exact.FAST_FILTERS = True
        table.clear_caches()
