"""The exact geometry worked out over GMP's rationals, with its float screens, equals the geometry as first written
over Fractions with no screen (tests/geometry_oracle.py), number for number: every distance, every point, every
tie's middle, every verdict, on a grid of shapes laid out to meet the boundaries (touching, parallel and facing,
exactly 6 in apart, collinear, degenerate) and on random ones. Dress on the Colors reads its range, line of fire,
arc and enfilade from these [DC-2.1, DC-2.2, DC-6.1, DC-7.3]."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from rangefire.geometry import exact
from rangefire.geometry.exact import (
    Frame,
    Point,
    Polygon,
    Segment,
    all_behind,
    arc_meets,
    closest_points,
    middle_segment,
    rectangle,
    segments_intersect,
    shortest_line,
    shortest_stretches,
)
from rangefire.rulesets.dress_on_the_colors.scenario import Unit
from rangefire.rulesets.dress_on_the_colors.table import footprint, is_behind_front_baseline, line_of_fire_within
from tests import geometry_oracle as oracle

#: Bearings: the quarter turns (exact) and others (a rational direction within the stated tolerance).
BEARINGS = [0, 90, 180, 270, 30, 45, 135, 200.5]


def lattice(rng: random.Random, lo: int = -6, hi: int = 6, den: int = 2) -> Fraction:
    """A coordinate on a coarse lattice, so that shapes often touch, line up and tie."""
    return Fraction(rng.randint(lo * den, hi * den), den)


def point(rng: random.Random) -> Point:
    return Point(lattice(rng), lattice(rng))


def segment(rng: random.Random) -> Segment:
    a = point(rng)
    roll = rng.random()
    if roll < 0.1:
        return Segment(a, a)  # a point
    if roll < 0.3:  # axis-parallel: parallel to many rectangle edges
        return Segment(a, Point(a.x + lattice(rng, 0, 6), a.y) if rng.random() < 0.5 else Point(a.x, a.y + 1))
    return Segment(a, point(rng))


def box(rng: random.Random) -> Polygon:
    """A rectangle: on the lattice, or turned by a bearing about a lattice point."""
    frame = Frame.at(point(rng), rng.choice(BEARINGS) if rng.random() < 0.5 else 0)
    x0, y0 = lattice(rng, -3, 2), lattice(rng, -3, 2)
    return rectangle(frame, x0, x0 + lattice(rng, 1, 4), y0, y0 + lattice(rng, 1, 4))


#: Non-convex and slanted pieces of terrain (an L, the Wheatfield's woods, a notch).
TERRAIN = [Polygon.of([(0, 0), (4, 0), (4, 1), (1, 1), (1, 3), (0, 3)]),
           Polygon.of([(3, 1.5), (5, 1.5), (6, 5), (2, 5)]),
           Polygon.of([(-4, -4), (-1, -4), (-2, -3), (-1, -2), (-4, -2)])]


def polygon(rng: random.Random) -> Polygon:
    return rng.choice(TERRAIN) if rng.random() < 0.3 else box(rng)


SEEDS = range(8)


@pytest.mark.parametrize("seed", SEEDS)
def test_two_segments_closest_points_and_meeting_equal_the_fraction_geometry(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(400):
        s, u = segment(rng), segment(rng)
        assert closest_points(s, u) == oracle.closest_points(s, u), (s, u)
        assert segments_intersect(s, u) == oracle.segments_intersect(s, u), (s, u)


@pytest.mark.parametrize("fast", [True, False], ids=["screened", "unscreened"])
@pytest.mark.parametrize("seed", SEEDS[:4])
def test_a_polygon_and_a_segment_equal_the_fraction_geometry(seed: int, fast: bool,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a point lies, the stretches of a segment inside, contact, overlap, and the closest segment within a
    limit: below, at and above the distance (the boundary decides)."""
    monkeypatch.setattr(exact, "FAST_FILTERS", fast)
    rng = random.Random(100 + seed)
    for _ in range(25):
        poly = polygon(rng)
        other = box(rng)
        assert poly.overlaps(other) == oracle.overlaps(poly, other), (poly, other)
        for _ in range(4):
            seg = segment(rng)
            where = (seg.a, seg.b, seg.at(Fraction(1, 2)))
            assert [poly.locate(p) for p in where] == [oracle.locate(poly, p) for p in where], (poly, seg)
            assert poly.interior_params(seg) == oracle.interior_params(poly, seg), (poly, seg)
            assert poly.contact(seg).value == oracle.contact(poly, seg), (poly, seg)
            full = oracle.closest_within(poly, seg, None)
            assert full is not None
            assert poly.closest(seg) == full, (poly, seg)
            for limit in (None, full[0], full[0] - Fraction(1, 64), full[0] + 1, Fraction(0)):
                assert poly.closest_within(seg, limit) == oracle.closest_within(poly, seg, limit), (poly, seg, limit)


def unit(rng: random.Random, uid: str, at: Point, facing: float) -> Unit:
    return Unit(id=uid, side=uid, stands=rng.randint(1, 5), weapon="rifled-musket",
                formation=rng.choice(["line", "line", "march-column", "skirmish"]), position=(at.x, at.y),
                facing=facing, stand_width=rng.choice([Fraction(3, 2), Fraction(1), Fraction(2)]),
                stand_depth=rng.choice([Fraction(1), Fraction(1, 2)]))


