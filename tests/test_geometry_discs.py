"""Round bases and sight among terrain (rangefire.geometry.discs): exact distances, the family of segments,
exact judgement of each, terrain judged on the union of its pieces [BU-1.5, BU-2.1, BU-2.5, BU-2.6, BU-5.7]."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
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


# -- BU-2.5 and BU-2.6: terrain judged on the union of its pieces ------------------------------------------------
@pytest.fixture(params=[True, False], ids=["float-screen", "exact-only"])
def screen(request, monkeypatch):
    """Every verdict below must come out the same with the float screen and filters on and off."""
    from rangefire.geometry import exact

    monkeypatch.setattr(exact, "FAST_FILTERS", request.param)
    return request.param


ALONG = Segment(Point.of(0, 0), Point.of(0, 10))  # runs up x = 0, the shared edge of the pieces below


def test_a_line_along_the_shared_edge_of_abutting_solid_pieces_is_blocked_bu_2_5(screen):
    """BU-2.5: two solid pieces abut along x = 0; a segment running up that edge meets the interior of neither,
    but the two together cover it on both sides: blocked (judged on their union), naming both."""
    left, right = square("left", "solid", -5, 4, 0, 6), square("right", "solid", 0, 4, 5, 6)
    line = judge(ALONG, [left, right])
    assert line.solid == ("left", "right") and not line.is_clear(THREE)
    clockwise = Piece("right", "solid", Polygon(right.polygon.vertices[::-1]))  # the same piece written clockwise
    assert judge(ALONG, [left, clockwise]).solid == ("left", "right")
    assert judge(ALONG, [left, square("left too", "solid", -3, 3, 0, 7)]).solid == ()  # both on the left
    # covered on both sides only from y = 5 to 6: still blocked
    assert judge(ALONG, [left, square("right", "solid", 0, 5, 5, 7)]).solid == ("left", "right")
    # both sides covered at the single point y = 6 only, or one side only: the segment only touches them
    assert judge(ALONG, [left, square("right", "solid", 0, 6, 5, 8)]).solid == ()
    assert judge(ALONG, [left]).solid == () and judge(ALONG, [right]).solid == ()
    # the two pieces on the same side of the segment: it runs along the union's edge, not through it
    assert judge(ALONG, [left, square("below", "solid", -5, 2, 0, 4)]).solid == ()
    # pieces meeting at a corner only, the segment through the corner
    corner = [square("ne", "solid", 0, 5, 5, 7), square("sw", "solid", -5, 3, 0, 5)]
    assert judge(Segment(Point.of(-1, 6), Point.of(1, 4)), corner).solid == ()


def test_sight_along_the_seam_of_a_wall_of_two_pieces_is_blocked_bu_2_5(screen):
    """BU-2.5: a wall made of two abutting pieces across the table; the centre line (and the rim segment beside
    it) run exactly along their shared edge: no line of sight, as through one wall."""
    from rangefire.geometry.discs import first_clear

    a, b = Disc(Point.of(0, 0), Fraction(1)), Disc(Point.of(0, 10), Fraction(1))
    wall = [square("left", "solid", -5, 4, 0, 6), square("right", "solid", 0, 4, 5, 6)]
    assert sight_lines(a, b, wall, THREE)[0] is None
    seen = first_clear(a, b, wall, THREE)
    assert seen.line is None and seen.solid == ("left", "right")


def test_abutting_obscuring_pieces_count_along_their_shared_edge_bu_2_6(screen):
    """BU-2.6: the obscured length is measured on the union of the obscuring pieces: a segment running 4 in
    along the shared edge of two abutting pieces is 4 in inside their union (too deep); 2 in is allowed."""
    from rangefire.geometry.discs import first_clear

    deep = [square("west", "obscuring", -5, 3, 0, 7), square("east", "obscuring", 0, 3, 5, 7)]
    line = judge(ALONG, deep)
    assert line.obscured2 == 16 and not line.is_clear(THREE) and line.obscuring == ("west", "east")
    assert abs(line.obscured - 4) < 1e-9
    shallow = [square("west", "obscuring", -5, 3, 0, 5), square("east", "obscuring", 0, 3, 5, 5)]
    assert judge(ALONG, shallow).obscured2 == 4 and judge(ALONG, shallow).is_clear(THREE)
    # along the shared edge from 4 to 6 in, through a third piece from 5 to 8 in: 4 in of the union, once
    mixed = [square("west", "obscuring", -5, 3, 0, 6), square("east", "obscuring", 0, 4, 5, 7),
             square("cap", "obscuring", -1, 5, 1, 8)]
    assert judge(ALONG, mixed).obscured2 == 16
    a, b = Disc(Point.of(0, 0), Fraction(1)), Disc(Point.of(0, 10), Fraction(1))
    seen = first_clear(a, b, deep, THREE)
    assert seen.line is None and seen.deep == ("east", "west")
    assert sight_lines(a, b, deep, THREE)[0] is None
    # cover: the stretch along the seam comes within 1 in of the target, and both pieces give it
    near = judge(Segment(Point.of(0, 0), Point.of(0, 8)), deep)
    target = Disc(Point.of(0, 9), Fraction(1))
    assert near.is_obscured_near(target, 1) and near.pieces_near(target, 1) == ("west", "east")


def test_a_piece_wholly_inside_another_counts_once_bu_2_6(screen):
    """BU-2.6: 4 in of mist with a second piece wholly inside it (2 to 3 in along the line) is 4 in, not 2 in:
    too deep, on its own and as the only way from base to base."""
    from rangefire.geometry.discs import first_clear

    seg = Segment(Point.of(0, 0), Point.of(10, 0))
    nested = [square("outer", "obscuring", 1, -1, 5, 1), square("inner", "obscuring", 2, "-1/2", 3, "1/2")]
    line = judge(seg, nested)
    assert line.obscured2 == 16 and abs(line.obscured - 4) < 1e-9 and not line.is_clear(THREE)
    a, b = Disc(Point.of(-1, 0), Fraction(1, 2)), Disc(Point.of(7, 0), Fraction(1, 2))
    band = [square("outer", "obscuring", 1, -20, 5, 20), square("inner", "obscuring", 2, -1, 3, 1)]
    assert first_clear(a, b, band, THREE).line is None
    assert sight_lines(a, b, band, THREE)[0] is None


def test_first_clear_finds_a_line_just_under_three_inches_of_mist_bu_2_1(screen):
    """BU-2.1: the float screen must not call "too deep" a line within its margin of 3 in: the only clear lines
    run through 2.9999995 in of mist (the centre line is blocked by a post), and first_clear finds the same one
    as judging every line exactly."""
    from rangefire.geometry.discs import first_clear

    a, b = Disc(Point.of(0, 0), Fraction(1)), Disc(Point.of(0, 10), Fraction(1))
    terrain = [square("post", "solid", "-1/100", "3/2", "1/100", 2),
               square("mist", "obscuring", -20, 3, 20, 3 + Fraction("2.9999995"))]
    first, _ = sight_lines(a, b, terrain, THREE)
    assert first is not None and first.obscuring == ("mist",)
    assert abs(first.obscured - 2.9999995) < 1e-9 and first.obscured2 < 9
    seen = first_clear(a, b, terrain, THREE)
    assert seen.line is not None and seen.line.segment == first.segment


def test_first_clear_counts_overlapping_mist_once_bu_2_6(screen):
    """BU-2.6: two overlapping bands of mist, 2 in each, 2.5 in together: lines through both are clear, and
    first_clear (which settles lines through one piece in floats) finds the same first one as judging each
    line exactly; the centre line is blocked by a post so that the rim segments decide."""
    from rangefire.geometry.discs import first_clear

    a, b = Disc(Point.of(0, 0), Fraction(1)), Disc(Point.of(0, 10), Fraction(1))
    terrain = [square("post", "solid", "-1/100", "3/2", "1/100", 2),
               square("low", "obscuring", -20, 3, 20, 5), square("high", "obscuring", -20, "7/2", 20, "11/2")]
    first, _ = sight_lines(a, b, terrain, THREE)
    assert first is not None and first.obscuring == ("low", "high") and first.obscured2 < 9
    seen = first_clear(a, b, terrain, THREE)
    assert seen.line is not None and seen.line.segment == first.segment


grid = st.integers(0, 4).map(Fraction)


def _union_oracle(seg: Segment, rects: list[tuple[Fraction, Fraction, Fraction, Fraction]]) -> Fraction:
    """The length of ``seg`` inside the interior of the union of closed axis-aligned rectangles, from the
    definition: cut the segment wherever it meets a line through a rectangle's side; the middle of each piece is
    inside the union's interior when the corners of a tiny square around it are all covered (the rectangles lie
    on an inch grid, so nothing but the lines through the middle passes that close)."""
    (ax, ay), (bx, by) = seg
    dx, dy = bx - ax, by - ay
    cuts = {Fraction(0), Fraction(1)}
    for x0, y0, x1, y1 in rects:
        cuts.update((x - ax) / dx for x in (x0, x1) if dx)
        cuts.update((y - ay) / dy for y in (y0, y1) if dy)
    ts = sorted(t for t in cuts if 0 <= t <= 1)
    if not rects:
        return Fraction(0)
    eps = Fraction(1, 10**6)
    inside = Fraction(0)
    for t0, t1 in itertools.pairwise(ts):
        mx, my = ax + (t0 + t1) / 2 * dx, ay + (t0 + t1) / 2 * dy
        corners = [(mx + sx * eps, my + sy * eps) for sx in (-1, 1) for sy in (-1, 1)]
        if all(any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in rects) for x, y in corners):
            inside += t1 - t0
    return inside * inside * (dx * dx + dy * dy)


@settings(max_examples=200, deadline=None)
@given(rects=st.lists(st.tuples(st.sampled_from(["solid", "obscuring"]), grid, grid, st.integers(1, 2),
                                st.integers(1, 2)), min_size=2, max_size=6),
       start=st.tuples(grid, grid), end=st.tuples(grid, grid), way=st.sampled_from(["across", "along x", "along y"]),
       one_kind=st.booleans(), clockwise=st.lists(st.booleans(), min_size=6, max_size=6))
def test_terrain_is_judged_on_the_union_of_its_pieces_bu_2_5_and_bu_2_6(rects, start, end, way, one_kind, clockwise):
    """BU-2.5, BU-2.6, against the definition: on an inch grid where pieces often abut and segments often
    run along their edges, a segment is blocked exactly when it meets the interior of the union of the solid
    pieces, and the obscured length is that inside the union of the obscuring pieces (float filters on and off,
    pieces written either way round)."""
    from rangefire.geometry import exact

    end = {"across": end, "along x": (end[0], start[1]), "along y": (start[0], end[1])}[way]
    seg = Segment(Point(*start), Point(*end))
    if seg.a == seg.b:
        return
    boxes = [(rects[0][0] if one_kind else kind, (x, y, x + w, y + h)) for kind, x, y, w, h in rects]
    pieces = [square(f"p{i}", kind, *box) for i, (kind, box) in enumerate(boxes)]
    # some pieces written clockwise: the side of an edge their interior lies on must not depend on it
    pieces = [Piece(p.id, p.kind, Polygon(p.polygon.vertices[::-1])) if cw else p
              for p, cw in zip(pieces, clockwise, strict=False)]
    blocked = _union_oracle(seg, [box for kind, box in boxes if kind == "solid"]) > 0
    obscured2 = _union_oracle(seg, [box for kind, box in boxes if kind == "obscuring"])
    for fast in (True, False):
        exact.FAST_FILTERS = fast
        try:
            line = judge(seg, pieces)
        finally:
            exact.FAST_FILTERS = True
        assert bool(line.solid) == blocked and line.obscured2 == obscured2, fast
