"""Exact 2-D geometry over ``Fraction`` coordinates.

Distances are compared squared, predicates use exact orientation tests, so every boundary in the rules comes
out exactly: a line that touches a corner *touches*, it does not *cross*; 6.0 in is 6.0 in.

The one inexact quantity is a bearing's direction: sin and cos of most angles are irrational. A bearing is
turned into an exactly unit-length rational vector (a rational point on the unit circle, from the rational
tangent of the half angle) within :data:`BEARING_TOLERANCE_DEGREES`; multiples of 90 degrees are exact.

The public functions and methods take and give :class:`~fractions.Fraction` coordinates. The work inside them is
done over GMP's rationals (``gmpy2.mpq``: the same exact numbers, some ten times quicker to add and multiply), in
the same :class:`Point` and :class:`Segment` shapes: a function whose name starts with ``_q`` or a polygon's
``_q_...`` property works over those, the numbers turned into them on the way in (:func:`_q`) and back into
Fractions on the way out (:func:`_fp`). Every answer is the same exact number either way.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from functools import cached_property
from typing import Any, NamedTuple

from gmpy2 import mpq  # type: ignore[import-untyped]  # GMP's rationals (no type stubs)

from rangefire.geometry.floats import float_gap_to_segment
from rangefire.geometry.floats import float_inside as _float_inside
from rangefire.geometry.floats import float_segment_gap as _float_segment_gap

#: How far (in degrees) a bearing's rational direction may lie from the true one. The only tolerance.
BEARING_TOLERANCE_DEGREES = 1e-9
_HALF_TAN_DENOMINATOR = 10**12

#: Whether :meth:`Polygon.is_clearly_apart` may skip exact work (off only to measure what it saves).
FAST_FILTERS = True

#: Float boxes closer than this (inches) are looked at exactly: far beyond any float rounding of table numbers.
_FLOAT_MARGIN = 1e-6

#: A polygon with at most this many edges is not screened in floats for the edges near a segment: over GMP's
#: rationals the exact work on a few edges costs less than the screen.
_FEW_EDGES = 4

#: A polygon with more vertices than this is refused (self-intersection checks are quadratic).
MAX_POLYGON_VERTICES = 256


class GeometryError(ValueError):
    """A shape that is not valid: too few vertices, zero area, self-intersecting, too many vertices."""


class Point(NamedTuple):
    """A point with exact coordinates.

    >>> Point.of(1.5, "1/3")
    Point(x=Fraction(3, 2), y=Fraction(1, 3))
    """

    x: Fraction
    y: Fraction

    @classmethod
    def of(cls, x: object, y: object) -> Point:
        return cls(_fr(x), _fr(y))

    def __add__(self, other: tuple[Fraction, ...]) -> Point:  # type: ignore[override]
        return Point(self.x + other[0], self.y + other[1])

    def __sub__(self, other: tuple[Fraction, Fraction]) -> Point:
        return Point(self.x - other[0], self.y - other[1])

    def scale(self, k: Fraction | int) -> Point:
        return Point(self.x * k, self.y * k)

    def dot(self, other: tuple[Fraction, Fraction]) -> Fraction:
        return self.x * other[0] + self.y * other[1]

    def cross(self, other: tuple[Fraction, Fraction]) -> Fraction:
        return self.x * other[1] - self.y * other[0]

    def norm2(self) -> Fraction:
        return self.x * self.x + self.y * self.y


def _fr(v: object) -> Fraction:
    if isinstance(v, float):
        return Fraction(str(v))  # the decimal as written, not the binary float
    if isinstance(v, int | Fraction | str):
        return Fraction(v)
    raise TypeError(f"not a number: {v!r}")


# -- GMP's rationals inside, Fractions outside -------------------------------------------------------------
_Q0, _Q1 = mpq(0), mpq(1)


def _q(p: Point) -> Point:
    """The point over GMP's rationals (exactly the same numbers)."""
    return Point(mpq(p.x), mpq(p.y))


def _qseg(s: Segment) -> Segment:
    return Segment(Point(mpq(s.a.x), mpq(s.a.y)), Point(mpq(s.b.x), mpq(s.b.y)))


def _fq(v: Any) -> Fraction:
    """A number worked out over GMP's rationals as a Fraction (the same number)."""
    return Fraction(int(v.numerator), int(v.denominator))


def _fp(p: Point) -> Point:
    """A point worked out over GMP's rationals with Fraction coordinates (the same point)."""
    return Point(Fraction(int(p.x.numerator), int(p.x.denominator)),
                 Fraction(int(p.y.numerator), int(p.y.denominator)))


def orient(a: Point, b: Point, c: Point) -> int:
    """+1 if a, b, c turn left (counter-clockwise), -1 if right, 0 if collinear. Exact."""
    v = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    return (v > 0) - (v < 0)


