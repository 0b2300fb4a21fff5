"""Arcane Legions on the table, in steps: bases, sides, notches, adjacency, range and line of sight [AL-1,
AL-3, AL-4]. Every verdict is exact (see ``rangefire.geometry`` for the one stated tolerance, bearings)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from rangefire.geometry import Box, Contact, Frame, Point, Polygon, Segment, rectangle
from rangefire.rulesets.arcane_legions.scenario import SIDE_NAMES, Terrain, Unit

#: Range is 6 steps, inclusive, compared squared [AL-3.1, AL-3.2].
RANGE2 = Fraction(36)
HALF = Fraction(1, 2)


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
    unit: str
    polygon: Polygon
    sides: dict[str, Side]


_BASES: dict[int, tuple[Unit, Base]] = {}


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

    >>> from rangefire.rulesets.arcane_legions.scenario import Unit
    >>> u = Unit(id="u", side="a", base="formation", position=(0, 0), facing=0,
    ...          sides={"front": "blue", "right": "grey", "back": "grey", "left": "red"}, slots=[{}])
    >>> [len(_make_base(u).sides[s].notches) for s in ("front", "right", "back", "left")]
    [5, 3, 5, 3]
    """
    frame = Frame.at(Point(*unit.position), unit.facing)
    hw = Fraction(1) if unit.base == "formation" else HALF
    corners = {"fl": frame.world(-hw, HALF), "fr": frame.world(hw, HALF),
               "br": frame.world(hw, -HALF), "bl": frame.world(-hw, -HALF)}
    f, r = frame.forward, frame.right
    ends = {"front": ("fl", "fr", f), "right": ("fr", "br", r),
            "back": ("br", "bl", Point(-f.x, -f.y)), "left": ("bl", "fl", Point(-r.x, -r.y))}
    sides = {}
    for name in SIDE_NAMES:
        a_key, b_key, normal = ends[name]
        seg = Segment(corners[a_key], corners[b_key])
        steps = 2 if (unit.base == "formation" and name in ("front", "back")) else 1
        notches = tuple(seg.at(Fraction(i, 2 * steps)) for i in range(2 * steps + 1))
        sides[name] = Side(name, seg, normal, notches)
    polygon = rectangle(frame, -hw, hw, -HALF, HALF)
    return Base(unit.id, polygon, sides)


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


def sight(segment: Segment, others: Sequence[Unit], terrain: Sequence[Terrain], touching_hinders: bool) -> Sight:
    """Classify the line of sight between two notches [AL-4.1 to AL-4.4]: a piece is passed through when the
    segment meets its interior; one that is only touched neither blocks nor hinders, unless the option
    ``touching_hinders`` makes it hinder."""
    blocked: list[str] = []
    hindered: list[str] = []
    touched: list[str] = []
    box = Box.around(segment.a, segment.b)
    pieces = [(u.id, "unit", base_of(u).polygon) for u in others]
    pieces += [(t.id, t.kind, t.polygon) for t in terrain]
    for pid, kind, polygon in pieces:
        if polygon.is_clearly_apart(box) or polygon.box.gap2(box) > 0:
            continue
        contact = polygon.contact(segment)
        if contact is Contact.CROSSING:
            (blocked if kind == "blocking" else hindered).append(pid)
        elif contact is Contact.TOUCHING:
            touched.append(pid)
            if touching_hinders:
                hindered.append(pid)
    return Sight(tuple(blocked), tuple(hindered), tuple(touched))
