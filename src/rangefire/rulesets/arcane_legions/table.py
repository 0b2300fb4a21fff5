"""Arcane Legions on the table, in steps: bases, sides, notches, adjacency, range and line of sight [AL-1,
AL-3, AL-4]. Every verdict is exact (see ``rangefire.geometry`` for the one stated tolerance, bearings)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rangefire.geometry import Box, Contact, Point, Polygon, Segment, direction, exact
from rangefire.rulesets.arcane_legions.scenario import SIDE_NAMES, Terrain, Unit


@dataclass(frozen=True)
class Side:
    """One side of a base: its segment (left to right as seen from outside), outward normal and notches."""

    name: str
    segment: Segment
    normal: Point
    notches: tuple[Point, ...]

    def faces(self, p: Point) -> bool:
        """Whether ``p`` lies strictly on the outer side of the line through this side [AL-3.3]."""
        return (p - self.segment.a).dot(self.normal) > 0


@dataclass(frozen=True)
class Base:
    """A unit's base: its rectangle and sides; and, for :class:`Reach`, every notch over one common denominator
    as integers and each side's outward normal as integers (a positive multiple of it)."""

    unit: str
    polygon: Polygon
    sides: dict[str, Side]
    denominator: int
    scaled: dict[str, tuple[tuple[int, int], ...]]
    normals: dict[str, tuple[int, int]]


_BASES: dict[int, tuple[Unit, Base]] = {}
#: for a tuple of units (a battle's), the units near each one's base: see :func:`nearby`
_NEAR: dict[int, tuple[Sequence[Unit], dict[str, list[Unit]]]] = {}


def clear_caches() -> None:
    """Forget every base and neighbourhood worked out (for measuring the work they save)."""
    _BASES.clear()
    _NEAR.clear()


def base_of(unit: Unit) -> Base:
    """The unit's base, computed once per unit value (units are immutable; the cache holds the unit, so
    its id cannot be reused while cached)."""
    hit = _BASES.get(id(unit))
    if hit is not None and hit[0] is unit:
        return hit[1]
    if len(_BASES) > 8192:
        _BASES.clear()
    base = _make_base(unit)
    _BASES[id(unit)] = (unit, base)
    return base