def direction(bearing: Fraction | float | int) -> Point:
    """The unit vector of a bearing: 0 faces +y, 90 faces +x (degrees, clockwise).

    Exactly unit length always; exact in direction for multiples of 90, otherwise within
    :data:`BEARING_TOLERANCE_DEGREES`.

    >>> direction(0), direction(90)
    (Point(x=Fraction(0, 1), y=Fraction(1, 1)), Point(x=Fraction(1, 1), y=Fraction(0, 1)))
    >>> d = direction(30); d.norm2() == 1
    True
    """
    b = Fraction(bearing) % 360
    quarter, rest = divmod(b, 90)
    base = [Point(Fraction(0), Fraction(1)), Point(Fraction(1), Fraction(0)),
            Point(Fraction(0), Fraction(-1)), Point(Fraction(-1), Fraction(0))][int(quarter)]
    if rest == 0:
        return base
    # A rational point on the unit circle from t = tan(rest/2): (2t, 1 - t^2) / (1 + t^2).
    t = Fraction(math.tan(math.radians(float(rest)) / 2)).limit_denominator(_HALF_TAN_DENOMINATOR)
    s, c = 2 * t / (1 + t * t), (1 - t * t) / (1 + t * t)
    right = Point(base.y, -base.x)  # the base direction turned 90 degrees clockwise
    return Point(base.x * c + right.x * s, base.y * c + right.y * s)


@dataclass(frozen=True)
class Frame:
    """A local frame: ``origin``, a unit ``forward`` vector, and ``right`` a quarter turn clockwise of it.

    ``world(x, y)`` is ``origin + x * right + y * forward``; ``local(p)`` inverts it exactly.
    """

    origin: Point
    forward: Point

    @classmethod
    def at(cls, origin: Point, bearing: Fraction | float | int) -> Frame:
        return cls(origin, direction(bearing))

    @property
    def right(self) -> Point:
        return Point(self.forward.y, -self.forward.x)

    def world(self, x: Fraction | int, y: Fraction | int) -> Point:
        r, f = self.right, self.forward
        return Point(self.origin.x + x * r.x + y * f.x, self.origin.y + x * r.y + y * f.y)

    def local(self, p: Point) -> Point:
        d = p - self.origin
        # forward is exactly unit length, so projection needs no division.
        return Point(d.dot(self.right), d.dot(self.forward))


# -- points and segments ---------------------------------------------------------------------------
class Segment(NamedTuple):
    a: Point
    b: Point

    def at(self, t: Fraction) -> Point:
        return self.a + (self.b - self.a).scale(t)


def closest_on_segment(p: Point, seg: Segment) -> Point:
    """The point of ``seg`` nearest ``p`` (exact, over Fractions or GMP's rationals alike)."""
    d = seg.b - seg.a
    n2 = d.norm2()
    if n2 == 0:
        return seg.a
    t = (p - seg.a).dot(d) / n2
    return seg.at(min(1, max(0, t)))  # type: ignore[arg-type]  # the clamp keeps t's own kind of number


#: :func:`closest_on_segment` as the work over GMP's rationals names it.
_q_closest_on = closest_on_segment


def _on_segment(p: Point, seg: Segment) -> bool:
    a, b = seg
    # the box first: comparisons are far cheaper than the orientation's products
    return (min(a.x, b.x) <= p.x <= max(a.x, b.x) and min(a.y, b.y) <= p.y <= max(a.y, b.y)
            and orient(a, b, p) == 0)


def segments_intersect(s: Segment, u: Segment) -> bool:
    """Whether two closed segments share a point (touching counts). Exact over Fractions or GMP's rationals."""
    o1, o2 = orient(s.a, s.b, u.a), orient(s.a, s.b, u.b)
    o3, o4 = orient(u.a, u.b, s.a), orient(u.a, u.b, s.b)
    if o1 * o2 < 0 and o3 * o4 < 0:
        return True
    return _on_segment(u.a, s) or _on_segment(u.b, s) or _on_segment(s.a, u) or _on_segment(s.b, u)


def _q_intersection_params(s: Segment, u: Segment) -> list[Any]:
    """Parameters t on ``s`` (0 at s.a, 1 at s.b) where it meets ``u``; both ends of a shared stretch (over GMP's
    rationals, written out over the coordinates)."""
    (ax, ay), (bx, by) = s
    (cx, cy), (ex, ey) = u
    dx, dy, fx, fy = bx - ax, by - ay, ex - cx, ey - cy
    wx, wy = cx - ax, cy - ay
    denom = dx * fy - dy * fx
    if denom != 0:
        t, v = (wx * fy - wy * fx) / denom, (wx * dy - wy * dx) / denom
        return [t] if 0 <= t <= 1 and 0 <= v <= 1 else []
    if wx * dy - wy * dx != 0:  # parallel, not collinear
        return []
    n2 = dx * dx + dy * dy
    if n2 == 0:
        return [_Q0] if _on_segment(s.a, u) else []
    t0, t1 = (wx * dx + wy * dy) / n2, ((ex - ax) * dx + (ey - ay) * dy) / n2
    lo, hi = max(min(t0, t1), _Q0), min(max(t0, t1), _Q1)
    return [lo, hi] if lo <= hi else []


