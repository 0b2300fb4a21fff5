"""Line of sight between round bases among polygonal terrain.

A round base sees another when *some* segment from one to the other is clear (a skirmish-game rule). The set
of such segments is infinite and its edges are tangents to circles, which are irrational; so the question is
answered over a fixed, finite family of segments, each judged exactly:

- the segment between the two centres, then
- every segment between :data:`RIM_STEPS` + 1 points on the half of each base edge that faces the other base
  (the points lie exactly on the circles: rational points from :func:`~rangefire.geometry.exact.direction`).

That family is the one stated tolerance of this module: a gap in the terrain narrower than the spacing of the
rim points (15 degrees of the edge: about 0.15 in on a 30 mm base, 0.31 in on a 60 mm one) can be missed, and
a segment it names is always truly clear. Distances between bases (edge to edge) are exact: radii are rational
(mm / 25.4) and distances are compared squared.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rangefire.geometry.exact import Box, Contact, Point, Polygon, Segment, closest_on_segment, direction

#: Points per facing half of a base edge, less one: the rim points are 1/(2 * RIM_STEPS) of a turn apart.
RIM_STEPS = 12
#: How far (in inches) a rim point may lie beyond a zone's edge and still count as inside it: a rim point is
#: within a bearing tolerance of the exact nearest point, never exactly on it.
ZONE_TOLERANCE = Fraction(1, 10**9)
MM_PER_INCH = Fraction(254, 10)


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

    def box(self) -> Box:
        c, r = self.centre, self.radius
        return Box(c.x - r, c.y - r, c.x + r, c.y + r)

    def rim(self, toward: Point, steps: int = RIM_STEPS) -> list[Point]:
        """Points exactly on the edge, on the half facing ``toward``, from the middle outwards."""
        if self.radius == 0:
            return [self.centre]
        d = toward - self.centre
        if d.x == 0 and d.y == 0:
            return [self.centre]
        facing = math.degrees(math.atan2(float(d.x), float(d.y)))
        order = sorted(range(-steps // 2, steps // 2 + 1), key=lambda k: (abs(k), k))
        points = []
        for k in order:
            u = direction(Fraction(facing + 180 * k / steps).limit_denominator(10**9))
            points.append(Point(self.centre.x + u.x * self.radius, self.centre.y + u.y * self.radius))
        return points


@dataclass(frozen=True)
class Piece:
    """A terrain piece as the sight rules see it: ``solid`` blocks, ``obscuring`` is seen into a little."""

    id: str
    kind: str
    polygon: Polygon


@dataclass(frozen=True)
class Line:
    """One segment judged exactly: what it crosses, and how far it runs inside obscuring terrain."""

    segment: Segment
    solid: tuple[str, ...]
    obscuring: tuple[str, ...]
    #: Stretches (t0, t1) of the segment inside obscuring terrain, merged where pieces overlap.
    stretches: tuple[tuple[Fraction, Fraction], ...]

    @property
    def obscured2(self) -> Fraction:
        """The squared length run inside obscuring terrain (exact)."""
        total = sum((t1 - t0 for t0, t1 in self.stretches), Fraction(0))
        return total * total * (self.segment.b - self.segment.a).norm2()

    @property
    def obscured(self) -> float:
        return math.sqrt(self.obscured2)

    def is_clear(self, limit: Fraction) -> bool:
        """No solid terrain crossed and at most ``limit`` inches of obscuring terrain in total."""
        return not self.solid and self.obscured2 <= limit * limit

    def is_obscured_near(self, disc: Disc, reach: Fraction | int) -> bool:
        """Whether some stretch inside obscuring terrain comes within ``reach`` of ``disc``'s edge."""
        r = disc.radius + reach
        for t0, t1 in self.stretches:
            part = Segment(self.segment.at(t0), self.segment.at(t1))
            if (closest_on_segment(disc.centre, part) - disc.centre).norm2() <= r * r:
                return True
        return False

    def to_dict(self) -> dict[str, object]:
        return {"from": [round(float(c), 4) for c in self.segment.a],
                "to": [round(float(c), 4) for c in self.segment.b],
                "solid": list(self.solid), "obscuring": list(self.obscuring),
                "obscured_inches": round(self.obscured, 4)}


def judge(segment: Segment, pieces: Sequence[Piece]) -> Line:
    """Judge one segment against the terrain, exactly. Touching a piece is not crossing it."""
    solid: list[str] = []
    obscuring: list[str] = []
    stretches: list[tuple[Fraction, Fraction]] = []
    for piece in pieces:
        if piece.kind == "solid":
            if piece.polygon.contact(segment) is Contact.CROSSING:
                solid.append(piece.id)
        elif piece.kind == "obscuring":
            found = piece.polygon.interior_params(segment)
            if found:
                obscuring.append(piece.id)
                stretches.extend(found)
    return Line(segment, tuple(solid), tuple(obscuring), _merged(stretches))


def _merged(stretches: Iterable[tuple[Fraction, Fraction]]) -> tuple[tuple[Fraction, Fraction], ...]:
    out: list[tuple[Fraction, Fraction]] = []
    for t0, t1 in sorted(stretches):
        if out and t0 <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], t1))
        else:
            out.append((t0, t1))
    return tuple(out)


def _near(pieces: Sequence[Piece], a: Disc, b: Disc) -> list[Piece]:
    """The pieces whose boxes meet the box around both discs: no other piece can touch a segment between them."""
    ba, bb = a.box(), b.box()
    hull = Box(min(ba.x0, bb.x0), min(ba.y0, bb.y0), max(ba.x1, bb.x1), max(ba.y1, bb.y1))
    return [p for p in pieces if p.kind != "clear" and p.polygon.box.gap2(hull) == 0]


def candidates(a: Disc, b: Disc) -> list[Segment]:
    """The family of segments from ``a`` to ``b`` that sight is judged over (see the module docstring).

    The family is built for the pair in a fixed order, so that ``a`` sees ``b`` exactly when ``b`` sees ``a``.
    """
    first, second = sorted((a, b), key=lambda d: (d.centre.x, d.centre.y, d.radius))
    segments = [Segment(first.centre, second.centre)]
    rim_a, rim_b = first.rim(second.centre), second.rim(first.centre)
    segments += [Segment(p, q) for p in rim_a for q in rim_b]
    if first is not a:
        segments = [Segment(s.b, s.a) for s in segments]
    return segments


def sight_lines(a: Disc, b: Disc, pieces: Sequence[Piece], limit: Fraction,
                every: bool = False) -> tuple[Line | None, list[Line]]:
    """The first clear line from ``a`` to ``b`` (or None), and the lines judged on the way (all, with
    ``every``). Bases that touch or overlap see each other along a line of no length."""
    if a.is_within(b, 0):
        c = a.centre + (b.centre - a.centre).scale(a.radius / (a.radius + b.radius) if a.radius + b.radius else 0)
        line = judge(Segment(c, c), [])
        return line, [line]
    near = _near(pieces, a, b)
    first: Line | None = None
    judged: list[Line] = []
    for segment in candidates(a, b):
        line = judge(segment, near)
        judged.append(line)
        if first is None and line.is_clear(limit):
            first = line
            if not every:
                break
    return first, judged
