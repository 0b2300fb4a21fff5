"""The Bushido table: line of sight, zones of control, base contact, range bands, cover and who may be
nominated as the new target [BU-1.5, BU-2, BU-4.2 to BU-4.4, BU-5.1, BU-5.7].

Sight between bases is judged over the finite family of segments of :mod:`rangefire.geometry.discs` (its stated
tolerances); everything else here is exact.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar, cast

from rangefire.core.options import house_note
from rangefire.geometry import Point, Segment, Where, closest_on_segment
from rangefire.geometry.discs import ZONE_TOLERANCE, Disc, Line, Piece, Seen, first_clear, lines_between, seen_on
from rangefire.geometry.pairs import first_clear_all, within_all
from rangefire.rulesets.bushido.scenario import Battle, Options, Unit, Weapon

#: How far a model sees into obscuring terrain by the rules [BU-2.1] (the battle's is ``options.obscuring_sight``).
RULES_LIMIT: Fraction = Options().obscuring_sight
# How far a model sees into obscuring terrain [BU-2.1], how far a zone of control reaches [BU-2.2], how close
# obscuring terrain gives cover [BU-5.7] and the defense dice by band [BU-5.1] are the battle's options
# (:class:`~rangefire.rulesets.bushido.scenario.Options`), read from ``battle.options`` wherever they are used.

#: Points tried along the centre line where it passes through a zone of control [BU-4.2].
ZONE_SAMPLES = 8


def pieces(battle: Battle) -> list[Piece]:
    return [Piece(t.id, t.kind, t.polygon) for t in battle.terrain]


@dataclass(frozen=True)
class Sight:
    """Whether one model sees another [BU-2.1], with the segment that shows it or what blocks every one."""

    line: Line | None
    blocked_by: tuple[str, ...] = ()
    too_deep: tuple[str, ...] = ()
    tried: int = 0
    #: The inches of obscuring terrain a model sees through, as the battle sets it [BU-2.1].
    limit: Fraction = RULES_LIMIT

    @property
    def is_clear(self) -> bool:
        return self.line is not None

    def describe(self) -> str:
        if self.line is not None:
            seen = self.line
            if seen.segment.a == seen.segment.b:
                return "clear: the bases touch"
            through = (f", {seen.obscured:.2f} in through obscuring {', '.join(seen.obscuring)} "
                       f"({_limit(self.limit)} at most)" if seen.obscuring else "")
            return f"clear along {_fmt(seen.segment.a)} to {_fmt(seen.segment.b)}{through}"
        parts = []
        if self.blocked_by:
            parts.append(f"solid {', '.join(self.blocked_by)}")
        if self.too_deep:
            parts.append(f"more than {_limit(self.limit)} of obscuring {', '.join(self.too_deep)}")
        return f"blocked on all {self.tried} lines tried: " + (" or ".join(parts) or "terrain")

    def to_dict(self) -> dict[str, object]:
        return {"clear": self.is_clear, "line": self.line.to_dict() if self.line else None,
                "blocked_by": list(self.blocked_by), "too_deep": list(self.too_deep), "lines_tried": self.tried}


def _inches(value: Fraction) -> str:
    """``3 in``, ``1.5 in``: a distance of the rules as a person reads it."""
    return f"{float(value):g} in"


def _limit(limit: Fraction) -> str:
    """The obscuring limit, named as a house rule where the battle changes it [BU-2.1]."""
    shown, rules = _inches(limit), _inches(RULES_LIMIT)
    return shown if limit == RULES_LIMIT else f"{shown} {house_note(shown, rules)}"


def _fmt(p: Point) -> str:
    return f"({float(p.x):.2f}, {float(p.y):.2f})"


def _as_sight(seen: Seen, limit: Fraction) -> Sight:
    return Sight(seen.line, seen.solid, seen.deep, seen.tried, limit)


def _sight(a: Disc, b: Disc, terrain: list[Piece], limit: Fraction) -> Sight:
    return _as_sight(first_clear(a, b, terrain, limit), limit)


#: What the table's questions of two models have answered (:func:`sight`, :func:`in_zone`, :func:`cover`), by all
#: that each reads: the bases, the terrain and the options it takes. A duel asks the same two models in every state
#: it reaches (their wounds, Ammo and statuses change; nothing moves), the lines between them some 16 ms each time.
#: By the terrain's identity: the terrain itself (held, so that no other takes its identity meanwhile) and its
#: answers by the rest.
_KEPT: dict[int, tuple[Any, dict[tuple[Hashable, ...], Any]]] = {}
T = TypeVar("T")
#: The most terrains whose answers are kept; past it they are forgotten together. Each battle read afresh (a
#: server's question, a state sent to its worker) brings its terrain anew, some 10 MB for the most corners a battle
#: may have, so never thousands.
MAX_TERRAINS = 4
#: The most answers kept of one terrain; past it they are forgotten together.
MAX_KEPT = 4_096
_NONE = object()


def _kept(key: tuple[Hashable, ...], terrain: Any, work: Callable[[], T]) -> T:
    """The answer kept under ``key`` and the battle's ``terrain``, or ``work()``'s, kept. The terrain is told apart
    by identity (a duel's battles share their terrain; hashing it is slower than the answer's other work) and kept
    with its answers, so that no other terrain takes its identity while they are kept."""
    held = _KEPT.get(id(terrain))
    if held is None or held[0] is not terrain:
        if len(_KEPT) >= MAX_TERRAINS:  # forgotten together (safe while another thread reads or writes them)
            _KEPT.clear()
        held = _KEPT[id(terrain)] = (terrain, {})
    answers = held[1]
    found = answers.get(key, _NONE)
    if found is not _NONE:
        return cast(T, found)
    if len(answers) >= MAX_KEPT:
        answers.clear()
    answer = work()
    answers[key] = answer
    return answer


def sight(battle: Battle, a: Unit, b: Unit) -> Sight:
    """Whether ``a`` has LoS to ``b`` (some segment base to base: no solid, at most the battle's
    ``obscuring_sight``, 3 in by the rules, of obscuring terrain) [BU-2.1].

    Models never block sight; the relation is symmetric.
    """
    limit = battle.options.obscuring_sight
    return _kept(("sight", a.disc, b.disc, limit), battle.terrain,
                 lambda: _sight(a.disc, b.disc, pieces(battle), limit))


def _discs(units: Iterable[Unit]) -> dict[int, Disc]:
    """One disc a model (by identity), made once: the screens take each disc's floats once."""
    out: dict[int, Disc] = {}
    for u in units:
        if id(u) not in out:
            out[id(u)] = u.disc
    return out