def closest_points(s: Segment, u: Segment) -> tuple[Fraction, Point, Point]:
    """Squared distance between two segments and a pair of points realising it (on s, on u)."""
    d2, p, q = _q_closest_points(_qseg(s), _qseg(u))
    return _fq(d2), _fp(p), _fp(q)


def _q_closest_points(s: Segment, u: Segment) -> tuple[Any, Point, Point]:
    """:func:`closest_points` over GMP's rationals, written out over the coordinates (the same steps as the
    functions it stands for: where they meet, :func:`_q_intersection_params`; parallel and facing, the middle of
    :func:`_q_facing_stretch`; else the nearest of the four ends to the other segment, :func:`_q_closest_on`, the
    first of the nearest). No float screen: over GMP's rationals this costs less than screening it in floats."""
    (ax, ay), (bx, by) = s
    (cx, cy), (ex, ey) = u
    dx, dy, fx, fy = bx - ax, by - ay, ex - cx, ey - cy
    wx, wy = cx - ax, cy - ay
    denom = dx * fy - dy * fx
    n2 = dx * dx + dy * dy
    if denom != 0:  # where they meet, if they do
        t = (wx * fy - wy * fx) / denom
        if 0 <= t <= 1 and 0 <= (wx * dy - wy * dx) / denom <= 1:
            p = Point(ax + dx * t, ay + dy * t)
            return _Q0, p, p
    elif wx * dy - wy * dx == 0:  # on one line: where they overlap, if they do
        if n2 == 0:
            if _on_segment(s.a, u):
                return _Q0, s.a, s.a
        else:
            t0, t1 = (wx * dx + wy * dy) / n2, ((ex - ax) * dx + (ey - ay) * dy) / n2
            lo = max(min(t0, t1), _Q0)
            if lo <= min(max(t0, t1), _Q1):
                p = Point(ax + dx * lo, ay + dy * lo)
                return _Q0, p, p
    if denom == 0 and n2 != 0:  # parallel: the middle of the stretch where they face each other, if they do
        t0, t1 = (wx * dx + wy * dy) / n2, ((ex - ax) * dx + (ey - ay) * dy) / n2
        lo, hi = max(min(t0, t1), _Q0), min(max(t0, t1), _Q1)
        if lo <= hi:
            m = (lo + hi) / 2
            px, py = ax + dx * m, ay + dy * m
            qx, qy = _q_nearest(px, py, cx, cy, fx, fy)
            return (px - qx) ** 2 + (py - qy) ** 2, Point(px, py), Point(qx, qy)
    best: tuple[Any, Any, Any, Any, Any, bool] | None = None
    for px, py, ox, oy, gx, gy, swap in ((ax, ay, cx, cy, fx, fy, False), (bx, by, cx, cy, fx, fy, False),
                                         (cx, cy, ax, ay, dx, dy, True), (ex, ey, ax, ay, dx, dy, True)):
        qx, qy = _q_nearest(px, py, ox, oy, gx, gy)
        d2 = (px - qx) ** 2 + (py - qy) ** 2
        if best is None or d2 < best[0]:
            best = (d2, px, py, qx, qy, swap)
    assert best is not None
    d2, px, py, qx, qy, swap = best
    return (d2, Point(qx, qy), Point(px, py)) if swap else (d2, Point(px, py), Point(qx, qy))


def _q_nearest(px: Any, py: Any, ox: Any, oy: Any, gx: Any, gy: Any) -> tuple[Any, Any]:
    """:func:`_q_closest_on` over the coordinates: the point of the segment from (ox, oy) along (gx, gy) nearest
    (px, py)."""
    n2 = gx * gx + gy * gy
    if n2 == 0:
        return ox, oy
    t = min(_Q1, max(_Q0, ((px - ox) * gx + (py - oy) * gy) / n2))
    return ox + gx * t, oy + gy * t


def _q_facing_stretch(s: Segment, u: Segment) -> tuple[Any, Any] | None:
    """For parallel segments, the parameters ``lo <= hi`` on ``s`` of the stretch that faces ``u`` (where a
    perpendicular meets both); None when they are not parallel or do not face each other."""
    (ax, ay), (bx, by) = s
    (cx, cy), (ex, ey) = u
    dx, dy = bx - ax, by - ay
    n2 = dx * dx + dy * dy
    if n2 == 0 or dx * (ey - cy) - dy * (ex - cx) != 0:
        return None
    t0, t1 = ((cx - ax) * dx + (cy - ay) * dy) / n2, ((ex - ax) * dx + (ey - ay) * dy) / n2
    lo, hi = max(min(t0, t1), _Q0), min(max(t0, t1), _Q1)
    return (lo, hi) if lo <= hi else None


def _q_closest_memo(s: Segment, u: Segment, memo: dict[tuple[int, int], tuple[Any, Point, Point]] | None
                    ) -> tuple[Any, Point, Point]:
    """:func:`_q_closest_points`, kept in ``memo`` by the two segments' identities (each held alive by its caller
    for the memo's life) where one is given."""
    if memo is None:
        return _q_closest_points(s, u)
    key = (id(s), id(u))
    found = memo.get(key)
    if found is None:
        found = memo[key] = _q_closest_points(s, u)
    return found


