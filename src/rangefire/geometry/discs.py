"""Line of sight between round bases among polygonal terrain.

A round base sees another when *some* segment from one to the other is clear (a skirmish-game rule). The set
of such segments is infinite and its edges are tangents to circles, which are irrational; so the question is
answered over a fixed, finite family of segments, each judged exactly:

- the segment between the two centres, then
- every segment between :data:`RIM_STEPS` + 1 points on the half of each base edge that faces the other base
  (the points lie exactly on the circles: rational points of the unit circle, scaled by the radius).

The tolerances of this module, stated here and nowhere else:

- the family of segments (:data:`RIM_STEPS`): a gap in the terrain narrower than the spacing of the rim points
  (15 degrees of the edge: about 0.15 in on a 30 mm base, 0.31 in on a 60 mm one) can be missed; a segment it
  names is always truly clear;
- :data:`ZONE_TOLERANCE`: a rim point lies within 10^-7 radians of where it is meant to be, never exactly on an
  irrational nearest point, so a zone's edge is widened by 10^-9 in when rim points are tested against it
  (whether a base is within reach of a zone at all is decided exactly).

Distances between bases (edge to edge) are exact: radii are rational (mm / 25.4) and distances are compared
squared. Terrain of a kind is judged on the union of its pieces: a segment running along the shared edge of two
pieces that cover both sides of it runs through them, and overlapping pieces count once [BU-2.5, BU-2.6].
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import TypeVar, overload

import numpy as np

from rangefire.geometry import exact as _exact
from rangefire.geometry.exact import (
    Point,
    Polygon,
    Segment,
    closest_on_segment,
    orient,
)
from rangefire.geometry.floats import float_gap_to_segment
from rangefire.geometry.screen import APART, Screen, ends

T = TypeVar("T", float, Fraction)

#: Points per facing half of a base edge, less one: the rim points are 1/(2 * RIM_STEPS) of a turn apart.
RIM_STEPS = 12
#: How far (in inches) a rim point may lie beyond a zone's edge and still count as inside it: a rim point is
#: within a bearing tolerance of the exact nearest point, never exactly on it.
ZONE_TOLERANCE = Fraction(1, 10**9)
MM_PER_INCH = Fraction(254, 10)
_HALF_TAN_SCALE = 2**24


@dataclass(frozen=True)
class Disc:
    """A round base: exact centre, exact radius (a point has radius 0).

    >>> a = Disc(Point.of(0, 0), Fraction(1)); b = Disc(Point.of(5, 0), Fraction(1))
    >>> a.is_within(b, 3), a.is_within(b, Fraction(29, 10))
    (True, False)
    """

    centre: Point
    radius: Fraction

    @classmethod
    def base(cls, position: tuple[Fraction, Fraction], mm: int) -> Disc:
        """A base of ``mm`` millimetres across, in inches."""
        return cls(Point(*position), Fraction(mm) / MM_PER_INCH / 2)

    def is_within(self, other: Disc, reach: Fraction | int) -> bool:
        """Whether the edge-to-edge distance is at most ``reach`` (exact, boundary included)."""
        total = self.radius + other.radius + reach
        return total >= 0 and (self.centre - other.centre).norm2() <= total * total

    def overlaps(self, other: Disc) -> bool:
        """Whether the two discs share area (touching is not overlapping)."""
        total = self.radius + other.radius
        return (self.centre - other.centre).norm2() < total * total

    def gap(self, other: Disc) -> float:
        """The edge-to-edge distance, for display (verdicts use :meth:`is_within`)."""
        return math.dist((float(self.centre.x), float(self.centre.y)),
                         (float(other.centre.x), float(other.centre.y))) - float(self.radius + other.radius)

    def rim_params(self, toward: Point, steps: int = RIM_STEPS) -> list[tuple[int, int]]:
        """The unit vectors (see :func:`_unit_params`) of the rim points facing ``toward``, middle first; none
        for a point, or when ``toward`` is the centre."""
        d = toward - self.centre
        if self.radius == 0 or (d.x == 0 and d.y == 0):
            return []
        facing = math.atan2(float(d.y), float(d.x))
        order = sorted(range(-steps // 2, steps // 2 + 1), key=lambda k: (abs(k), k))
        return [_unit_params(facing + math.pi * k / steps) for k in order]

    def rim_point(self, param: tuple[int, int] | None) -> Point:
        """The rim point of a unit vector, exact (the centre for None)."""
        if param is None:
            return self.centre
        # centre + unit * radius over one common denominator: a single normalisation a coordinate
        quarter, k = param
        n = _HALF_TAN_SCALE
        c, s, d = n * n - k * k, 2 * k * n, n * n + k * k
        for _ in range(quarter):
            c, s = -s, c  # a quarter turn, exactly
        (cx, cy), r = self.centre, self.radius
        return Point(Fraction(cx.numerator * r.denominator * d + c * r.numerator * cx.denominator,
                              cx.denominator * r.denominator * d),
                     Fraction(cy.numerator * r.denominator * d + s * r.numerator * cy.denominator,
                              cy.denominator * r.denominator * d))

    def rim(self, toward: Point, steps: int = RIM_STEPS) -> list[Point]:
        """Points exactly on the edge, on the half facing ``toward``, from the middle outwards."""
        return [self.rim_point(p) for p in self.rim_params(toward, steps)] or [self.centre]


def _unit_params(angle: float) -> tuple[int, int]:
    """A rational point of the unit circle within about 10^-7 radians of ``angle`` (counter-clockwise from +x),
    as (quarter turns, k): from t = k / 2^24, the tangent of half the rest of the angle. Small denominators keep
    the exact work that follows cheap; where a rim point lies is a choice of sample, so this precision is ample."""
    quarter, rest = divmod(angle, math.pi / 2)
    return int(quarter) % 4, round(math.tan(rest / 2) * _HALF_TAN_SCALE)


def _unit(quarter: int, k: int) -> Point:
    """The point of :func:`_unit_params`, exact: cos = (n^2 - k^2) / (n^2 + k^2), sin = 2kn / (n^2 + k^2)."""
    n = _HALF_TAN_SCALE
    c, s = Fraction(n * n - k * k, n * n + k * k), Fraction(2 * k * n, n * n + k * k)
    for _ in range(quarter):
        c, s = -s, c  # a quarter turn, exactly
    return Point(c, s)


def _unit_float(quarter: int, k: int) -> tuple[float, float]:
    """The same point in floats, each coordinate the correctly rounded quotient of the same integers."""
    n = _HALF_TAN_SCALE
    c, s = (n * n - k * k) / (n * n + k * k), (2 * k * n) / (n * n + k * k)
    for _ in range(quarter):
        c, s = -s, c
    return c, s


@dataclass(frozen=True)
class Piece:
    """A terrain piece as the sight rules see it: ``solid`` blocks, ``obscuring`` is seen into a little."""

    id: str
    kind: str
    polygon: Polygon


#: Float lengths and distances this close to a limit are settled exactly instead.
_MARGIN = 1e-6


@dataclass(frozen=True)
class Line:
    """One segment judged against the terrain: what it crosses, and how far it runs inside obscuring terrain.

    Floats settle what they can by a clear margin (:class:`~rangefire.geometry.screen.Screen`); whatever lies near a
    boundary of a verdict (a touched corner, 3 in give or take a hair) is worked out exactly.
    """

    segment: Segment
    solid: tuple[str, ...]
    obscuring: tuple[str, ...]
    #: The obscuring pieces crossed, for exact work when floats cannot settle a verdict.
    crossed: tuple[Polygon, ...] = ()
    #: Stretches (t0, t1) inside obscuring terrain, merged where pieces overlap, in floats.
    approx: tuple[tuple[float, float], ...] = ()
    #: Stretches (t0, t1) run along the shared edge of obscuring pieces that cover both sides of it, with those
    #: pieces: inside their union though inside neither's interior [BU-2.6].
    seams: tuple[tuple[Fraction, Fraction, tuple[str, ...]], ...] = ()

    @cached_property
    def stretches(self) -> tuple[tuple[Fraction, Fraction], ...]:
        """The stretches inside obscuring terrain, exact: the union of the pieces, where they overlap or abut
        counted once [BU-2.6]."""
        return _merged([*(t for poly in self.crossed for t in poly.interior_params(self.segment)),
                        *((t0, t1) for t0, t1, _ in self.seams)])

    @cached_property
    def obscured2(self) -> Fraction:
        """The squared length run inside obscuring terrain (exact)."""
        total = sum((t1 - t0 for t0, t1 in self.stretches), Fraction(0))
        return total * total * (self.segment.b - self.segment.a).norm2()

    @property
    def obscured(self) -> float:
        """The length run inside obscuring terrain, for display."""
        length = math.dist((float(self.segment.a.x), float(self.segment.a.y)),
                           (float(self.segment.b.x), float(self.segment.b.y)))
        return sum(t1 - t0 for t0, t1 in self.approx) * length

    def is_clear(self, limit: Fraction) -> bool:
        """No solid terrain crossed and at most ``limit`` inches of obscuring terrain in total."""
        if self.solid:
            return False
        estimate = self.obscured
        if estimate < float(limit) - _MARGIN:
            return True
        if estimate > float(limit) + _MARGIN:
            return False
        return self.obscured2 <= limit * limit

    def is_obscured_near(self, disc: Disc, reach: Fraction | int) -> bool:
        """Whether some stretch inside obscuring terrain comes within ``reach`` of ``disc``'s edge."""
        r = float(disc.radius + reach)
        a, b = self.segment
        ax, ay, bx, by = float(a.x), float(a.y), float(b.x), float(b.y)
        centre = (float(disc.centre.x), float(disc.centre.y))
        unsure = False
        for t0, t1 in self.approx:
            gap = float_gap_to_segment(centre, (ax + t0 * (bx - ax), ay + t0 * (by - ay)),
                                       (ax + t1 * (bx - ax), ay + t1 * (by - ay)))
            if gap < r - _MARGIN:
                return True
            unsure = unsure or gap <= r + _MARGIN
        if not unsure:
            return False
        exact_r = disc.radius + reach
        for e0, e1 in self.stretches:
            part = Segment(self.segment.at(e0), self.segment.at(e1))
            if (closest_on_segment(disc.centre, part) - disc.centre).norm2() <= exact_r * exact_r:
                return True
        return False

    def pieces_near(self, disc: Disc, reach: Fraction | int) -> tuple[str, ...]:
        """The obscuring pieces whose own stretches on this line come within ``reach`` of ``disc``'s edge (both
        pieces of a stretch along their shared edge [BU-2.6])."""
        r2 = (disc.radius + reach) ** 2

        def near(t0: Fraction, t1: Fraction) -> bool:
            part = Segment(self.segment.at(t0), self.segment.at(t1))
            return (closest_on_segment(disc.centre, part) - disc.centre).norm2() <= r2

        found = {pid for t0, t1, pids in self.seams if near(t0, t1) for pid in pids}
        for pid, polygon in zip(self.obscuring, self.crossed, strict=True):
            if pid not in found and any(near(t0, t1) for t0, t1 in polygon.interior_params(self.segment)):
                found.add(pid)
        return tuple(pid for pid in self.obscuring if pid in found)

    def to_dict(self) -> dict[str, object]:
        return {"from": [round(float(c), 4) for c in self.segment.a],
                "to": [round(float(c), 4) for c in self.segment.b],
                "solid": list(self.solid), "obscuring": list(self.obscuring),
                "obscured_inches": round(self.obscured, 4)}


