"""Exact geometry: Hypothesis properties (symmetry, rotation and translation invariance, exact boundaries)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rangefire.geometry import (
    Contact,
    Frame,
    GeometryError,
    Point,
    Polygon,
    Segment,
    Where,
    arc_meets,
    clip_halfplane,
    closest_on_segment,
    closest_points,
    direction,
    segments_intersect,
)
from rangefire.geometry.exact import middle_segment, shortest_stretches

coords = st.fractions(min_value=-50, max_value=50, max_denominator=8)
points = st.builds(Point, coords, coords)
segments = st.builds(Segment, points, points)
#: Exact rotations: rational points on the unit circle (3-4-5, 5-12-13, ...) and the quarter turns.
rotations = st.sampled_from([Point(Fraction(0), Fraction(1)), Point(Fraction(1), Fraction(0)),
                             Point(Fraction(3, 5), Fraction(4, 5)), Point(Fraction(-5, 13), Fraction(12, 13)),
                             Point(Fraction(-8, 17), Fraction(-15, 17))])


def rotate(p: Point, r: Point) -> Point:
    return Point(p.x * r.y - p.y * r.x, p.x * r.x + p.y * r.y)


def move(seg: Segment, f) -> Segment:
    return Segment(f(seg.a), f(seg.b))


@given(segments, segments)
def test_distance_is_symmetric(s, u):
    assert closest_points(s, u)[0] == closest_points(u, s)[0]


@given(segments, segments, points)
def test_distance_is_translation_invariant(s, u, t):
    assert closest_points(s, u)[0] == closest_points(move(s, lambda p: p + t), move(u, lambda p: p + t))[0]


@given(segments, segments, rotations)
def test_distance_is_rotation_invariant(s, u, r):
    turned = closest_points(move(s, lambda p: rotate(p, r)), move(u, lambda p: rotate(p, r)))
    assert closest_points(s, u)[0] == turned[0]


@given(segments, segments)
def test_closest_points_realise_the_distance(s, u):
    d2, p, q = closest_points(s, u)
    assert (p - q).norm2() == d2
    assert (d2 == 0) == segments_intersect(s, u)


@given(coords, coords, st.fractions(min_value=Fraction(1, 8), max_value=20, max_denominator=8), rotations, points)
def test_point_at_exact_distance_from_square_edge(x, y, size, r, t):
    """A point exactly on the boundary is BOUNDARY, under any exact rotation and translation."""
    corners = [Point(x, y), Point(x + size, y), Point(x + size, y + size), Point(x, y + size)]
    sq = Polygon(tuple(rotate(c, r) + t for c in corners))
    edge_mid = rotate(Point(x + size / 2, y), r) + t
    centre = rotate(Point(x + size / 2, y + size / 2), r) + t
    outside = rotate(Point(x + size / 2, y - Fraction(1, 10**9)), r) + t
    assert sq.locate(edge_mid) is Where.BOUNDARY
    assert sq.locate(centre) is Where.INSIDE
    assert sq.locate(outside) is Where.OUTSIDE


@settings(max_examples=50)
@given(st.fractions(min_value=-720, max_value=720, max_denominator=4))
def test_bearings_are_exact_unit_vectors(bearing):
    d = direction(bearing)
    assert d.norm2() == 1
    if bearing % 90 == 0:
        assert d == direction(0) if bearing % 360 == 0 else d in (direction(90), direction(180), direction(270))


def test_bearing_tolerance_is_stated_and_met():
    import math

    from rangefire.geometry import BEARING_TOLERANCE_DEGREES

    for bearing in (30, 45, 123.4, 359.9):
        d = direction(bearing)
        angle = math.degrees(math.atan2(float(d.x), float(d.y))) % 360
        assert abs(angle - bearing) < BEARING_TOLERANCE_DEGREES


def test_frame_round_trips():
    f = Frame.at(Point.of(2, 3), 90)
    assert f.world(1, 2) == Point.of(4, 2)  # right of east-facing is south
    assert f.local(f.world(Fraction(1, 3), 5)) == Point(Fraction(1, 3), Fraction(5))


def test_touching_is_not_crossing():
    sq = Polygon.of([(0, 0), (2, 0), (2, 2), (0, 2)])
    assert sq.contact(Segment(Point.of(-1, 1), Point.of(1, -1))) is Contact.TOUCHING  # grazes (0, 0)
    assert sq.contact(Segment(Point.of(0, 3), Point.of(2, 3))) is Contact.CLEAR
    assert sq.contact(Segment(Point.of(0, -1), Point.of(0, 3))) is Contact.TOUCHING  # runs along an edge
    assert sq.contact(Segment(Point.of("0.001", -1), Point.of("0.001", 3))) is Contact.CROSSING


def test_non_convex_polygon_interior():
    u_shape = Polygon.of([(0, 0), (3, 0), (3, 3), (2, 3), (2, 1), (1, 1), (1, 3), (0, 3)])
    across_the_notch = Segment(Point.of(-1, 2), Point.of(4, 2))
    assert u_shape.interior_params(across_the_notch) == [(Fraction(1, 5), Fraction(2, 5)),
                                                         (Fraction(3, 5), Fraction(4, 5))]


@pytest.mark.parametrize(("pts", "message"), [
    ([(0, 0), (1, 1)], "at least 3"),
    ([(0, 0), (1, 1), (2, 2)], "zero area"),
    ([(0, 0), (4, 4), (4, 0), (0, 2)], "cross"),
    ([(0, 0), (1, 0), (1, 0), (0, 1)], "repeats"),
    ([(i, (i * i) % 7) for i in range(300)], "at most"),
])
def test_malformed_polygons_are_refused(pts, message):
    with pytest.raises(GeometryError, match=message):
        Polygon.of(pts)


@given(points, points, rotations, points, st.fractions(min_value=0, max_value=5, max_denominator=4))
def test_arc_is_rotation_and_translation_invariant(a, b, r, t, h):
    """A forward arc's verdict moves with the table: rotate and translate both the frame and the shape."""
    tri = [a, b, a + Point(Fraction(1), Fraction(1, 2))]
    if orient_zero(tri):
        return
    frame = Frame(Point(Fraction(0), Fraction(0)), Point(Fraction(0), Fraction(1)))
    moved = Frame(t, rotate(frame.forward, r))
    assert arc_meets(Polygon(tuple(tri)), frame, h) == arc_meets(
        Polygon(tuple(rotate(p, r) + t for p in tri)), moved, h)