def facing_pair(rng: random.Random) -> tuple[Unit, Unit]:
    """Two units: face to face exactly 6 in apart or across a lattice offset (families of tied lines), or placed
    anyhow (touching, overlapping, behind, at an angle)."""
    if rng.random() < 0.5:
        gap = rng.choice([Fraction(6), Fraction(6), lattice(rng, 0, 20)])
        return (unit(rng, "a", Point(Fraction(0), Fraction(0)), 0),
                unit(rng, "b", Point(lattice(rng, -8, 8), gap), rng.choice([180, 180, 0, 90, 200.5])))
    return (unit(rng, "a", point(rng), rng.choice(BEARINGS)),
            unit(rng, "b", Point(lattice(rng, -10, 10), lattice(rng, -10, 10)), rng.choice(BEARINGS)))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_line_of_fire_equals_the_fraction_geometry_DC_2_2_DC_7_3(seed: int) -> None:
    """The shortest segment from the firer's front edges to the target's stands within a limit, and the middle one
    of the segments as short [DC-2.2, DC-7.3]; the tied segments and their middle, found apart; the arc [DC-2.1]
    and enfilade's every corner behind the front [DC-6.1]."""
    rng = random.Random(200 + seed)
    tied = 0
    for _ in range(30):
        a, b = facing_pair(rng)
        firer, target = footprint(a), footprint(b)
        across = firer.frame.right
        full = oracle.shortest_line(firer.front, target.outline, None, across)
        assert full is not None
        tied += full[3]
        for limit in (None, full[0], full[0] - Fraction(1, 64), Fraction(400)):
            expected = full if limit is None or full[0] <= limit else None  # a line within the limit, or none
            assert shortest_line(firer.front, target.outline, limit, across) == expected, (a, b, limit)
            found = line_of_fire_within(firer, target, limit)
            assert (None if found is None else (found.distance2, found.start, found.end, found.tied)) == expected
        if full[0] > 0:
            stretches = oracle.shortest_stretches(firer.front, target.outline, full[0])
            assert [tuple(st) for st in shortest_stretches(firer.front, target.outline, full[0])] == stretches
            assert middle_segment([exact.Stretch(*st) for st in stretches], across) == oracle.middle_segment(
                stretches, across)
        for h in (firer.half_width, Fraction(0)):
            assert [arc_meets(s, firer.frame, h) for s in target.outline] == [
                oracle.arc_meets(s, firer.frame, h) for s in target.outline], (a, b, h)
        assert all_behind(target.frame, firer.stands) == oracle.all_behind(target.frame, firer.stands)
        for shooter, shot, its in ((a, target, firer), (b, firer, target)):  # enfilade reads the outline's corners
            assert is_behind_front_baseline(shooter, shot) == oracle.all_behind(shot.frame, its.stands), (a, b)
    assert tied  # the grid reaches tied lines of fire


@pytest.mark.parametrize("behind", [Fraction(-1, 64), Fraction(0), Fraction(1, 64)])
@pytest.mark.parametrize("formation", ["line", "march-column", "skirmish"])
def test_enfilade_at_the_front_baseline_equals_every_stand_s_corners_DC_6_1(formation: str, behind: Fraction) -> None:
    """A firer side on to the target with its stands' far corners just short of, on and just past the line through
    the target's front edge: enfilade only when every corner of every stand is strictly behind it [DC-6.1]."""
    target = footprint(Unit(id="t", side="t", stands=3, weapon="rifled-musket", formation="line", position=(0, 0),
                            facing=0))
    # facing +x, its stands' right-hand side (local x = +width/2) at y = -behind
    firer = Unit(id="f", side="f", stands=4, weapon="rifled-musket", formation=formation, position=(-8, 0),
                 facing=90)
    half = footprint(firer).half_width
    firer = firer.model_copy(update={"position": (Fraction(-8), -half - behind)})
    expected = oracle.all_behind(target.frame, footprint(firer).stands)
    assert expected is (behind > 0)
    assert is_behind_front_baseline(firer, target) is expected


@pytest.mark.parametrize("seed", SEEDS)
def test_a_rectangle_in_a_frame_equals_the_frame_s_own_points(seed: int) -> None:
    rng = random.Random(300 + seed)
    for _ in range(50):
        frame = Frame.at(point(rng), rng.choice(BEARINGS))
        x0, y0 = lattice(rng), lattice(rng)
        x1, y1 = x0 + lattice(rng, 1, 5), y0 + lattice(rng, 1, 5)
        made = rectangle(frame, x0, x1, y0, y1)
        assert made.vertices == oracle.rectangle(frame, x0, x1, y0, y1)
        assert made == Polygon.trusted(made.vertices)  # what it keeps beside is no part of the polygon
        assert all(type(c) is Fraction for p in made.vertices for c in p)


def test_the_numbers_given_back_are_fractions() -> None:
    """Callers compare, hash and print what the geometry gives: Fractions, never GMP's numbers."""
    front = Segment(Point.of(-3, 0), Point.of(3, 0))
    square = Polygon.of([(1, 10), (7, 10), (7, 11), (1, 11)])
    found = shortest_line([front], [square], None, Point.of(1, 0))
    assert found is not None
    d2, p, q, _ = found
    numbers = [d2, *p, *q, *closest_points(front, Segment(Point.of(0, 2), Point.of(5, 3)))[1],
               *square.closest(front)[1], *(t for pair in square.interior_params(Segment(Point.of(0, 10.5),
                                                                                        Point.of(9, 10.5)))
                                           for t in pair)]
    assert numbers and all(type(n) is Fraction for n in numbers)