def sights(battle: Battle, pairs: Sequence[tuple[Unit, Unit]]) -> list[Sight]:
    """:func:`sight` for every pair ``(a, b)`` at once, the same answers: one float screen of every pair's
    family of segments, exact tests for what it leaves undecided [BU-2.1]."""
    discs = _discs(u for pair in pairs for u in pair)
    limit = battle.options.obscuring_sight
    seen = first_clear_all([(discs[id(a)], discs[id(b)]) for a, b in pairs], pieces(battle), limit)
    return [_as_sight(s, limit) for s in seen]


def in_contact(a: Unit, b: Unit) -> bool:
    """Base-to-base contact: the bases touch, edge distance 0 [BU-2.3]."""
    return a.disc.is_within(b.disc, 0)


def sees_point(battle: Battle, owner: Unit, point: Point) -> bool:
    """Whether ``owner`` sees a point of the table (a point is a base of no size) [BU-2.1, BU-2.2]."""
    return _sight(owner.disc, Disc(point, Fraction(0)), pieces(battle), battle.options.obscuring_sight).is_clear


def in_zone(battle: Battle, owner: Unit, other: Unit) -> bool:
    """Whether ``other`` stands in ``owner``'s zone of control [BU-2.2]: some point of its base lies within
    the zone's reach (1 in by the rules) of ``owner``'s base edge (exact) and ``owner`` sees that point."""
    a, b = owner.disc, other.disc
    zone, limit = battle.options.zone_of_control, battle.options.obscuring_sight
    return _kept(("zone", a, b, zone, limit), battle.terrain, lambda: _in_zone(a, b, battle, zone, limit))


def _in_zone(a: Disc, b: Disc, battle: Battle, zone: Fraction, limit: Fraction) -> bool:
    if not a.is_within(b, zone):
        return False
    if a.is_within(b, 0):
        return True
    reach = a.radius + zone + ZONE_TOLERANCE
    terrain = pieces(battle)
    for q in b.rim(a.centre):
        if (q - a.centre).norm2() <= reach * reach and _sight(a, Disc(q, Fraction(0)), terrain, limit).is_clear:
            return True
    return False


