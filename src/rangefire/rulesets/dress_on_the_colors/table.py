"""Dress on the Colors on the table: footprints, arcs, range, cover, gunsmoke and enfilade, exactly.

Every verdict here is an exact comparison; see ``rangefire.geometry`` for the one stated tolerance (bearings).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Literal

from rangefire.geometry import Box, Contact, Frame, Point, Polygon, Segment, arc_meets, rectangle
from rangefire.geometry.exact import all_behind, closest_points, shortest_line
from rangefire.rulesets.dress_on_the_colors.scenario import Bands, Terrain, Unit

Band = Literal["short", "medium", "long"]
Grade = Literal["open", "light", "heavy"]

# The numbers these verdicts use (band edges [DC-2.4], the gunsmoke length [DC-7.2], the cover reach [DC-4.2])
# are the battle's options (``scenario.Options``), passed in: the rules' values are their defaults.
GRADE_ORDER: dict[Grade, int] = {"open": 0, "light": 1, "heavy": 2}


@dataclass(frozen=True)
class Footprint:
    """A unit's stands on the table [DC-1.2]: stand rectangles, the front edge and its two outer corners.

    ``outline`` is the same area as ``stands`` in as few pieces as possible (one rectangle for a line or a
    column), so that among equally short lines of fire the middle one is found, not a stand's corner. Its corners
    are stands' corners, and every stand lies within it. ``pieces``: each stand's ``(x0, x1, y0, y1)`` in the
    frame, its rectangle made when the stands are first asked for (range, arc and line of fire read the outline);
    None where the outline is the stands.
    """

    frame: Frame
    pieces: tuple[tuple[Fraction, Fraction, Fraction, Fraction], ...] | None
    front: tuple[Segment, ...]
    half_width: Fraction
    outline: tuple[Polygon, ...]

    @cached_property
    def stands(self) -> tuple[Polygon, ...]:
        """The stand rectangles [DC-1.2]."""
        if self.pieces is None:
            return self.outline
        return tuple(rectangle(self.frame, *piece) for piece in self.pieces)

    @cached_property
    def box(self) -> Box:
        """The bounding box of all the stands (worked out once)."""
        boxes = [s.box for s in self.outline]
        return Box(min(b.x0 for b in boxes), min(b.y0 for b in boxes), max(b.x1 for b in boxes),
                   max(b.y1 for b in boxes))

    @property
    def front_corners(self) -> tuple[Point, Point]:
        """The left and right front corners of the leading stand(s)."""
        return self.frame.world(-self.half_width, 0), self.frame.world(self.half_width, 0)

    def corners(self) -> Iterable[Point]:
        for stand in self.stands:
            yield from stand.vertices


class Shape:
    """What a unit's footprint depends on [DC-1.2], and nothing else: formation, stands, position, facing and
    stand size (not its disorder, markers or flags). The key of the shared geometry below: hashed and compared by
    the numerators and denominators of its numbers (equal Fractions have the same ones; a
    :class:`~fractions.Fraction` hashes slowly), the hash worked out once, so the many look-ups of one check cost
    little."""

    __slots__ = ("_hash", "_key", "values")

    def __init__(self, unit: Unit, at_start: bool = False) -> None:
        position = unit.start_position if at_start and unit.start_position is not None else unit.position
        facing = unit.start_facing if at_start and unit.start_facing is not None else unit.facing
        self.values = (unit.formation, unit.stands, position[0], position[1], facing, unit.stand_width,
                       unit.stand_depth)
        self._key = (unit.formation, unit.stands, *(p for v in self.values[2:] for p in (v.numerator, v.denominator)))
        self._hash = hash(self._key)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Shape) and self._hash == other._hash and self._key == other._key)


class Same:
    """A value keyed by its identity (terrain: many polygons, slow to hash, and shared unchanged by every battle
    a duel reaches). Held in a key, it keeps the value alive, so its identity is not reused while cached."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other.value is self.value


#: The bound of each geometry cache: a duel reaches thousands of battles but few distinct placements.
CACHE_SIZE = 4096

#: Each unit's shapes (now and at the start of the turn) by the unit's identity: a unit is a frozen model, and a
#: duel's battles share their unit objects, so each is made once, not in every check. The unit is held in the
#: entry, so its identity is not reused while it is kept.
_SHAPES: dict[int, list[object]] = {}
#: One shape object for each shape, so that the caches below find their keys by identity.
_ONE: dict[Shape, Shape] = {}