# -- polygons --------------------------------------------------------------------------------------
class Where(Enum):
    INSIDE = "inside"
    BOUNDARY = "boundary"
    OUTSIDE = "outside"


class Contact(Enum):
    """How a line relates to an area: it misses it, touches its boundary only, or crosses its interior."""

    CLEAR = "clear"
    TOUCHING = "touching"
    CROSSING = "crossing"


class Box(NamedTuple):
    """An axis-aligned bounding box: a cheap, exact first test before exact work on shapes."""

    x0: Fraction
    y0: Fraction
    x1: Fraction
    y1: Fraction

    @classmethod
    def around(cls, a: Point, b: Point) -> Box:
        return cls(min(a.x, b.x), min(a.y, b.y), max(a.x, b.x), max(a.y, b.y))

    def gap2(self, other: Box) -> Fraction:
        """The squared distance between two boxes: a lower bound of the distance between what they hold."""
        return Fraction(_gap2(self, other))


def _gap2(box: Box, other: Box) -> Any:
    """:meth:`Box.gap2` in the boxes' own numbers (Fractions, or GMP's rationals: 0 an int)."""
    dx = other.x0 - box.x1 if other.x0 > box.x1 else box.x0 - other.x1 if box.x0 > other.x1 else 0
    dy = other.y0 - box.y1 if other.y0 > box.y1 else box.y0 - other.y1 if box.y0 > other.y1 else 0
    return dx * dx + dy * dy