@pytest.mark.parametrize(("x", "inside"), [(Fraction(5), True), (Fraction(5) + Fraction(1, 10**9), False)])
def test_arc_boundary_is_exact(x, inside):
    """Touching the 45 degree line from the corner (2, 0) at (5, 3) is in the arc; a hair beyond is not."""
    frame = Frame(Point(Fraction(0), Fraction(0)), Point(Fraction(0), Fraction(1)))
    tri = Polygon((Point(x, Fraction(3)), Point(x + 1, Fraction(3)), Point(x + 1, Fraction(4))))
    assert arc_meets(tri, frame, Fraction(2)) is inside


def orient_zero(tri):
    from rangefire.geometry import orient

    return orient(*tri) == 0


def test_polygon_touching_the_arc_only_at_its_corner_is_in_it_DC_2_1():
    """DC-2.1: the arc is closed. A triangle whose edge passes exactly through the arc's corner (2, 0), with no
    vertex on any boundary line and none inside, touches the arc at that one point: it is in the arc. Only
    the clipping decides this (the vertex tests find nothing), and the corner must survive each clip."""
    frame = Frame(Point(Fraction(0), Fraction(0)), Point(Fraction(0), Fraction(1)))
    tri = [Point.of(0, -1), Point.of(4, 1), Point.of(4, -1)]  # x >= 2 + 2y: outside y >= 0, x <= 2 + y but at (2, 0)
    assert arc_meets(Polygon(tuple(tri)), frame, Fraction(2))
    assert clip_halfplane(clip_halfplane(tri, Point.of(0, 0), Point.of(1, 0)), Point.of(2, 0), Point.of(3, 1)) == [
        Point.of(2, 0)]
    # a hair lower, the triangle misses the arc
    lower = [p - Point(Fraction(0), Fraction(1, 10**9)) for p in tri]
    assert not arc_meets(Polygon(tuple(lower)), frame, Fraction(2))


def test_clip_keeps_a_vertex_on_the_line_and_cuts_a_crossing_edge():
    """clip_halfplane: the closed half-plane keeps a vertex lying on the line, and cuts an edge that crosses
    it where it crosses."""
    square_ = [Point.of(0, 0), Point.of(2, 0), Point.of(2, 2), Point.of(0, 2)]
    assert clip_halfplane(square_, Point.of(1, 0), Point.of(1, 1)) == [  # x <= 1
        Point.of(0, 0), Point.of(1, 0), Point.of(1, 2), Point.of(0, 2)]
    # x <= 0: only the edge on the line is left, kept (a closed half-plane)
    assert clip_halfplane(square_, Point.of(0, 0), Point.of(0, 1)) == [Point.of(0, 0), Point.of(0, 2)]


@settings(max_examples=150)
@given(segments, coords, coords, st.fractions(min_value=Fraction(1, 4), max_value=8, max_denominator=4),
       st.fractions(min_value=Fraction(1, 4), max_value=8, max_denominator=4), rotations, points)
def test_tied_shortest_segments_are_all_shortest_and_the_middle_moves_with_the_table(s, x, y, w, h, r, t):
    """DC-7.3's geometry: every tied segment found (each end and the middle of each family) is as short as
    the distance, runs from the source segment to the polygon's boundary, and the middle one turns and
    moves with the table."""
    rect = Polygon((Point(x, y), Point(x + w, y), Point(x + w, y + h), Point(x, y + h)))
    if s.a == s.b:
        return
    d2 = rect.closest(s)[0]
    if d2 == 0:
        return
    ties = shortest_stretches([s], [rect], d2)
    assert ties
    for st_ in ties:
        for k in (Fraction(0), Fraction(1, 2), Fraction(1)):
            p, q = st_.at(k)
            assert (p - q).norm2() == d2
            assert closest_on_segment(p, s) == p and rect.locate(q) is Where.BOUNDARY
    across = s.b - s.a
    start, end = middle_segment(ties, across)
    assert (start - end).norm2() == d2

    def turn(p):
        return rotate(p, r) + t

    moved = Polygon(tuple(turn(v) for v in rect.vertices))
    moved_ties = shortest_stretches([move(s, turn)], [moved], d2)
    assert middle_segment(moved_ties, rotate(across, r)) == (turn(start), turn(end))