def shape_of(unit: Unit, at_start: bool = False) -> Shape:
    """``Shape(unit, at_start)``, made once for each unit object, the same object for every unit of that shape."""
    kept = _SHAPES.get(id(unit))
    if kept is None or kept[0] is not unit:
        if len(_SHAPES) >= 4 * CACHE_SIZE:
            _SHAPES.clear()
        kept = _SHAPES[id(unit)] = [unit, None, None]
    found = kept[2 if at_start else 1]
    if found is None:
        if len(_ONE) >= CACHE_SIZE:
            _ONE.clear()
        made = Shape(unit, at_start)
        found = kept[2 if at_start else 1] = _ONE.setdefault(made, made)
    assert isinstance(found, Shape)
    return found


def footprint(unit: Unit, *, at_start: bool = False) -> Footprint:
    """The unit's footprint now, or at the start of the turn (for enfilade, DC-6.1).

    In line the stands stand side by side, in march column one behind another, in skirmish side by side
    with one stand width between them [DC-1.2]. ``position`` is the midpoint of the front edge.

    >>> from rangefire.rulesets.dress_on_the_colors.scenario import Unit
    >>> u = Unit(id="a", side="blue", stands=2, weapon="smoothbore", formation="line",
    ...          position=(0, 0), facing=0)
    >>> [tuple(map(str, v)) for v in footprint(u).stands[0].vertices]
    [('-3/2', '-1'), ('0', '-1'), ('0', '0'), ('-3/2', '0')]
    """
    return footprint_of(shape_of(unit, at_start))


@lru_cache(maxsize=CACHE_SIZE)
def footprint_of(shape: Shape) -> Footprint:
    """The footprint of a unit of this shape [DC-1.2] (see :func:`footprint`)."""
    formation, n, x, y, facing, w, d = shape.values
    frame = Frame.at(Point(x, y), facing)
    zero = Fraction(0)
    pieces: tuple[tuple[Fraction, Fraction, Fraction, Fraction], ...] | None
    if formation == "march-column":
        half = w / 2
        pieces = tuple((-half, half, -(i + 1) * d, -i * d) for i in range(n))
        fronts: tuple[Segment, ...] = (Segment(frame.world(-half, zero), frame.world(half, zero)),)
        outline: tuple[Polygon, ...] = (rectangle(frame, -half, half, -n * d, zero),)
    else:
        pitch = 2 * w if formation == "skirmish" else w
        width = (n - 1) * pitch + w
        half = width / 2
        lefts = [-half + i * pitch for i in range(n)]
        pieces = tuple((x, x + w, -d, zero) for x in lefts)
        if formation == "line":
            fronts = (Segment(frame.world(-half, zero), frame.world(half, zero)),)
            outline = (rectangle(frame, -half, half, -d, zero),)
        else:
            fronts = tuple(Segment(frame.world(x, zero), frame.world(x + w, zero)) for x in lefts)
            outline, pieces = tuple(rectangle(frame, *piece) for piece in pieces), None
    return Footprint(frame, pieces, fronts, half, outline)


def in_arc(firer: Footprint, target: Footprint, arc: str) -> bool:
    """Whether any part of the target's footprint lies in the firer's 45 degree forward arc [DC-2.1].

    ``corners``: lines drawn 45 degrees outward from each front corner; ``centre``: the same 45 degree lines
    from the front-edge midpoint. Both closed: a footprint touching a boundary line is in the arc.
    """
    h = firer.half_width if arc == "corners" else Fraction(0)
    return any(arc_meets(stand, firer.frame, h) for stand in target.outline)


@dataclass(frozen=True)
class LineOfFire:
    """The shortest segment from the firer's front edge to the target's footprint [DC-2.2, DC-7.2];
    ``tied`` when other segments are as short and this is the middle one of them [DC-7.3]."""

    distance2: Fraction
    start: Point
    end: Point
    tied: bool = False

    @property
    def segment(self) -> Segment:
        return Segment(self.start, self.end)


def line_of_fire(firer: Footprint, target: Footprint, found: LineOfFire | None = None) -> LineOfFire:
    """Range is the shortest distance from the firer's front edge to the target's footprint [DC-2.2]; where
    several segments tie as shortest, the line of fire is the middle one of them [DC-7.3].

    "The middle one" (see :func:`rangefire.geometry.exact.middle_segment`): each tied segment is placed by
    its midpoint across the firer's front (from its left to its right); the one nearest the middle of the
    span of the ties is taken: the middle of the family where parallel edges face each other, and of two
    equally near across a gap, the one on the firer's left. At range 0 the line of fire is a point where the
    units touch: nothing it decides (gunsmoke beyond 6 in, cover crossed short of the target) depends on
    which point, so no tie is sought. ``found``: :func:`line_of_fire_within` of the two, already worked out.
    """
    found = found or line_of_fire_within(firer, target, None)
    assert found is not None
    return found