def distance_ok(shooter: Unit, target: Unit, bound: Fraction) -> bool:
    """Whether the edge-to-edge distance is at most ``bound`` (exact) [BU-1.5]."""
    return shooter.disc.is_within(target.disc, bound)


def bands(attacks: Sequence[tuple[Unit, Unit, Weapon]]) -> list[str | None]:
    """:func:`band` for every ``(shooter, target, weapon)`` at once, the same answers: distances compared in
    floats where they are clear of a bound by more than the rounding, exactly where not [BU-5.1, BU-3.4]."""
    discs = _discs(u for shooter, target, _ in attacks for u in (shooter, target))
    pairs = [(discs[id(s)], discs[id(t)]) for s, t, _ in attacks]
    out: list[str | None] = [None] * len(attacks)
    left = list(range(len(attacks)))
    floats: dict[int, tuple[float, float, float]] = {}
    for name in ("short", "medium", "long"):
        bounds = [getattr(attacks[n][2], name) for n in left]
        inside = within_all([pairs[n] for n in left], bounds, floats)
        for n, yes in zip(left, inside, strict=True):
            if yes:
                out[n] = name
        left = [n for n, yes in zip(left, inside, strict=True) if not yes]
    return out


def band(shooter: Unit, target: Unit, weapon: Weapon) -> str | None:
    """The range band: up to short (inclusive) short, up to medium medium, up to long long; None beyond
    [BU-5.1, BU-3.4]."""
    for name, bound in (("short", weapon.short), ("medium", weapon.medium), ("long", weapon.long)):
        if distance_ok(shooter, target, bound):
            return name
    return None


#: How far from the target's base, in cover reaches, obscuring terrain on the line of sight that decides there is
#: no cover is named in the plan's notes, so that a player sees why it gives none [BU-5.7]: a note only, never a
#: verdict. Farther out (woods the shooter stands in) nobody expects it to cover the target.
NEAR_REACHES = 2


@dataclass(frozen=True)
class Cover:
    """Whether the target is in cover [BU-5.7], and what shows it: ``sight`` (the first clear line, or what
    blocks them all), ``by`` the pieces giving the cover on the first clear line, ``denied`` the clear line that
    passes through no obscuring terrain within the reach of the target's base (so no cover; None in cover),
    ``centre`` the line between the centres (judged first; None where none was judged)."""

    covered: bool
    sight: Sight
    by: tuple[str, ...] = ()
    denied: Line | None = None
    centre: Line | None = None


def cover(battle: Battle, shooter: Unit, target: Unit) -> Cover:
    """Whether the target is in cover [BU-5.7]: every segment that gives LoS passes through obscuring terrain
    within the cover reach (1 in by the rules) of its base; with the sight found and the pieces that give the
    cover on the first such segment. With no segment giving LoS (possible only after a redirection) that holds
    of every one of them, so the target is in cover. The first clear line that does not pass so settles it."""
    limit, reach = battle.options.obscuring_sight, battle.options.cover_reach
    return _kept(("cover", shooter.disc, target.disc, limit, reach), battle.terrain,
                 lambda: _cover(shooter.disc, target.disc, pieces(battle), limit, reach))


def _cover(shooter: Disc, target: Disc, found: list[Piece], limit: Fraction, reach: Fraction) -> Cover:
    first: Line | None = None
    judged: list[Line] = []
    for line in lines_between(shooter, target, found):
        judged.append(line)
        if not line.is_clear(limit):
            continue
        first = first or line
        if not line.is_obscured_near(target, reach):
            return Cover(False, _as_sight(seen_on(first, judged), limit), (), line, judged[0])
    near = first.pieces_near(target, reach) if first is not None else ()
    return Cover(True, _as_sight(seen_on(first, judged), limit), near, None, judged[0] if judged else None)


def gap2_to_piece(line: Line, pid: str, disc: Disc) -> Fraction | None:
    """The squared distance from the centre of ``disc`` to the nearest point of ``line`` inside obscuring piece
    ``pid`` (its interior, or a shared edge it covers with another [BU-2.6]); None where the line is not in it."""
    stretches = [(t0, t1) for t0, t1, pids in line.seams if pid in pids]
    for other, polygon in zip(line.obscuring, line.crossed, strict=True):
        if other == pid:
            stretches += polygon.interior_params(line.segment)
    gaps = [(closest_on_segment(disc.centre, Segment(line.segment.at(t0), line.segment.at(t1))) - disc.centre).norm2()
            for t0, t1 in stretches]
    return min(gaps, default=None)