def judge(segment: Segment, pieces: Sequence[Piece],
          screened: Sequence[list[tuple[float, float]] | None] | None = None) -> Line:
    """Judge one segment against the terrain. Touching a piece is not crossing it; pieces of a kind are judged
    on their union, so a segment running along the shared edge of two pieces that cover it on both sides runs
    through them [BU-2.5, BU-2.6].

    ``screened`` holds, piece by piece, the float stretches a :class:`~rangefire.geometry.screen.Screen` settled
    (None where it could not): only the rest is worked out exactly here. A settled piece has no edge along the
    segment (the screen hands over every edge that comes near its line), so only the rest are searched for one.
    """
    solid: list[str] = []
    obscuring: list[str] = []
    crossed: list[Polygon] = []
    approx: list[tuple[float, float]] = []
    along: list[tuple[Fraction, Fraction, int, int]] = []  # edges the segment runs along: (t0, t1, side, k)
    inside: list[int] = []  # the pieces whose interior it crosses
    for k, piece in enumerate(pieces):
        if piece.kind not in ("solid", "obscuring"):
            continue
        quick = screened[k] if screened is not None else None
        if quick is None:  # not screened, or too close to call in floats
            quick = [(float(t0), float(t1)) for t0, t1 in piece.polygon.interior_params(segment)]
            along.extend((t0, t1, side, k) for t0, t1, side in _along_edges(segment, piece.polygon))
        if not quick:
            continue
        inside.append(k)
        if piece.kind == "solid":
            solid.append(piece.id)
        else:
            obscuring.append(piece.id)
            crossed.append(piece.polygon)
            approx.extend(quick)
    if len(along) < 2:  # no shared edge: each piece on its own is its part of the union
        return Line(segment, tuple(solid), tuple(obscuring), tuple(crossed), _merged(approx))
    solid_seams = _seams([e for e in along if pieces[e[3]].kind == "solid"])  # [BU-2.5]
    seams = _seams([e for e in along if pieces[e[3]].kind == "obscuring"])  # [BU-2.6]
    # every piece in piece order: those whose interior is crossed, and those that cover a seam
    with_solid = {k for _, _, ks in solid_seams for k in ks} | {k for k in inside if pieces[k].kind == "solid"}
    with_obscuring = {k for _, _, ks in seams for k in ks} | {k for k in inside if pieces[k].kind == "obscuring"}
    approx.extend((float(t0), float(t1)) for t0, t1, _ in seams)
    return Line(segment, tuple(pieces[k].id for k in sorted(with_solid)),
                tuple(pieces[k].id for k in sorted(with_obscuring)),
                tuple(pieces[k].polygon for k in sorted(with_obscuring)), _merged(approx),
                tuple((t0, t1, tuple(pieces[k].id for k in ks)) for t0, t1, ks in seams))