def line_of_fire_within(firer: Footprint, target: Footprint, limit2: Fraction | None) -> LineOfFire | None:
    """As :func:`line_of_fire`, or None as soon as it is clear the target is farther than ``limit2``: the first
    shortest segment from a front edge to a stand of the outline, each looked at within the shortest so far, and
    the middle one of those that tie with it [DC-2.2, DC-7.3] (:func:`rangefire.geometry.exact.shortest_line`)."""
    found = shortest_line(firer.front, target.outline, limit2, firer.frame.right)
    return None if found is None else LineOfFire(*found)


#: The squared band edges of each battle's bands, by the bands' identity (a frozen model, shared by the battles of
#: a duel), held in the entry so that the identity is not reused.
_EDGES: dict[int, tuple[Bands, tuple[tuple[Band, Fraction], ...]]] = {}


def band_edges2(bands: Bands) -> tuple[tuple[Band, Fraction], ...]:
    """The band edges as squared inches [DC-2.4], for exact comparison with squared distances."""
    kept = _EDGES.get(id(bands))
    if kept is None or kept[0] is not bands:
        if len(_EDGES) >= CACHE_SIZE:
            _EDGES.clear()
        kept = _EDGES[id(bands)] = (bands, (("short", bands.short * bands.short),
                                            ("medium", bands.medium * bands.medium), ("long", bands.long * bands.long)))
    return kept[1]


def band_of(distance2: Fraction, bands: Bands) -> Band | None:
    """The range band of a squared distance, or None beyond the long edge [DC-2.4]: d <= short is short,
    short < d <= medium medium, medium < d <= long long (the rules' edges: 6, 14 and 20 in).

    >>> rules = Bands()
    >>> band_of(Fraction(36), rules), band_of(Fraction(3601, 100), rules), band_of(Fraction(400), rules)
    ('short', 'medium', 'long')
    >>> band_of(Fraction(401), rules), band_of(Fraction(401), Bands(long=Fraction(41, 2)))
    (None, 'long')
    """
    for name, limit in band_edges2(bands):
        if distance2 <= limit:
            return name
    return None


def smoke_marker(unit: Unit) -> Polygon:
    """A unit's gunsmoke marker: as wide as its front edge, 1 in deep, touching it in front [DC-7.1]."""
    return smoke_rectangle(footprint(unit))


def smoke_rectangle(fp: Footprint) -> Polygon:
    """The gunsmoke marker in front of a footprint [DC-7.1]."""
    return rectangle(fp.frame, -fp.half_width, fp.half_width, Fraction(0), Fraction(1))


def smoke_crossed(lof: LineOfFire, markers: Sequence[tuple[str, Polygon]], beyond: Fraction | None) -> list[str]:
    """Markers whose interior the line of fire meets, when it is longer than ``beyond`` inches (the rules: 6.0
    in) [DC-7.2]; None: whatever its length."""
    if beyond is not None and lof.distance2 <= beyond * beyond:
        return []
    return [mid for mid, poly in markers if poly.interior_params(lof.segment)]


def cover(target: Footprint, lof: LineOfFire, terrain: Sequence[Terrain], reach: Fraction) -> tuple[Grade, list[str]]:
    """The best grade of terrain that the target overlaps or that the line of fire crosses within ``reach``
    (the rules: 1 in) of it [DC-4.2], with the pieces that give it.

    The line of fire is walked from the target (t = 0) towards the firer; its point at t lies t * |PQ| from
    the target's footprint (Q is the footprint's nearest point to the whole segment, so to every point of it).
    "Within 1 in" is strict [DC-4.4]: a piece gives cover when the line is inside it somewhere closer than
    the reach r, t0 < r / |PQ| where it enters, compared squared: t0^2 * |PQ|^2 < r^2. A piece whose nearest
    point is exactly 1.0 in away only begins there, so it gives none; one 0.9 in away does.
    """
    best: Grade = "open"
    sources: dict[Grade, list[str]] = {"open": [], "light": [], "heavy": []}
    towards_firer = Segment(lof.end, lof.start)
    reach2 = reach * reach
    for piece in terrain:
        if piece.kind not in ("light", "heavy"):
            continue
        grade: Grade = piece.kind
        gives = any(piece.polygon.overlaps(stand) for stand in target.outline)
        if not gives and lof.distance2 > 0:
            gives = any(t0 * t0 * lof.distance2 < reach2  # strictly within [DC-4.4]
                        for t0, _ in piece.polygon.interior_params(towards_firer))
        if gives:
            sources[grade].append(piece.id)
            if GRADE_ORDER[grade] > GRADE_ORDER[best]:
                best = grade
    return best, sources[best]