def near_base(piece: Piece, disc: Disc, reach: Fraction) -> bool:
    """Whether some point of the piece lies within ``reach`` of the base's edge (exact; floats only skip what
    is clearly farther)."""
    r = disc.radius + reach
    centre = disc.centre
    if piece.polygon.float_gap(Segment(centre, centre)) > float(r) + 1e-6:
        return False
    if piece.polygon.locate(centre) is not Where.OUTSIDE:
        return True
    return any((closest_on_segment(centre, edge) - centre).norm2() <= r * r for edge in piece.polygon.edges())


def obscuring_near(battle: Battle, disc: Disc, reach: Fraction) -> list[Piece]:
    """The obscuring pieces whose bounding boxes are not clearly (by more than the floats' rounding) farther than
    ``reach`` from the base's edge, in the terrain's order: a filter only, every other piece lies farther."""
    cx, cy = float(disc.centre.x), float(disc.centre.y)
    bound = float(disc.radius + reach) + 1e-6
    out = []
    for t in battle.terrain:
        if t.kind == "obscuring":
            x0, y0, x1, y1 = t.polygon.float_box
            if math.hypot(max(x0 - cx, cx - x1, 0.0), max(y0 - cy, cy - y1, 0.0)) <= bound:
                out.append(Piece(t.id, t.kind, t.polygon))
    return out


@dataclass(frozen=True)
class Nominee:
    """A model the target's player may nominate instead of the declared target [BU-4.2]."""

    id: str
    crosses: str  # "base" or "zone of control"

    def describe(self) -> str:
        return f"{self.id} (the centre line crosses its {self.crosses}; it sees the shooter)"


def crossing(battle: Battle, shooter: Unit, target: Unit, model: Unit) -> str | None:
    """What of ``model`` the centre-to-centre segment from shooter to target crosses: its base, its zone of
    control (a point of the segment nearer its base than the zone's reach, that it sees), or nothing [BU-4.2, BU-4.3].
    A segment that only touches the base or the zone's edge does not cross it [BU-4.4]: the tests are strict."""
    centre_line = Segment(shooter.disc.centre, target.disc.centre)
    disc = model.disc
    near = closest_on_segment(disc.centre, centre_line)
    d2 = (near - disc.centre).norm2()
    if d2 < disc.radius * disc.radius:
        return "base"
    reach = disc.radius + battle.options.zone_of_control
    if d2 >= reach * reach:
        return None  # clear of the zone, or touching its edge only [BU-4.4]
    for point in _zone_points(centre_line, disc, near, reach):
        if sees_point(battle, model, point):
            return "zone of control"
    return None


def _zone_points(line: Segment, disc: Disc, near: Point, reach: Fraction) -> Iterator[Point]:
    """The nearest point of the line to the disc, then points spread along the stretch nearer than ``reach``
    (a point on the zone's edge is only touched [BU-4.4]), each made when it is asked for: the first one the
    model sees settles the crossing, and it is most often the nearest."""
    yield near
    d = line.b - line.a
    length = math.sqrt(float(d.norm2())) or 1.0
    half = math.sqrt(max(0.0, float(reach * reach - (near - disc.centre).norm2()))) / length
    t_near = (near - line.a).dot(d) / d.norm2() if d.norm2() else Fraction(0)
    for i in range(1, ZONE_SAMPLES + 1):
        offset = Fraction(half * i / (ZONE_SAMPLES + 1)).limit_denominator(10**6)
        for t in (t_near - offset, t_near + offset):
            if 0 <= t <= 1:
                p = line.at(t)
                if (p - disc.centre).norm2() < reach * reach:
                    yield p


def nominees(battle: Battle, shooter: Unit, target: Unit) -> list[Nominee]:
    """The target's player's other models that qualify for the swap [BU-4.2]: the centre line crosses their base
    or zone of control [BU-4.3], and they see the shooter."""
    found = []
    for model in battle.units:
        if model.side != target.side or model.id == target.id:
            continue
        what = crossing(battle, shooter, target, model)
        if what is not None and sight(battle, model, shooter).is_clear:
            found.append(Nominee(model.id, what))
    return found


__all__ = ["NEAR_REACHES", "Cover", "Nominee", "Sight", "band", "bands", "cover", "crossing", "gap2_to_piece",
           "in_contact", "in_zone", "near_base", "nominees", "obscuring_near", "sight", "sights"]
