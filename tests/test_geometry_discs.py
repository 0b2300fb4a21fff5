"""Round bases and sight among terrain (rangefire.geometry.discs): exact distances, the family of segments,
exact judgement of each [BU-1.5, BU-2.1, BU-5.7]."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from rangefire.geometry import Point, Polygon, Segment
from rangefire.geometry.discs import RIM_STEPS, Disc, Piece, candidates, judge, sight_lines

THREE = Fraction(3)


def square(pid: str, kind: str, x0: object, y0: object, x1: object, y1: object) -> Piece:
    return Piece(pid, kind, Polygon.of([(x0, y0), (x1, y0), (x1, y1), (x0, y1)]))


def test_base_sizes_in_inches_and_edge_distance_bu_1_5():
    """BU-1.5: 30 mm is 75/127 in of radius; distance is edge to edge, exact at the boundary."""
    a = Disc.base((Fraction(0), Fraction(0)), 30)
    b = Disc.base((Fraction(6) + Fraction(175, 127), Fraction(0)), 40)
    assert a.radius == Fraction(75, 127) and b.radius == Fraction(100, 127)
    assert a.is_within(b, 6) and not a.is_within(b, Fraction(5999999, 1000000))
    assert abs(a.gap(b) - 6) < 1e-12


def test_rim_points_lie_exactly_on_the_edge_facing_the_other_base():
    d = Disc(Point.of(1, 2), Fraction(3, 4))
    rim = d.rim(Point.of(10, 2))
    assert len(rim) == RIM_STEPS + 1
    assert all((p - d.centre).norm2() == d.radius ** 2 for p in rim)
    assert all(p.x >= d.centre.x for p in rim)  # the half facing +x
    assert rim[0] == Point.of(Fraction(7, 4), 2)  # the middle point first, exact on an axis


def test_touching_a_solid_corner_is_not_crossing_bu_2_1():
    """BU-2.1: a line that only touches a solid piece crosses no solid terrain."""
    corner = square("rock", "solid", 1, 1, 2, 2)
    assert judge(Segment(Point.of(0, 0), Point.of(2, 0)), [corner]).solid == ()
    assert judge(Segment(Point.of(0, 2), Point.of(2, 0)), [corner]).solid == ()  # through the corner (1, 1)
    assert judge(Segment(Point.of(0, 0), Point.of(3, 3)), [corner]).solid == ("rock",)


def test_obscuring_length_in_total_and_not_twice_bu_2_1():
    """BU-2.1: obscuring stretches add up across pieces; overlapping pieces are not counted twice; 3 in exactly
    is allowed."""
    seg = Segment(Point.of(0, 0), Point.of(10, 0))
    two = [square("a", "obscuring", 1, -1, 3, 1), square("b", "obscuring", 5, -1, 6, 1)]
    line = judge(seg, two)
    assert line.obscured2 == 9 and line.is_clear(THREE) and line.obscuring == ("a", "b")
    overlapping = [square("a", "obscuring", 1, -1, 3, 1), square("b", "obscuring", 2, -1, 4, 1)]
    assert judge(seg, overlapping).obscured2 == 9
    more = [square("a", "obscuring", 1, -1, Fraction(4001, 1000), 1)]
    assert not judge(seg, more).is_clear(THREE)


def test_obscured_near_the_target_exactly_one_inch_bu_5_7():
    """BU-5.7: obscuring terrain 1 in from the base edge exactly is within 1 in; 1.001 in is not."""
    target = Disc(Point.of(0, 10), Fraction(1))
    seg = Segment(Point.of(0, 0), Point.of(0, 9))
    for top, near in ((8, True), (Fraction(7999, 1000), False)):
        hedge = square("hedge", "obscuring", -2, 5, 2, top)
        assert judge(seg, [hedge]).is_obscured_near(target, 1) is near


def test_touching_bases_see_each_other_and_models_never_block_bu_2_1():
    a, b = Disc(Point.of(0, 0), Fraction(1)), Disc(Point.of(2, 0), Fraction(1))
    wall = square("wall", "solid", -5, -5, 5, 5)
    first, _ = sight_lines(a, b, [wall], THREE)
    assert first is not None and first.segment.a == first.segment.b == Point.of(1, 0)


def test_a_gap_between_two_walls_is_found_bu_2_1():
    """BU-2.1: some segment, not only the centre line: two walls leave a slot off the centre line."""
    a, b = Disc(Point.of(0, 0), Fraction(1)), Disc(Point.of(0, 10), Fraction(1))
    walls = [square("left", "solid", -5, 5, Fraction(3, 10), 6), square("right", "solid", Fraction(6, 10), 5, 5, 6)]
    first, _ = sight_lines(a, b, walls, THREE)
    assert first is not None and first.segment != Segment(a.centre, b.centre)
    assert judge(first.segment, walls).solid == ()
    shut = [*walls, square("door", "solid", Fraction(3, 10), 5, Fraction(6, 10), 6)]
    assert sight_lines(a, b, shut, THREE)[0] is None


coords = st.integers(-40, 40).map(lambda n: Fraction(n, 4))
radii = st.sampled_from([Fraction(75, 127), Fraction(100, 127), Fraction(125, 127), Fraction(150, 127)])


@settings(max_examples=40, deadline=None)
@given(ax=coords, ay=coords, bx=coords, by=coords, ra=radii, rb=radii, wx=coords, wy=coords,
       dx=st.integers(-20, 20), dy=st.integers(-20, 20))
def test_sight_is_symmetric_and_translation_invariant_bu_2_1(ax, ay, bx, by, ra, rb, wx, wy, dx, dy):
    """Property: A sees B exactly when B sees A, and moving everything together changes nothing."""
    a, b = Disc(Point(ax, ay), ra), Disc(Point(bx, by), rb)
    terrain = [square("w", "solid", wx, wy, wx + 1, wy + Fraction(1, 3)),
               square("m", "obscuring", wy, wx, wy + 2, wx + 4)]
    there = sight_lines(a, b, terrain, THREE)[0] is not None
    back = sight_lines(b, a, terrain, THREE)[0] is not None
    assert there == back
    shift = Point(Fraction(dx), Fraction(dy))
    moved = [Piece(p.id, p.kind, Polygon(tuple(v + shift for v in p.polygon.vertices))) for p in terrain]
    assert (sight_lines(Disc(a.centre + shift, ra), Disc(b.centre + shift, rb), moved, THREE)[0] is not None) == there


def test_every_candidate_runs_from_base_to_base():
    a, b = Disc(Point.of(0, 0), Fraction(1, 2)), Disc(Point.of(3, 4), Fraction(3, 4))
    segs = candidates(a, b)
    assert len(segs) == 1 + (RIM_STEPS + 1) ** 2
    for s in segs:
        assert (s.a - a.centre).norm2() <= a.radius ** 2 and (s.b - b.centre).norm2() <= b.radius ** 2


small = st.integers(-12, 12).map(lambda n: Fraction(n, 2))


@settings(max_examples=60, deadline=None)
@given(x0=small, y0=small, w=st.integers(1, 6), h=st.integers(1, 6), teeth=st.integers(1, 5),
       sx=small, sy=small, ex=small, ey=small)
def test_float_filters_never_change_an_exact_verdict(x0, y0, w, h, teeth, sx, sy, ex, ey):
    """The float box filters only skip work: locate, interior stretches and contact agree with them off.
    The comb-shaped polygons put many edges at the exact heights and abscissas the filters compare."""
    from rangefire.geometry import exact

    pts = [(x0, y0), (x0 + w, y0)]
    step = Fraction(w, 2 * teeth)
    for i in range(teeth, 0, -1):  # teeth along the top, right to left
        right = x0 + 2 * i * step
        pts += [(right, y0 + h), (right - step, y0 + h), (right - step, y0 + Fraction(h, 2)),
                (right - 2 * step, y0 + Fraction(h, 2))]
    pts[-1] = (x0, y0 + Fraction(h, 2))
    poly = Polygon.of(pts)
    seg = Segment(Point(sx, sy), Point(ex, ey))
    probes = [Point(sx, sy), Point(ex, ey), *poly.vertices]
    fast = ([poly.locate(p) for p in probes], poly.interior_params(seg), poly.contact(seg))
    exact.FAST_FILTERS = False
    try:
        slow_poly = Polygon.of(pts)
        slow = ([slow_poly.locate(p) for p in probes], slow_poly.interior_params(seg), slow_poly.contact(seg))
    finally:
        exact.FAST_FILTERS = True
    assert fast == slow


@settings(max_examples=80, deadline=None)
@given(ax=coords, ay=coords, bx=coords, by=coords, ra=radii, rb=radii,
       pieces=st.lists(st.tuples(st.sampled_from(["solid", "obscuring"]), coords, coords,
                                 st.integers(1, 12), st.integers(1, 12)), min_size=1, max_size=4))
def test_float_paths_never_change_a_sight_verdict_bu_2_1_and_bu_5_7(ax, ay, bx, by, ra, rb, pieces):
    """Sight, the obscured length and the near-the-target test agree with the float filters off. Quarter-inch
    coordinates put corners exactly on lines and pieces exactly 3 in deep, where floats must hand over."""
    from rangefire.geometry import exact

    a, b = Disc(Point(ax, ay), ra), Disc(Point(bx, by), rb)
    terrain = [square(f"p{i}", kind, x, y, x + Fraction(w, 4), y + Fraction(h, 4))
               for i, (kind, x, y, w, h) in enumerate(pieces)]

    def verdicts() -> list[object]:
        lines = sight_lines(a, b, terrain, THREE, every=True)[1]
        return [(line.solid, line.obscuring, line.is_clear(THREE), line.obscured2,
                 line.is_obscured_near(b, 1)) for line in lines]

    fast = verdicts()
    exact.FAST_FILTERS = False
    try:
        slow = verdicts()
    finally:
        exact.FAST_FILTERS = True
    assert fast == slow


def test_the_screen_hands_over_what_touches_a_corner_or_runs_along_an_edge():
    """Segments through corners, along edges, ending on the boundary: the float screen must not settle them
    wrongly; every one agrees with the exact stretches."""
    from rangefire.geometry.screen import Screen, ends

    sq = Polygon.of([(1, 1), (2, 1), (2, 2), (1, 2)])
    segments = [Segment(Point.of(0, 0), Point.of(3, 3)),    # in through one corner, out through the other
                Segment(Point.of(0, 2), Point.of(2, 0)),    # touches the corner (1, 1) only
                Segment(Point.of(0, 1), Point.of(3, 1)),    # runs along the bottom edge
                Segment(Point.of(0, 1.5), Point.of(1, 1.5)),  # ends on the left edge
                Segment(Point.of(1.5, 0), Point.of(1.5, 3)),  # straight through: floats settle it
                Segment(Point.of(5, 5), Point.of(6, 7))]    # far away
    a, b = ends(segments)
    screen = Screen(a, b, [sq])
    for i, seg in enumerate(segments):
        exact_stretches = [(float(t0), float(t1)) for t0, t1 in sq.interior_params(seg)]
        quick = screen.stretches(i)
        assert quick is None or quick == exact_stretches, (i, quick, exact_stretches)
    assert screen.stretches(0) is None and screen.stretches(1) is None and screen.stretches(2) is None
    assert screen.stretches(4) == [(1 / 3, 2 / 3)] and screen.stretches(5) == []


@settings(max_examples=80, deadline=None)
@given(ax=coords, ay=coords, bx=coords, by=coords, ra=radii, rb=radii,
       pieces=st.lists(st.tuples(st.sampled_from(["solid", "obscuring"]), coords, coords,
                                 st.integers(1, 24), st.integers(1, 24)), min_size=1, max_size=5))
def test_first_clear_decides_as_judging_every_line_in_turn_bu_2_1(ax, ay, bx, by, ra, rb, pieces):
    """first_clear settles the lines floats can settle all at once; it must find the same first clear line,
    after the same number of lines, and name the same blockers as judging every line in turn."""
    from rangefire.geometry.discs import first_clear

    a, b = Disc(Point(ax, ay), ra), Disc(Point(bx, by), rb)
    terrain = [square(f"p{i}", kind, x, y, x + Fraction(w, 4), y + Fraction(h, 4))
               for i, (kind, x, y, w, h) in enumerate(pieces)]
    fast = first_clear(a, b, terrain, THREE)
    first, judged = sight_lines(a, b, terrain, THREE)
    assert (fast.line.segment if fast.line else None) == (first.segment if first else None)
    assert fast.tried == len(judged)
    if first is None:
        assert fast.solid == tuple(sorted({p for line in judged for p in line.solid}))
        assert fast.deep == tuple(sorted({p for line in judged if not line.solid for p in line.obscuring}))


def test_rim_family_floats_are_the_exact_points_rounded():
    """The screen works on the family's float ends: they must be the exact rim points, correctly rounded."""
    from rangefire.geometry.discs import RimFamily

    family = RimFamily(Disc(Point.of("1/3", 2), Fraction(75, 127)), Disc(Point.of(7, "-5/7"), Fraction(150, 127)))
    a, b = family.arrays
    assert len(family) == len(a) == (RIM_STEPS + 1) ** 2
    for i in (0, 1, 17, len(family) - 1):
        seg = family[i]
        assert abs(a[i][0] - float(seg.a.x)) < 1e-12 and abs(a[i][1] - float(seg.a.y)) < 1e-12
        assert abs(b[i][0] - float(seg.b.x)) < 1e-12 and abs(b[i][1] - float(seg.b.y)) < 1e-12
    assert family[-1] == family[len(family) - 1] and family[:2] == [family[0], family[1]]