def _along_edges(segment: Segment, polygon: Polygon) -> list[tuple[Fraction, Fraction, int]]:
    """The stretches (t0, t1) of ``segment`` that run along an edge of ``polygon``, each with the side of the
    segment the polygon's interior lies on beside it: +1 left, -1 right (exact)."""
    a, b = segment
    d = b - a
    n2 = d.norm2()
    if n2 == 0:
        return []
    if _exact.FAST_FILTERS:  # only vertices near the segment's line can end an edge along it
        ax, ay, dx, dy = float(a.x), float(a.y), float(d.x), float(d.y)
        slack = _MARGIN * math.hypot(dx, dy)
        on_line = [abs(dx * (float(p.y) - ay) - dy * (float(p.x) - ax)) <= slack
                   and orient(a, b, p) == 0 for p in polygon.vertices]
    else:
        on_line = [orient(a, b, p) == 0 for p in polygon.vertices]
    out: list[tuple[Fraction, Fraction, int]] = []
    turn = 0
    for i, edge in enumerate(polygon.edges()):
        if not (on_line[i] and on_line[(i + 1) % len(on_line)]):
            continue
        t0, t1 = sorted(((edge.a - a).dot(d) / n2, (edge.b - a).dot(d) / n2))
        lo, hi = max(t0, Fraction(0)), min(t1, Fraction(1))
        if lo < hi:
            # the interior lies left of each edge of a counter-clockwise polygon, as it is walked
            turn = turn or (1 if polygon.area2() > 0 else -1)
            out.append((lo, hi, turn if (edge.b - edge.a).dot(d) > 0 else -turn))
    return out