@dataclass(frozen=True)
class Polygon:
    """A simple polygon (no self-intersection, positive area) with exact vertices.

    >>> sq = Polygon.of([(0, 0), (2, 0), (2, 2), (0, 2)])
    >>> sq.locate(Point.of(1, 1)), sq.locate(Point.of(2, 1)), sq.locate(Point.of(3, 1))
    (<Where.INSIDE: 'inside'>, <Where.BOUNDARY: 'boundary'>, <Where.OUTSIDE: 'outside'>)
    >>> sq.contact(Segment(Point.of(-1, 3), Point.of(3, -1)))   # along the diagonal (0, 2)-(2, 0)
    <Contact.CROSSING: 'crossing'>
    >>> sq.contact(Segment(Point.of(-1, 1), Point.of(1, -1)))   # touches the corner (0, 0) only
    <Contact.TOUCHING: 'touching'>
    """

    vertices: tuple[Point, ...]

    @classmethod
    def of(cls, points: Iterable[Sequence[object]]) -> Polygon:
        pts = tuple(Point(_fr(p[0]), _fr(p[1])) for p in points)
        return cls(pts)

    @classmethod
    def trusted(cls, vertices: tuple[Point, ...]) -> Polygon:
        """A polygon the caller knows to be valid (a rectangle built from a frame): no quadratic checks."""
        poly = object.__new__(cls)
        object.__setattr__(poly, "vertices", vertices)
        return poly

    def __post_init__(self) -> None:
        v = self.vertices
        if len(v) < 3:
            raise GeometryError(f"a polygon needs at least 3 vertices, got {len(v)}")
        if len(v) > MAX_POLYGON_VERTICES:
            raise GeometryError(f"a polygon may have at most {MAX_POLYGON_VERTICES} vertices, got {len(v)}")
        if self.area2() == 0:
            raise GeometryError("the polygon has zero area")
        edges = self._q_edges
        n = len(edges)
        for i in range(n):
            if edges[i].a == edges[i].b:
                raise GeometryError(f"vertex {i} repeats vertex {(i + 1) % n}")
        for i in range(n):
            for j in range(i + 1, n):
                adjacent = j == i + 1 or (i == 0 and j == n - 1)
                if adjacent:
                    shared = edges[i].b if j == i + 1 else edges[i].a
                    params = _q_intersection_params(edges[i], edges[j])
                    # adjacent edges meet only at their shared vertex (a fold-back overlaps more)
                    if (len(params) > 1 and params[0] != params[1]) or (params and edges[i].at(params[0]) != shared):
                        raise GeometryError(f"edges {i} and {j} overlap: the polygon folds back on itself")
                elif self._boxes_meet(i, j) and segments_intersect(edges[i], edges[j]):
                    raise GeometryError(f"edges {i} and {j} cross: the polygon intersects itself")

    def _boxes_meet(self, i: int, j: int) -> bool:
        """Whether edges i and j have float boxes within the margin (else they cannot meet)."""
        (_, a), (_, b) = self._edges_with_boxes[i], self._edges_with_boxes[j]
        m = _FLOAT_MARGIN
        return not FAST_FILTERS or (a[0] <= b[2] + m and b[0] <= a[2] + m and a[1] <= b[3] + m and b[1] <= a[3] + m)

    def edges(self) -> list[Segment]:
        v = self.vertices
        return [Segment(v[i], v[(i + 1) % len(v)]) for i in range(len(v))]

    def edges_within(self, seg: Segment, reach2: Fraction | None) -> list[Segment]:
        """The edges, in order, that floats cannot show to be farther from ``seg`` than ``reach2`` (squared;
        None: than the nearest edge): every edge as near as that is among them, so that exact work over them
        finds what it finds over all the edges. Floats are off by far less than the margin (coordinates of at
        most 10^6, each rounded within 10^-9)."""
        return self._edges_kept(self.edges(), seg, reach2)

    def _q_edges_within(self, seg: Segment, reach2: Any) -> list[Segment]:
        """:meth:`edges_within` over GMP's rationals: ``seg``, ``reach2`` and the edges given."""
        return self._edges_kept(self._q_edges, seg, reach2)

    def _edges_kept(self, edges: list[Segment], seg: Segment, reach2: Any) -> list[Segment]:
        if not FAST_FILTERS or len(edges) <= _FEW_EDGES:
            return edges  # a few edges are looked at exactly sooner than screened in floats
        a, b = (float(seg.a.x), float(seg.a.y)), (float(seg.b.x), float(seg.b.y))
        gaps = [_float_segment_gap(a, b, c, e) for c, e in self._float_edges]
        reach = min(gaps) if reach2 is None else math.sqrt(float(reach2))
        return [edge for edge, gap in zip(edges, gaps, strict=True) if gap <= reach + _FLOAT_MARGIN]

    @cached_property
    def _q_vertices(self) -> tuple[Point, ...]:
        """The vertices over GMP's rationals (turned once)."""
        return tuple(_q(p) for p in self.vertices)

    @cached_property
    def _q_edges(self) -> list[Segment]:
        """The edges over GMP's rationals, in the order of :meth:`edges`."""
        v = self._q_vertices
        return [Segment(v[i], v[(i + 1) % len(v)]) for i in range(len(v))]

    @cached_property
    def _q_edge_boxes(self) -> dict[int, Box]:
        """Each edge's bounding box over GMP's rationals, by the identity of the edge in :attr:`_q_edges`."""
        return {id(e): Box.around(e.a, e.b) for e in self._q_edges}

    @cached_property
    def _q_box(self) -> Box:
        """The bounding box over GMP's rationals."""
        xs = [p.x for p in self._q_vertices]
        ys = [p.y for p in self._q_vertices]
        return Box(min(xs), min(ys), max(xs), max(ys))

    @cached_property
    def _edges_with_boxes(self) -> list[tuple[Segment, tuple[float, float, float, float]]]:
        """Each edge (over GMP's rationals) with its float bounding box, for a quick first test (exact work still
        decides)."""
        out = []
        for q, e in zip(self._q_edges, self.edges(), strict=True):
            xs, ys = sorted((float(e.a.x), float(e.b.x))), sorted((float(e.a.y), float(e.b.y)))
            out.append((q, (xs[0], ys[0], xs[1], ys[1])))
        return out

    @cached_property
    def _float_ring(self) -> list[tuple[float, float]]:
        return [(float(p.x), float(p.y)) for p in self.vertices]

    @cached_property
    def _float_edges(self) -> list[tuple[tuple[float, float], tuple[float, float]]]:
        ring = self._float_ring
        return [(ring[i], ring[(i + 1) % len(ring)]) for i in range(len(ring))]

    def _edges_near(self, seg: Segment) -> Iterable[Segment]:
        """The edges (over GMP's rationals) whose boxes come within a margin of the segment's box: no other edge
        can meet it."""
        if not FAST_FILTERS:
            yield from self._q_edges
            return
        ax, ay, bx, by = float(seg.a.x), float(seg.a.y), float(seg.b.x), float(seg.b.y)
        x0, x1 = (ax, bx) if ax <= bx else (bx, ax)
        y0, y1 = (ay, by) if ay <= by else (by, ay)
        m = _FLOAT_MARGIN
        for edge, (ex0, ey0, ex1, ey1) in self._edges_with_boxes:
            if ex0 <= x1 + m and ex1 >= x0 - m and ey0 <= y1 + m and ey1 >= y0 - m:
                yield edge

    def area2(self) -> Fraction:
        """Twice the signed area (positive when counter-clockwise)."""
        v = self.vertices
        return sum((v[i].cross(v[(i + 1) % len(v)]) for i in range(len(v))), Fraction(0))

    @cached_property
    def box(self) -> Box:
        """The bounding box (computed once)."""
        xs = [p.x for p in self.vertices]
        ys = [p.y for p in self.vertices]
        return Box(min(xs), min(ys), max(xs), max(ys))

    @property
    def float_box(self) -> tuple[float, float, float, float]:
        """The bounding box in floats (for filters only)."""
        return self._float_box

    @cached_property
    def _float_box(self) -> tuple[float, float, float, float]:
        return tuple(float(c) for c in self.box)  # type: ignore[return-value]

    def is_clearly_apart(self, other: Polygon | Box, reach: float = 0.0) -> bool:
        """A fast filter: True only when the bounding boxes are certainly more than ``reach`` apart.

        Floats serve here only to *skip* exact work: coordinates are at most 10^6 in magnitude, so each
        correctly rounded box coordinate is off by less than 10^-9, and a float gap beyond reach + 10^-6 is
        a real one. Anything closer goes to the exact tests.
        """
        if not FAST_FILTERS:
            return False
        a = self._float_box
        b = other._float_box if isinstance(other, Polygon) else tuple(float(c) for c in other)
        dx = max(b[0] - a[2], a[0] - b[2], 0.0)
        dy = max(b[1] - a[3], a[1] - b[3], 0.0)
        return bool(math.hypot(dx, dy) > reach + 1e-6)

    def float_gap(self, seg: Segment, ends: tuple[float, float, float, float] | None = None) -> float:
        """The distance from a segment to this polygon (0 when they meet), in floats: for filters only.
        ``ends``: the segment's ends in floats, when the caller has them already."""
        ax, ay, bx, by = ends if ends is not None else (float(seg.a.x), float(seg.a.y), float(seg.b.x),
                                                         float(seg.b.y))
        a, b = (ax, ay), (bx, by)
        if _float_inside(a, self._float_ring):
            return 0.0
        return min(_float_segment_gap(a, b, c, e) for c, e in self._float_edges)

    def _float_gap_ends(self, ax: float, ay: float, bx: float, by: float) -> float:
        """:meth:`float_gap` written out for speed: 0 when the segment starts inside or properly crosses an edge,
        else the least distance between an end of the segment and an edge, or a vertex and the segment."""
        if _float_inside((ax, ay), self._float_ring):
            return 0.0
        dx, dy = bx - ax, by - ay
        n2 = dx * dx + dy * dy
        best = math.inf
        for (cx, cy), (ex, ey) in self._float_edges:
            fx, fy = ex - cx, ey - cy
            s1, s2 = dx * (cy - ay) - dy * (cx - ax), dx * (ey - ay) - dy * (ex - ax)
            s3, s4 = fx * (ay - cy) - fy * (ax - cx), fx * (by - cy) - fy * (bx - cx)
            if s1 * s2 < 0 and s3 * s4 < 0:
                return 0.0
            m2 = fx * fx + fy * fy
            for px, py in ((ax, ay), (bx, by)):  # the segment's ends to the edge
                t = 0.0 if m2 == 0 else max(0.0, min(1.0, ((px - cx) * fx + (py - cy) * fy) / m2))
                best = min(best, math.hypot(px - cx - t * fx, py - cy - t * fy))
            t = 0.0 if n2 == 0 else max(0.0, min(1.0, ((cx - ax) * dx + (cy - ay) * dy) / n2))
            best = min(best, math.hypot(cx - ax - t * dx, cy - ay - t * dy))  # the edge's start to the segment
        return best

    def bbox(self) -> tuple[Fraction, Fraction, Fraction, Fraction]:
        return tuple(self.box)  # type: ignore[return-value]

    def locate(self, p: Point) -> Where:
        """Inside, on the boundary or outside: exact, by crossing number with half-open edges."""
        return self._q_locate(_q(p))

    def _q_locate(self, p: Point) -> Where:
        """:meth:`locate` of a point over GMP's rationals."""
        inside = False
        px, py, m = float(p.x), float(p.y), _FLOAT_MARGIN
        for edge, (_, ey0, ex1, ey1) in self._edges_with_boxes:
            if FAST_FILTERS and (ey0 > py + m or ey1 < py - m or ex1 < px - m):
                continue  # above, below or left of p: neither holds p nor crosses its ray (to +x)
            a, b = edge
            if _on_segment(p, edge):
                return Where.BOUNDARY
            if (a.y > p.y) != (b.y > p.y):
                # x of the edge at height p.y, compared without division
                lhs = (p.x - a.x) * (b.y - a.y)
                rhs = (b.x - a.x) * (p.y - a.y)
                if (lhs < rhs) == (b.y > a.y):
                    inside = not inside
        return Where.INSIDE if inside else Where.OUTSIDE

    def interior_params(self, seg: Segment) -> list[tuple[Fraction, Fraction]]:
        """The stretches ``(t0, t1)`` of ``seg`` (0 at its start, 1 at its end) inside the interior."""
        return [(_fq(t0), _fq(t1)) for t0, t1 in self._q_interior_params(_qseg(seg))]

    def _q_interior_params(self, seg: Segment) -> list[tuple[Any, Any]]:
        """:meth:`interior_params` over GMP's rationals."""
        if _gap2(self._q_box, Box.around(seg.a, seg.b)) > 0:
            return []  # apart: no need to look closer
        ts = {_Q0, _Q1}
        for edge in self._edges_near(seg):
            ts.update(_q_intersection_params(seg, edge))
        ordered = sorted(t for t in ts if 0 <= t <= 1)
        out: list[tuple[Any, Any]] = []
        for t0, t1 in itertools.pairwise(ordered):
            if t0 < t1 and self._q_locate(seg.at((t0 + t1) / 2)) is Where.INSIDE:
                if out and out[-1][1] == t0:
                    out[-1] = (out[-1][0], t1)
                else:
                    out.append((t0, t1))
        return out

    def contact(self, seg: Segment) -> Contact:
        """Whether a segment crosses the interior, only touches the boundary, or misses the polygon."""
        seg = _qseg(seg)
        if seg.a == seg.b:
            where = self._q_locate(seg.a)
            return {Where.INSIDE: Contact.CROSSING, Where.BOUNDARY: Contact.TOUCHING}.get(where, Contact.CLEAR)
        if self._q_interior_params(seg):
            return Contact.CROSSING
        if any(segments_intersect(seg, e) for e in self._edges_near(seg)):
            return Contact.TOUCHING
        return Contact.CLEAR

    def settled_contact(self, seg: Segment, ends: tuple[float, float, float, float] | None = None) -> Contact | None:
        """What floats settle of :meth:`contact` by a clear margin, None where exact work must decide.

        CLEAR when the segment stays more than the margin away from the polygon; CROSSING when a point of the
        segment lies inside more than the margin from every edge (then a stretch of the segment around it is
        inside: the exact answer is CROSSING too). The float points are within 10^-9 of the exact ones (see
        :meth:`is_clearly_apart`), far inside the margin. Always None when :data:`FAST_FILTERS` is off.
        ``ends``: the segment's ends in floats, when the caller has them already.
        """
        if not FAST_FILTERS:
            return None
        ax, ay, bx, by = ends if ends is not None else (float(seg.a.x), float(seg.a.y), float(seg.b.x),
                                                         float(seg.b.y))
        if self._float_gap_ends(ax, ay, bx, by) > _FLOAT_MARGIN:
            return Contact.CLEAR
        dx, dy = bx - ax, by - ay
        ts = {0.0, 1.0}
        for (cx, cy), (ex, ey) in self._float_edges:  # where the segment meets each edge's line
            denom = dx * (ey - cy) - dy * (ex - cx)
            if denom:
                t = ((cx - ax) * (ey - cy) - (cy - ay) * (ex - cx)) / denom
                if 0.0 < t < 1.0:
                    ts.add(t)
        ordered = sorted(ts)
        for t0, t1 in itertools.pairwise(ordered):
            t = (t0 + t1) / 2
            q = (ax + t * dx, ay + t * dy)
            if _float_inside(q, self._float_ring) and min(
                    float_gap_to_segment(q, c, e) for c, e in self._float_edges) > _FLOAT_MARGIN:
                return Contact.CROSSING
        return None

    def overlaps(self, convex: Polygon) -> bool:
        """Whether the interiors of this polygon and a *convex* polygon share any area (touching is not)."""
        if _gap2(self._q_box, convex._q_box) > 0:
            return False
        if any(self._q_interior_params(e) for e in convex._q_edges):
            return True
        if any(convex._q_interior_params(e) for e in self._q_edges):
            return True
        n = len(convex.vertices)
        centre = Point(sum((p.x for p in convex._q_vertices), _Q0) / n,
                       sum((p.y for p in convex._q_vertices), _Q0) / n)
        return self._q_locate(centre) is Where.INSIDE

    def closest(self, seg: Segment) -> tuple[Fraction, Point, Point]:
        """Squared distance from a segment to this (closed) polygon, with the points (on seg, on polygon)."""
        found = self.closest_within(seg, None)
        assert found is not None  # no limit: always an answer
        return found

    def closest_within(self, seg: Segment, limit2: Fraction | None) -> tuple[Fraction, Point, Point] | None:
        """As :meth:`closest`, but None at once when the bounding boxes are already farther than ``limit2``."""
        found = self._q_closest_within(_qseg(seg), None if limit2 is None else mpq(limit2))
        return None if found is None else (_fq(found[0]), _fp(found[1]), _fp(found[2]))

    def _q_closest_within(self, seg: Segment, limit2: Any,
                          memo: dict[tuple[int, int], tuple[Any, Point, Point]] | None = None
                          ) -> tuple[Any, Point, Point] | None:
        """:meth:`closest_within` over GMP's rationals (``memo``: see :func:`_q_closest_memo`)."""
        if limit2 is not None and _gap2(self._q_box, Box.around(seg.a, seg.b)) > limit2:
            return None
        if self._q_locate(seg.a) is not Where.OUTSIDE:
            return _Q0, seg.a, seg.a
        best: tuple[Any, Point, Point] | None = None
        direction_ = seg.b - seg.a
        seg_box = Box.around(seg.a, seg.b)
        boxes = self._q_edge_boxes
        for edge in self._q_edges_within(seg, None):
            if best is not None and _gap2(seg_box, boxes[id(edge)]) > best[0]:
                continue  # this edge cannot come closer than the best so far
            found = _q_closest_memo(seg, edge, memo)
            # On a tie, an edge parallel to the segment gives the middle of all the shortest segments.
            if best is None or found[0] < best[0] or (
                    found[0] == best[0] and direction_.cross(edge.b - edge.a) == 0):
                best = found
                if found[0] == 0:
                    break
        assert best is not None
        return best