#: How far from the target, in cover reaches, terrain the line of fire meets without giving cover is named in the
#: plan's notes (a fence just too far out to count, or only touched), so that a player sees why [DC-4.2, DC-4.4]:
#: a note only, never a verdict. Farther out (the firer's own wall) nobody expects it to cover the target.
NEAR_REACHES = 2


@dataclass(frozen=True)
class NearCover:
    """A piece of cover terrain that the line of fire meets near the target but that gives it no cover [DC-4.2,
    DC-4.4]: ``distance2`` is the squared distance from the target's footprint to where the line first enters it,
    at least the reach; ``touching`` when the line only touches its boundary (there)."""

    id: str
    grade: Grade
    distance2: Fraction
    touching: bool = False


def near_cover(target: Footprint, lof: LineOfFire, terrain: Sequence[Terrain], reach: Fraction) -> list[NearCover]:
    """The light and heavy pieces the line of fire meets within :data:`NEAR_REACHES` reaches of the target that
    give no cover (see :func:`cover`): those whose interior it enters no closer than ``reach``, and those it only
    touches (touching is not crossing [DC-4.2]), in the terrain's order. Compared exactly, as :func:`cover`
    compares: a point at t along the line from the target (t = 0) is t * |PQ| from its footprint."""
    if lof.distance2 == 0:
        return []  # the units touch: the line of fire is a point and crosses nothing
    out = []
    towards_firer = Segment(lof.end, lof.start)
    reach2, near2 = reach * reach, (NEAR_REACHES * reach) ** 2
    box, near = target.box, float(NEAR_REACHES * reach)
    for piece in terrain:
        if piece.kind not in ("light", "heavy") or piece.polygon.is_clearly_apart(box, near):
            continue  # not cover, or every point of it farther from the target than is asked about
        if any(piece.polygon.overlaps(s) for s in target.outline):
            continue
        inside = piece.polygon.interior_params(towards_firer)
        if inside:
            entry2 = inside[0][0] * inside[0][0] * lof.distance2  # the stretches come in order along the line
            if reach2 <= entry2 <= near2:
                out.append(NearCover(piece.id, piece.kind, entry2))
        elif piece.polygon.contact(towards_firer) is Contact.TOUCHING:
            # where it first touches: on each edge it meets, the point of the line nearest the target
            touch2 = min((p - towards_firer.a).norm2() for d2, p, _ in (
                closest_points(towards_firer, e) for e in piece.polygon.edges()) if d2 == 0)
            if touch2 <= near2:
                out.append(NearCover(piece.id, piece.kind, touch2, touching=True))
    return out


def is_behind_front_baseline(firer: Unit, target: Footprint) -> bool:
    """Enfilade: every corner of every firer stand, at its start-of-turn position, lies strictly behind the
    line through the target's front edge [DC-6.1]."""
    # the outline's corners are stands' corners and every stand lies within it: the same corners decide
    return all_behind(target.frame, footprint(firer, at_start=True).outline)


# -- the geometry shared between battles ---------------------------------------------------------------
# A check's geometry depends only on the units' shapes, the terrain and a few options; a duel reaches thousands
# of battles that differ in stands lost, disorder and markers but share few placements, so each verdict is
# kept (bounded) under exactly what it depends on and worked out once. Each function is the uncached one above
# with its inputs spelt as a key.

@lru_cache(maxsize=CACHE_SIZE)
def gap2_between(a: Shape, b: Shape) -> Fraction:
    """The squared gap between two units' bounding boxes (a lower bound of their range)."""
    return footprint_of(a).box.gap2(footprint_of(b).box)


@lru_cache(maxsize=CACHE_SIZE)
def arc_between(firer: Shape, target: Shape, arc: str) -> bool:
    """:func:`in_arc` by the units' shapes [DC-2.1]."""
    return in_arc(footprint_of(firer), footprint_of(target), arc)