def _seams(along: Sequence[tuple[Fraction, Fraction, int, int]]) -> list[tuple[Fraction, Fraction, tuple[int, ...]]]:
    """Where edges run along a segment, (t0, t1, side, piece), the stretches covered on both sides at once, with
    the pieces that cover them: inside the union of the pieces though inside no piece's interior."""
    if len(along) < 2:
        return []
    cuts = sorted({t for t0, t1, _, _ in along for t in (t0, t1)})
    out: list[tuple[Fraction, Fraction, tuple[int, ...]]] = []
    for lo, hi in itertools.pairwise(cuts):
        cover = [(side, k) for t0, t1, side, k in along if t0 <= lo and hi <= t1]
        if {side for side, _ in cover} != {1, -1}:
            continue
        ks = tuple(sorted({k for _, k in cover}))
        if out and out[-1][1] == lo and out[-1][2] == ks:
            out[-1] = (out[-1][0], hi, ks)
        else:
            out.append((lo, hi, ks))
    return out


def _judged(segments: Sequence[Segment], pieces: Sequence[Piece],
            arrays: tuple[np.ndarray, np.ndarray] | None = None) -> Iterator[Line]:
    """Judge segments in order, after one float screen of all of them against every piece: each segment is
    then judged only against the pieces the screen did not find apart from it."""
    if not pieces or not _exact.FAST_FILTERS:
        for segment in segments:
            yield judge(segment, pieces)
        return
    a, b = arrays if arrays is not None else ends(segments)
    screen = Screen(a, b, [piece.polygon for piece in pieces])
    for i, segment in enumerate(segments):
        yield _judge_screened(segment, i, pieces, screen)