def _make_base(unit: Unit) -> Base:
    """A sortie is 1 x 1 step, a formation 2 wide and 1 deep, placed by centre and facing [AL-1.1]; notches at
    the corners and the midpoint of every 1-step stretch [AL-1.3].

    Worked out in integers over one denominator (every corner and notch is the centre plus half-steps of the
    unit's exactly unit-length right and forward vectors, and notches quarter or halve a side), then made
    Fractions once: the same exact points as Fraction arithmetic gives, many times faster.

    >>> from rangefire.rulesets.arcane_legions.scenario import Unit
    >>> u = Unit(id="u", side="a", base="formation", position=(0, 0), facing=0,
    ...          sides={"front": "blue", "right": "grey", "back": "grey", "left": "red"}, slots=[{}])
    >>> [len(_make_base(u).sides[s].notches) for s in ("front", "right", "back", "left")]
    [5, 3, 5, 3]
    >>> _make_base(u).sides["front"].notches[1]
    Point(x=Fraction(-1, 2), y=Fraction(1, 2))
    """
    ox, oy = unit.position
    f = direction(unit.facing)
    den = 4 * math.lcm(ox.denominator, oy.denominator, f.x.denominator, f.y.denominator)
    cx, cy, fx, fy = int(ox * den), int(oy * den), int(f.x * den), int(f.y * den)
    rx, ry = fy, -fx  # right: a quarter turn clockwise of forward
    hw = 2 if unit.base == "formation" else 1  # half the width, in half-steps

    def at(x: int, y: int) -> tuple[int, int]:
        """The point x half-steps right and y forward of the centre (fx, fy, rx, ry are multiples of 4)."""
        return cx + (x * rx + y * fx) // 2, cy + (x * ry + y * fy) // 2

    corners = {"fl": at(-hw, 1), "fr": at(hw, 1), "br": at(hw, -1), "bl": at(-hw, -1)}
    ends = {"front": ("fl", "fr", (fx, fy)), "right": ("fr", "br", (rx, ry)),
            "back": ("br", "bl", (-fx, -fy)), "left": ("bl", "fl", (-rx, -ry))}
    normals = {"front": f, "right": Point(f.y, -f.x), "back": Point(-f.x, -f.y), "left": Point(-f.y, f.x)}
    points: dict[tuple[int, int], Point] = {}

    def point(xy: tuple[int, int]) -> Point:
        if xy not in points:
            points[xy] = Point(Fraction(xy[0], den), Fraction(xy[1], den))
        return points[xy]

    sides, scaled = {}, {}
    for name in SIDE_NAMES:
        (ax, ay), (bx, by) = corners[ends[name][0]], corners[ends[name][1]]
        n = 4 if (unit.base == "formation" and name in ("front", "back")) else 2  # notches cut the side in n
        scaled[name] = tuple((ax + (bx - ax) * i // n, ay + (by - ay) * i // n) for i in range(n + 1))
        notches = tuple(point(xy) for xy in scaled[name])
        sides[name] = Side(name, Segment(notches[0], notches[-1]), normals[name], notches)
    polygon = Polygon.trusted(tuple(point(corners[k]) for k in ("bl", "br", "fr", "fl")))
    return Base(unit.id, polygon, sides, den, scaled, {name: ends[name][2] for name in SIDE_NAMES})


def nearby(units: Sequence[Unit], unit: Unit) -> list[Unit]:
    """The units other than ``unit`` whose bases can touch its base, in the order of ``units``: those whose float
    bounding boxes are not apart by a clear margin (the rest are clearly apart, as :func:`touching_sides` would
    find). Worked out once for a tuple of units (a battle's units are one); every other unit when
    ``exact.FAST_FILTERS`` is off."""
    if not exact.FAST_FILTERS:
        return [u for u in units if u.id != unit.id]
    hit = _NEAR.get(id(units))
    if hit is None or hit[0] is not units:
        if len(_NEAR) > 64:
            _NEAR.clear()
        boxes = [(u, base_of(u).polygon.float_box) for u in units]
        m = 1e-6  # far beyond the rounding of the boxes (see Polygon.is_clearly_apart)
        near = {u.id: [v for v, (x0, y0, x1, y1) in boxes if v.id != u.id and x0 <= bx1 + m and bx0 <= x1 + m
                       and y0 <= by1 + m and by0 <= y1 + m] for u, (bx0, by0, bx1, by1) in boxes}
        hit = (units, near)
        _NEAR[id(units)] = hit
    return hit[1].get(unit.id, [])


class Reach:
    """The notches of two bases over one common denominator: squared distances and the facing of sides
    [AL-3.1, AL-3.3] in integers, exactly as the Fractions give them. A squared distance here is the true one
    times :attr:`scale`; :attr:`limit` is the square of the range (6 steps in the rules: the battle's option),
    inclusive, on the same scale, rounded down: a whole squared distance is within it exactly when the true one is
    within the range [AL-3.2]."""

    def __init__(self, a: Base, b: Base, range_steps: Fraction) -> None:
        den = math.lcm(a.denominator, b.denominator)
        self.scale = den * den
        self.limit = math.floor(range_steps * range_steps * self.scale)
        fa, fb = den // a.denominator, den // b.denominator
        self._a = {name: [(x * fa, y * fa) for x, y in ns] for name, ns in a.scaled.items()}
        self._b = {name: [(x * fb, y * fb) for x, y in ns] for name, ns in b.scaled.items()}
        self._na, self._nb = a.normals, b.normals  # signs of dot products are all that is asked of them

    def pairs(self, side_a: str, side_b: str) -> Iterator[tuple[int, int, int]]:
        """``(k_a, k_b, scaled squared distance)`` for every notch of ``side_a`` with every notch of ``side_b``."""
        targets = list(enumerate(self._b[side_b]))
        for ka, (xa, ya) in enumerate(self._a[side_a]):
            for kb, (xb, yb) in targets:
                yield ka, kb, (xa - xb) * (xa - xb) + (ya - yb) * (ya - yb)

    def facing(self, side_a: str, side_b: str, ka: int, kb: int) -> bool:
        """Whether each side has the other's notch strictly on its outer side [AL-3.3] (as :meth:`Side.faces`)."""
        (xa, ya), (xa0, ya0) = self._a[side_a][ka], self._a[side_a][0]
        (xb, yb), (xb0, yb0) = self._b[side_b][kb], self._b[side_b][0]
        (nxa, nya), (nxb, nyb) = self._na[side_a], self._nb[side_b]
        return (xb - xa0) * nxa + (yb - ya0) * nya > 0 and (xa - xb0) * nxb + (ya - yb0) * nyb > 0


def shared_stretch(a: Side, b: Side) -> Fraction:
    """The squared length of edge two sides share (0 when they only meet at a point or not at all)."""
    d = a.segment.b - a.segment.a
    if d.cross(b.segment.a - a.segment.a) != 0 or d.cross(b.segment.b - a.segment.a) != 0:
        return Fraction(0)
    n2 = d.norm2()
    t0, t1 = sorted(((b.segment.a - a.segment.a).dot(d) / n2, (b.segment.b - a.segment.a).dot(d) / n2))
    lo, hi = max(t0, Fraction(0)), min(t1, Fraction(1))
    return (hi - lo) ** 2 * n2 if hi > lo else Fraction(0)


def touching_sides(x: Unit, y: Unit) -> list[tuple[str, str]]:
    """The pairs of sides along which two bases share a stretch of edge of positive length [AL-1.4, AL-8.1]."""
    bx, by = base_of(x), base_of(y)
    if bx.polygon.is_clearly_apart(by.polygon) or bx.polygon.box.gap2(by.polygon.box) > 0:
        return []
    return [(sx, sy) for sx in SIDE_NAMES for sy in SIDE_NAMES
            if shared_stretch(bx.sides[sx], by.sides[sy]) > 0]


def is_adjacent(x: Unit, y: Unit, corner_contact: bool = False) -> bool:
    """Adjacent: the bases share a stretch of edge of positive length; touching at a corner only is not,
    unless the option ``corner_contact_is_adjacent`` says so [AL-1.4]."""
    if touching_sides(x, y):
        return True
    if not corner_contact:
        return False
    bx, by = base_of(x), base_of(y)
    return bx.polygon.box.gap2(by.polygon.box) == 0 and any(
        bx.polygon.contact(edge) is not Contact.CLEAR for edge in by.polygon.edges())


@dataclass(frozen=True)
class Sight:
    """What lies on a line of sight [AL-4]: blocking pieces, hindrances, and what it only touches."""

    blocked_by: tuple[str, ...]
    hindered_by: tuple[str, ...]
    touching: tuple[str, ...]

    @property
    def verdict(self) -> str:
        if self.blocked_by:
            return "blocked"
        if self.hindered_by:
            return "hindered"
        return "touching" if self.touching else "clear"


Piece = tuple[str, str, Polygon]


def sight_pieces(others: Sequence[Unit], terrain: Sequence[Terrain], between: tuple[Base, Base]) -> list[Piece]:
    """What a line of sight between notches of two bases can meet: the other units' bases, then the terrain,
    each ``(id, kind, polygon)``; those whose float boxes are clearly apart from the box around both bases left
    out (every such line lies in that box). All of them when ``exact.FAST_FILTERS`` is off."""
    pieces = [(u.id, "unit", base_of(u).polygon) for u in others] + [(t.id, t.kind, t.polygon) for t in terrain]
    if not exact.FAST_FILTERS:
        return pieces
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = (base.polygon.float_box for base in between)
    m = 1e-6  # see Polygon.is_clearly_apart
    x0, y0, x1, y1 = min(ax0, bx0) - m, min(ay0, by0) - m, max(ax1, bx1) + m, max(ay1, by1) + m
    return [(pid, kind, polygon) for pid, kind, polygon in pieces
            if not (polygon.float_box[0] > x1 or polygon.float_box[2] < x0 or polygon.float_box[1] > y1
                    or polygon.float_box[3] < y0)]


def sight(segment: Segment, others: Sequence[Unit], terrain: Sequence[Terrain], touching_hinders: bool,
          pieces: Sequence[Piece] | None = None) -> Sight:
    """Classify the line of sight between two notches [AL-4.1 to AL-4.4]: a piece is passed through when the
    segment meets its interior; one that is only touched neither blocks nor hinders, unless the option
    ``touching_hinders`` makes it hinder. ``pieces``: :func:`sight_pieces` for the two bases, when the caller
    has them (else every other unit and piece of terrain is looked at)."""
    blocked: list[str] = []
    hindered: list[str] = []
    touched: list[str] = []
    box = Box.around(segment.a, segment.b)
    fast = exact.FAST_FILTERS
    m = 1e-6  # float boxes apart by more than this are apart (see Polygon.is_clearly_apart)
    ends = float(segment.a.x), float(segment.a.y), float(segment.b.x), float(segment.b.y)
    x0, x1 = min(ends[0], ends[2]) - m, max(ends[0], ends[2]) + m
    y0, y1 = min(ends[1], ends[3]) - m, max(ends[1], ends[3]) + m
    if pieces is None:
        pieces = [(u.id, "unit", base_of(u).polygon) for u in others] + [(t.id, t.kind, t.polygon) for t in terrain]
    for pid, kind, polygon in pieces:
        if fast:
            px0, py0, px1, py1 = polygon.float_box
            if px0 > x1 or px1 < x0 or py0 > y1 or py1 < y0:
                continue
            # boxes overlapping by more than the margin each way overlap exactly: no exact gap to work out
            near_edge = px0 >= x1 - 2 * m or px1 <= x0 + 2 * m or py0 >= y1 - 2 * m or py1 <= y0 + 2 * m
            if near_edge and polygon.box.gap2(box) > 0:
                continue
        elif polygon.box.gap2(box) > 0:
            continue
        contact = polygon.settled_contact(segment, ends) or polygon.contact(segment)
        if contact is Contact.CROSSING:
            (blocked if kind == "blocking" else hindered).append(pid)
        elif contact is Contact.TOUCHING:
            touched.append(pid)
            if touching_hinders:
                hindered.append(pid)
    return Sight(tuple(blocked), tuple(hindered), tuple(touched))


#: How near (in steps) the line of sight may pass a piece of blocking or hindering terrain without meeting it for
#: the plan to name the piece, so that a player sees why it neither blocks nor hinders [AL-4.2, AL-4.3]: a note
#: only, never a verdict (one step: the side of a sortie base).
NEAR_STEPS = Fraction(1)


def near_misses(segment: Segment, terrain: Sequence[Terrain],
                within: Fraction = NEAR_STEPS) -> list[tuple[str, str, Fraction]]:
    """The blocking and hindering pieces the line of sight neither passes through nor touches but comes within
    ``within`` of, each ``(id, kind, squared distance)``, in the terrain's order [AL-4.2 to AL-4.4]. Exact;
    floats only skip the pieces clearly farther."""
    around = Box.around(segment.a, segment.b)
    out: list[tuple[str, str, Fraction]] = []
    for piece in terrain:
        if piece.kind not in ("blocking", "hindering") or piece.polygon.is_clearly_apart(around, float(within)):
            continue
        d2 = piece.polygon.closest(segment)[0]
        if 0 < d2 <= within * within:  # 0: it meets the line (crossed or touched), said as such
            out.append((piece.id, piece.kind, d2))
    return out