def rectangle(frame: Frame, x0: Fraction, x1: Fraction, y0: Fraction, y1: Fraction) -> Polygon:
    """The rectangle ``x0..x1`` by ``y0..y1`` in a frame's local coordinates (counter-clockwise)."""
    if not (x0 < x1 and y0 < y1):
        raise GeometryError("a rectangle needs x0 < x1 and y0 < y1")
    o, f = _q(frame.origin), _q(frame.forward)  # Frame.world over GMP's rationals: r = (f.y, -f.x)
    corners = tuple(Point(o.x + x * f.y + y * f.x, o.y - x * f.x + y * f.y)
                    for x, y in ((mpq(x0), mpq(y0)), (mpq(x1), mpq(y0)), (mpq(x1), mpq(y1)), (mpq(x0), mpq(y1))))
    poly = Polygon.trusted(tuple(_fp(p) for p in corners))
    poly.__dict__["_q_vertices"] = corners  # the cached property, already worked out
    return poly


def arc_meets(polygon: Polygon, frame: Frame, half_width: Fraction, slope: Fraction = Fraction(1)) -> bool:
    """Whether any part of a polygon lies in a forward arc (closed: touching a boundary counts).

    The arc, in the frame's coordinates, is in front of the line y = 0 and inside two lines leaving the
    points (+-half_width, 0) outward at ``slope`` (lateral per forward; 1 is 45 degrees):
    ``y >= 0`` and ``|x| <= half_width + slope * y``. Exact: the polygon is clipped by the three half-planes.

    >>> f = Frame.at(Point.of(0, 0), 0)
    >>> arc_meets(Polygon.of([(4, 2), (5, 2), (5, 3)]), f, Fraction(2))   # (4, 2): |4| <= 2 + 2
    True
    >>> arc_meets(Polygon.of([(4, 1), (5, 1), (5, 2)]), f, Fraction(2))
    False
    """
    zero, one = _Q0, _Q1
    h, slope = mpq(half_width), mpq(slope)
    origin, forward = _q(frame.origin), _q(frame.forward)
    right = Point(forward.y, -forward.x)
    ox, oy, fx, fy, rx, ry = origin.x, origin.y, forward.x, forward.y, right.x, right.y
    # each vertex in the frame's coordinates, over GMP's rationals (Frame.local written out)
    local = [Point((p.x - ox) * rx + (p.y - oy) * ry, (p.x - ox) * fx + (p.y - oy) * fy)
             for p in polygon._q_vertices]
    # Fast exact answers first: a vertex inside, or every vertex beyond one boundary line.
    if any(p.y >= 0 and abs(p.x) <= h + slope * p.y for p in local):
        return True
    if all(p.y < 0 for p in local) or all(p.x > h + slope * p.y for p in local) or all(
            -p.x > h + slope * p.y for p in local):
        return False
    bounds = (
        (Point(zero, zero), Point(one, zero)),  # y >= 0
        (Point(h, zero), Point(h + slope, one)),  # x <= h + slope * y
        (Point(-h, zero), Point(-h + slope, -one)),  # x >= -h - slope * y
    )
    pts: Sequence[Point] = local
    for a, b in bounds:
        pts = clip_halfplane(pts, a, b)
        if not pts:
            return False
    return True