def _judge_screened(segment: Segment, i: int, pieces: Sequence[Piece], screen: Screen) -> Line:
    """Judge segment i of a screen, against the pieces the screen did not find apart from it."""
    ks = np.flatnonzero(screen.status[i] != APART).tolist()
    return judge(segment, [pieces[k] for k in ks], [screen.stretches(i, k) for k in ks])


def _merged(stretches: Iterable[tuple[T, T]]) -> tuple[tuple[T, T], ...]:
    out: list[tuple[T, T]] = []
    for t0, t1 in sorted(stretches):
        if out and t0 <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], t1))
        else:
            out.append((t0, t1))
    return tuple(out)


def _near(pieces: Sequence[Piece], a: Disc, b: Disc) -> tuple[list[Piece], list[Piece]]:
    """The pieces that can touch a segment between the discs: those within the larger radius of the centre
    line (every such segment lies in the hull of the two discs); and of those, the ones that can touch the
    centre line itself. Both by a clear float margin: the rest are judged exactly."""
    near = [p for p in pieces if p.kind != "clear"]
    if not _exact.FAST_FILTERS:
        return near, near
    reach = float(max(a.radius, b.radius)) + _MARGIN
    ax, ay, bx, by = float(a.centre.x), float(a.centre.y), float(b.centre.x), float(b.centre.y)
    x0, x1, y0, y1 = min(ax, bx) - reach, max(ax, bx) + reach, min(ay, by) - reach, max(ay, by) + reach
    centre_line = Segment(a.centre, b.centre)
    corridor, on_line = [], []
    for piece in near:
        px0, py0, px1, py1 = piece.polygon.float_box
        if px0 > x1 or px1 < x0 or py0 > y1 or py1 < y0:
            continue
        gap = piece.polygon.float_gap(centre_line)
        if gap <= reach:
            corridor.append(piece)
            if gap <= _MARGIN:
                on_line.append(piece)
    return corridor, on_line