#: The line of fire :func:`range2_within` found within its limit, by the units' shapes: the same as without a
#: limit (a pair of edges is passed over only where it is farther than the limit, so farther than the shortest),
#: so that :func:`line_between` takes it.
_WITHIN: dict[tuple[Shape, Shape], LineOfFire] = {}


@lru_cache(maxsize=CACHE_SIZE)
def range2_within(firer: Shape, target: Shape, limit2: Fraction) -> Fraction | None:
    """The squared range [DC-2.2], or None when it is beyond ``limit2`` (:func:`line_of_fire_within`)."""
    found = line_of_fire_within(footprint_of(firer), footprint_of(target), limit2)
    if found is None:
        return None
    if len(_WITHIN) >= CACHE_SIZE:
        _WITHIN.clear()
    _WITHIN[(firer, target)] = found
    return found.distance2


@lru_cache(maxsize=CACHE_SIZE)
def line_between(firer: Shape, target: Shape) -> LineOfFire:
    """:func:`line_of_fire` by the units' shapes [DC-2.2, DC-7.3]."""
    return line_of_fire(footprint_of(firer), footprint_of(target), _WITHIN.get((firer, target)))


def smoke_key(terrain: tuple[Terrain, ...], units: Iterable[Unit]) -> tuple[Same, tuple[tuple[str, Shape], ...]]:
    """What the gunsmoke markers on the table depend on: the terrain's markers and the shape of each unit with
    a marker of its own, in order (a unit's marker is removed when it moves) [DC-7.1]."""
    return Same(terrain), tuple((f"{u.id}:gunsmoke", shape_of(u)) for u in units if u.gunsmoke and not u.moved)


def markers_of(key: tuple[Same, tuple[tuple[str, Shape], ...]]) -> list[tuple[str, Polygon]]:
    """The gunsmoke markers a :func:`smoke_key` stands for, terrain first [DC-7.1]."""
    terrain: tuple[Terrain, ...] = key[0].value  # type: ignore[assignment]  # what smoke_key put there
    return ([(t.id, t.polygon) for t in terrain if t.kind == "gunsmoke"]
            + [(mid, smoke_of(shape)) for mid, shape in key[1]])


@lru_cache(maxsize=CACHE_SIZE)
def smoke_of(shape: Shape) -> Polygon:
    """:func:`smoke_rectangle` by the unit's shape, worked out once for each [DC-7.1]."""
    return smoke_rectangle(footprint_of(shape))


@lru_cache(maxsize=CACHE_SIZE)
def smoke_between(firer: Shape, target: Shape, markers: tuple[Same, tuple[tuple[str, Shape], ...]],
                  beyond: Fraction | None) -> tuple[str, ...]:
    """:func:`smoke_crossed` on the line of fire between the shapes, through the markers of ``markers``
    (a :func:`smoke_key`) [DC-7.2]."""
    return tuple(smoke_crossed(line_between(firer, target), markers_of(markers), beyond))


@lru_cache(maxsize=CACHE_SIZE)
def cover_between(firer: Shape, target: Shape, terrain: Same, reach: Fraction) -> tuple[Grade, tuple[str, ...]]:
    """:func:`cover` of the target on the line of fire between the shapes, ``terrain`` the battle's terrain
    by identity [DC-4.2]."""
    grade, sources = cover(footprint_of(target), line_between(firer, target), terrain.value,  # type: ignore[arg-type]
                           reach)
    return grade, tuple(sources)


@lru_cache(maxsize=CACHE_SIZE)
def near_cover_between(firer: Shape, target: Shape, terrain: Same, reach: Fraction) -> tuple[NearCover, ...]:
    """:func:`near_cover` on the line of fire between the shapes [DC-4.2, DC-4.4]."""
    return tuple(near_cover(footprint_of(target), line_between(firer, target), terrain.value,  # type: ignore[arg-type]
                            reach))


@lru_cache(maxsize=CACHE_SIZE)
def enfilade_between(firer_start: Shape, target: Shape) -> bool:
    """:func:`is_behind_front_baseline` with the firer's start-of-turn shape [DC-6.1]."""
    return all_behind(footprint_of(target).frame, footprint_of(firer_start).outline)  # as is_behind_front_baseline


def clear_caches() -> None:
    """Forget every shared verdict (tests compare a cached verdict with a fresh one)."""
    for cached in (footprint_of, gap2_between, arc_between, range2_within, line_between, smoke_between,
                   cover_between, near_cover_between, enfilade_between, smoke_of):
        cached.cache_clear()
    _WITHIN.clear()
    _SHAPES.clear()
    _ONE.clear()
    _EDGES.clear()