def all_behind(frame: Frame, polygons: Sequence[Polygon]) -> bool:
    """Whether every vertex of the polygons lies strictly behind the frame's line y = 0 (local y < 0). Exact.

    >>> f = Frame.at(Point.of(0, 0), 0)
    >>> behind, touching = Polygon.of([(0, -1), (1, -1), (1, -2)]), Polygon.of([(0, 0), (1, -1), (1, -2)])
    >>> all_behind(f, [behind]), all_behind(f, [touching])
    (True, False)
    """
    origin, forward = _q(frame.origin), _q(frame.forward)
    ox, oy, fx, fy = origin.x, origin.y, forward.x, forward.y
    return all((p.x - ox) * fx + (p.y - oy) * fy < 0 for poly in polygons for p in poly._q_vertices)


def clip_halfplane(points: Sequence[Point], a: Point, b: Point) -> list[Point]:
    """Sutherland-Hodgman: the part of a convex polygon on or left of the directed line a -> b (exact)."""
    out: list[Point] = []
    n = len(points)
    for i in range(n):
        p, q = points[i], points[(i + 1) % n]
        sp = (b - a).cross(p - a)
        sq = (b - a).cross(q - a)
        if sp >= 0:
            out.append(p)
        if (sp > 0 > sq) or (sp < 0 < sq):
            t = sp / (sp - sq)
            out.append(p + (q - p).scale(t))
    return out


# The tied shortest segments are worked out in ties.py (over the polygons above); they are named here too.
from rangefire.geometry.ties import Stretch as Stretch  # noqa: E402
from rangefire.geometry.ties import middle_segment as middle_segment  # noqa: E402
from rangefire.geometry.ties import shortest_line as shortest_line  # noqa: E402
from rangefire.geometry.ties import shortest_stretches as shortest_stretches  # noqa: E402