def candidates(a: Disc, b: Disc) -> tuple[Segment, ...]:
    """The family of segments from ``a`` to ``b`` that sight is judged over (see the module docstring): the
    centre line, then the segments between rim points."""
    return (Segment(a.centre, b.centre), *_rim_segments(a, b))


class RimFamily(Sequence[Segment]):
    """The segments between the rim points of two discs, built for the pair in a fixed order so that ``a`` sees
    ``b`` exactly when ``b`` sees ``a``. Their ends are ready in floats for the screen (``arrays``); the exact
    points are made only for the segments asked for."""

    def __init__(self, a: Disc, b: Disc) -> None:
        first, second = sorted((a, b), key=lambda d: (d.centre.x, d.centre.y, d.radius))
        # a point (radius 0) has one "rim point": its centre, written None
        params_first: list[tuple[int, int] | None] = [*first.rim_params(second.centre)] or [None]
        params_second: list[tuple[int, int] | None] = [*second.rim_params(first.centre)] or [None]
        self.discs = (a, b)
        self.params = (params_first, params_second) if first is a else (params_second, params_first)
        floats = [np.array([self._float(disc, p) for p in params]) for disc, params in zip(self.discs, self.params,
                                                                                               strict=True)]
        self.arrays = (np.repeat(floats[0], len(floats[1]), axis=0), np.tile(floats[1], (len(floats[0]), 1)))
        self._points: tuple[dict[int, Point], dict[int, Point]] = ({}, {})

    @staticmethod
    def _float(disc: Disc, param: tuple[int, int] | None) -> tuple[float, float]:
        cx, cy = float(disc.centre.x), float(disc.centre.y)
        if param is None:
            return cx, cy
        ux, uy = _unit_float(*param)
        r = float(disc.radius)
        return cx + ux * r, cy + uy * r

    def _point(self, side: int, j: int) -> Point:
        cache = self._points[side]
        if j not in cache:
            cache[j] = self.discs[side].rim_point(self.params[side][j])
        return cache[j]

    def __len__(self) -> int:
        return len(self.params[0]) * len(self.params[1])

    @overload
    def __getitem__(self, i: int) -> Segment: ...

    @overload
    def __getitem__(self, i: slice) -> list[Segment]: ...

    def __getitem__(self, i: int | slice) -> Segment | list[Segment]:
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        i %= len(self)
        per = len(self.params[1])
        return Segment(self._point(0, i // per), self._point(1, i % per))


@lru_cache(maxsize=4096)
def _rim_segments(a: Disc, b: Disc) -> RimFamily:
    return RimFamily(a, b)


def lines_between(a: Disc, b: Disc, pieces: Sequence[Piece]) -> Iterator[Line]:
    """Each segment of the family from ``a`` to ``b``, judged, in order (lazily: callers stop when they know).
    Bases that touch or overlap see each other along a line of no length, the only one."""
    if a.is_within(b, 0):
        c = a.centre + (b.centre - a.centre).scale(a.radius / (a.radius + b.radius) if a.radius + b.radius else 0)
        yield judge(Segment(c, c), [])
        return
    near, on_line = _near(pieces, a, b)
    yield from _judged([Segment(a.centre, b.centre)], on_line)  # only the pieces it may meet
    # the rim segments are built and screened only when the centre line does not settle the question
    family = _rim_segments(a, b)
    yield from _judged(family, near, family.arrays)


@dataclass(frozen=True)
class Seen:
    """Whether one disc sees another: the first clear line of the family (or None), how many lines were looked
    at to find it, and, when none is clear, the solid pieces crossed and the obscuring pieces seen too deep into
    on lines crossing no solid."""

    line: Line | None
    tried: int
    solid: tuple[str, ...] = ()
    deep: tuple[str, ...] = ()


def first_clear(a: Disc, b: Disc, pieces: Sequence[Piece], limit: Fraction) -> Seen:
    """The first clear line from ``a`` to ``b``, as :func:`sight_lines` finds it, but deciding the lines that
    floats settle by a clear margin (a solid piece crossed, far more than ``limit`` inside obscuring terrain)
    all at once, and judging one by one only the rest, in order."""
    if a.is_within(b, 0) or not _exact.FAST_FILTERS:
        return seen_on(*sight_lines(a, b, pieces, limit, every=False))
    near, on_line = _near(pieces, a, b)
    centre = next(_judged([Segment(a.centre, b.centre)], on_line))
    if centre.is_clear(limit):
        return Seen(centre, 1)
    segments = _rim_segments(a, b)
    arrays = segments.arrays
    screen = Screen(*arrays, [piece.polygon for piece in near])
    inside = screen.lengths()
    unsure = np.isnan(inside)
    crossed = unsure | (inside > 0)
    solid_kind = np.array([piece.kind == "solid" for piece in near], dtype=bool)
    seg_length = np.hypot(*(arrays[1] - arrays[0]).T)
    blocked_solid = (~unsure & (inside > 0) & solid_kind[None, :]).any(axis=1)
    # through one obscuring piece at most: the sum is the union's length; overlaps are measured by judging [BU-2.6]
    simple = ~unsure.any(axis=1) & (crossed[:, ~solid_kind].sum(axis=1) <= 1)
    obscured = np.nan_to_num(inside)[:, ~solid_kind].sum(axis=1) * seg_length
    too_deep = simple & ~blocked_solid & (obscured > float(limit) + _MARGIN)  # within the margin: judged exactly
    look = ~(blocked_solid | too_deep)
    solid, deep = set(centre.solid), set() if centre.solid else set(centre.obscuring)

    for i in np.flatnonzero(look).tolist():
        line = _judge_screened(segments[i], i, near, screen)
        if line.is_clear(limit):
            return Seen(line, i + 2)
        solid.update(line.solid)
        deep.update(() if line.solid else line.obscuring)
    # nothing is clear: name what blocks, exactly where the floats were unsure of a piece
    for i in np.flatnonzero(blocked_solid & unsure.any(axis=1)).tolist():
        solid.update(_judge_screened(segments[i], i, near, screen).solid)
    names = np.array([piece.id for piece in near], dtype=object)
    solid.update(names[(blocked_solid[:, None] & ~unsure & (inside > 0) & solid_kind[None, :]).any(axis=0)])
    deep.update(names[(too_deep[:, None] & (inside > 0) & ~solid_kind[None, :]).any(axis=0)])
    return Seen(None, 1 + len(segments), tuple(sorted(solid)), tuple(sorted(deep)))


def seen_on(first: Line | None, judged: Sequence[Line]) -> Seen:
    """What lines judged in turn show: the first clear one, or what blocks them all."""
    if first is not None:
        return Seen(first, len(judged))
    solid = sorted({pid for line in judged for pid in line.solid})
    deep = sorted({pid for line in judged if not line.solid for pid in line.obscuring})
    return Seen(None, len(judged), tuple(solid), tuple(deep))


def sight_lines(a: Disc, b: Disc, pieces: Sequence[Piece], limit: Fraction,
                every: bool = False) -> tuple[Line | None, list[Line]]:
    """The first clear line from ``a`` to ``b`` (or None), and the lines judged on the way (all, with
    ``every``)."""
    first: Line | None = None
    judged: list[Line] = []
    for line in lines_between(a, b, pieces):
        judged.append(line)
        if first is None and line.is_clear(limit):
            first = line
            if not every:
                break
    return first, judged
