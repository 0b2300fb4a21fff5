"""What a Bushido check asks of the table, asked pair by pair or worked out for many pairs of one battle at once.

A check asks whether the shooter touches or stands in the zone of control of an enemy [BU-3.3, BU-2.2], whether
it sees the declared target and in which range band it stands [BU-2.1, BU-3.4, BU-5.1], and which of the
target's models may be nominated instead [BU-4.2, BU-4.3]. :class:`PairByPair` answers each question with the
functions of :mod:`~rangefire.rulesets.bushido.table`; :class:`Screened` answers the same questions for every
attack of one battle together (the ranked advice of a side, its table of targets): one float screen of every
pair's sight (:func:`~rangefire.rulesets.bushido.table.sights`), one of every range band, contact and zone
tested once a shooter and enemy, cover read off the sight screened wherever its line settles it, and the
nominations' crossings screened in floats, each with exact tests wherever the floats come near a boundary. Its
answers are those of :class:`PairByPair`, word for word.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rangefire.core import Refusal
from rangefire.geometry.discs import Disc, lines_between
from rangefire.geometry.pairs import within_all
from rangefire.rulesets.bushido.scenario import Battle, Unit, Weapon
from rangefire.rulesets.bushido.table import (
    Cover,
    Nominee,
    Sight,
    band,
    bands,
    cover,
    crossing,
    in_contact,
    in_zone,
    nominees,
    pieces,
    sight,
    sights,
)

#: A float distance beyond a zone's reach by more than this share of the coordinates' size settles "not
#: crossed" [BU-4.3]: the rounding of a point-to-segment distance is some 10^-15 of it, so anything within the
#: margin is worked out exactly.
_CROSS_MARGIN = 1e-6

Pair = tuple[str, str]


class PairByPair:
    """The table's answers, each asked on its own: the functions of :mod:`~rangefire.rulesets.bushido.table`."""

    def __init__(self, battle: Battle) -> None:
        self.battle = battle
        #: Whether each shooter may make a ranged attack at all, by id: the refusals of the clauses that forbid it
        #: (contact, zones, Ammo, the turn [BU-3.1, BU-3.3, BU-3.5, BU-8.1, BU-8.3]), worked out once a shooter.
        self.eligible: dict[str, tuple[Refusal, ...]] = {}
        self._units: dict[str, Unit] | None = None

    def unit(self, uid: str) -> Unit:
        """The model of that id (looked up by id, not walked to)."""
        if self._units is None:
            self._units = {u.id: u for u in self.battle.units}
        return self._units[uid]

    def in_contact(self, a: Unit, b: Unit) -> bool:
        """Base contact [BU-2.3]."""
        return in_contact(a, b)

    def in_zone(self, owner: Unit, other: Unit) -> bool:
        """Whether ``other`` stands in ``owner``'s zone of control [BU-2.2]."""
        return in_zone(self.battle, owner, other)

    def sight(self, a: Unit, b: Unit) -> Sight:
        """Whether ``a`` sees ``b`` [BU-2.1]."""
        return sight(self.battle, a, b)

    def band(self, shooter: Unit, target: Unit, weapon: Weapon) -> str | None:
        """The range band [BU-5.1, BU-3.4]."""
        return band(shooter, target, weapon)

    def nominees(self, shooter: Unit, target: Unit) -> list[Nominee]:
        """The models the target's player may nominate instead [BU-4.2]."""
        return nominees(self.battle, shooter, target)

    def cover(self, shooter: Unit, target: Unit) -> Cover:
        """Whether the target is in cover, with the sight that shows it [BU-5.7, BU-2.1]."""
        return cover(self.battle, shooter, target)


class Screened(PairByPair):
    """The same answers, worked out for many pairs of one battle together (``screen_*``), each kept by the ids of
    the models; a question not screened beforehand is answered pair by pair."""

    def __init__(self, battle: Battle) -> None:
        super().__init__(battle)
        self.discs: dict[str, Disc] = {u.id: u.disc for u in battle.units}
        self._contact: dict[Pair, bool] = {}
        self._zone: dict[Pair, bool] = {}
        self._sight: dict[Pair, Sight] = {}
        self._band: dict[Pair, str | None] = {}
        self._nominees: dict[Pair, list[Nominee]] = {}

    # -- the answers ---------------------------------------------------------------------------------
    def in_contact(self, a: Unit, b: Unit) -> bool:
        got = self._contact.get((a.id, b.id))
        return super().in_contact(a, b) if got is None else got

    def in_zone(self, owner: Unit, other: Unit) -> bool:
        got = self._zone.get((owner.id, other.id))
        return super().in_zone(owner, other) if got is None else got

    def sight(self, a: Unit, b: Unit) -> Sight:
        got = self._sight.get((a.id, b.id))
        return super().sight(a, b) if got is None else got

    def band(self, shooter: Unit, target: Unit, weapon: Weapon) -> str | None:
        key = (shooter.id, target.id)
        if weapon is not shooter.weapon or key not in self._band:
            return super().band(shooter, target, weapon)
        return self._band[key]

    def nominees(self, shooter: Unit, target: Unit) -> list[Nominee]:
        got = self._nominees.get((shooter.id, target.id))
        return super().nominees(shooter, target) if got is None else list(got)

    def cover(self, shooter: Unit, target: Unit) -> Cover:
        """Cover from the sight screened [BU-5.7]: cover needs obscuring terrain within the reach of the target's
        base on every line of sight, so the first clear line of the family (the screen's) passing through none
        there settles "no cover", as :func:`~rangefire.rulesets.bushido.table.cover` settles it on the same line,
        in the same order. Only where that line does pass through such terrain (every line must then be looked
        at) or the pair was not screened is the family judged line by line."""
        seen = self._sight.get((shooter.id, target.id))
        if seen is None or seen.line is None or seen.line.is_obscured_near(self.discs[target.id],
                                                                            self.battle.options.cover_reach):
            return super().cover(shooter, target)
        # the line between the centres, judged first of the family: it is the clear line itself, or what the
        # notes say blocks it [BU-2.1]
        centre = seen.line if seen.tried == 1 else next(lines_between(self.discs[shooter.id], self.discs[target.id],
                                                                      pieces(self.battle)))
        return Cover(False, seen, (), seen.line, centre)

    # -- the screens ---------------------------------------------------------------------------------
    def screen_eligibility(self, shooters: Sequence[Unit]) -> None:
        """Base contact and zones of control between each shooter and every enemy model [BU-3.3, BU-2.2]: the
        distances of every pair at once (:func:`within_all`), the zone's sight tests only where a base lies
        within its reach."""
        pairs = [(s, u) for s in shooters for u in self.battle.units if u.side != s.side]
        pairs = [(s, u) for s, u in pairs if (s.id, u.id) not in self._contact]
        touch = within_all([(self.discs[s.id], self.discs[u.id]) for s, u in pairs], [0] * len(pairs))
        zone = self.battle.options.zone_of_control
        near = within_all([(self.discs[u.id], self.discs[s.id]) for s, u in pairs], [zone] * len(pairs))
        for (s, u), touching, within in zip(pairs, touch, near, strict=True):
            self._contact[(s.id, u.id)] = touching
            # beyond the zone's reach no point of the base is in it [BU-2.2]; within it, the zone's own test
            self._zone[(u.id, s.id)] = within and in_zone(self.battle, u, s)

    def screen_sights(self, pairs: Sequence[tuple[Unit, Unit]]) -> None:
        """Sight and range band of every (shooter, target) pair in one screen each [BU-2.1, BU-5.1]; a shooter
        without a weapon has no band to screen."""
        pairs = _distinct([p for p in pairs if (p[0].id, p[1].id) not in self._sight])
        for (a, b), seen in zip(pairs, sights(self.battle, pairs), strict=True):
            self._sight[(a.id, b.id)] = seen
        armed = [(a, b, a.weapon) for a, b in pairs if a.weapon is not None]
        for (a, b, _), found in zip(armed, bands(armed), strict=True):
            self._band[(a.id, b.id)] = found

    def screen_nominees(self, pairs: Sequence[tuple[Unit, Unit]]) -> None:
        """The nominees of every (shooter, declared target) pair [BU-4.2]: which models' bases or zones the centre
        lines cross (screened in floats, exact near the reach [BU-4.3, BU-4.4]), then one screen of the sight of
        every model crossed to its shooter."""
        pairs = _distinct([p for p in pairs if (p[0].id, p[1].id) not in self._nominees])
        sides: dict[str, list[Unit]] = {}
        for m in self.battle.units:
            sides.setdefault(m.side, []).append(m)
        triples = [(s, t, m) for s, t in pairs for m in sides[t.side] if m.id != t.id]
        apart = self._clear_of_zones(triples)
        crossed: dict[tuple[str, str, str], str] = {}
        for (s, t, m), clear in zip(triples, apart, strict=True):
            what = None if clear else crossing(self.battle, s, t, m)
            if what is not None:
                crossed[(s.id, t.id, m.id)] = what
        self.screen_sights(_distinct([(m, s) for s, t, m in triples if (s.id, t.id, m.id) in crossed]))
        for s, t in pairs:
            found = []
            for m in self.battle.units:
                what = crossed.get((s.id, t.id, m.id))
                if what is not None and self.sight(m, s).is_clear:
                    found.append(Nominee(m.id, what))
            self._nominees[(s.id, t.id)] = found

    def _clear_of_zones(self, triples: Sequence[tuple[Unit, Unit, Unit]]) -> list[bool]:
        """For each (shooter, target, model): whether the centre line stays clear of the model's zone of control
        by a margin the floats prove, so that it crosses neither the zone nor the base [BU-4.3]. False means
        "work it out exactly", not "crossed"."""
        if not triples:
            return []
        zone = float(self.battle.options.zone_of_control)
        index = {uid: n for n, uid in enumerate(self.discs)}
        # each model's centre and radius in floats once (correctly rounded), then every triple by index
        floats = np.array([(float(d.centre.x), float(d.centre.y), float(d.radius)) for d in self.discs.values()])
        ids = np.array([(index[s.id], index[t.id], index[m.id]) for s, t, m in triples])
        (ax, ay), (bx, by), (px, py, r) = floats[ids[:, 0], :2].T, floats[ids[:, 1], :2].T, floats[ids[:, 2]].T
        dx, dy = bx - ax, by - ay
        n2 = dx * dx + dy * dy
        t = np.clip(np.divide((px - ax) * dx + (py - ay) * dy, n2, out=np.zeros_like(n2), where=n2 > 0), 0.0, 1.0)
        gap = np.hypot(px - (ax + t * dx), py - (ay + t * dy))
        size = np.abs(np.stack([ax, ay, bx, by, px, py])).max(axis=0) + r + zone + 1.0
        return (gap > r + zone + _CROSS_MARGIN * size).tolist()  # type: ignore[no-any-return]


def _distinct(pairs: Sequence[tuple[Unit, Unit]]) -> list[tuple[Unit, Unit]]:
    """The pairs in order, each (by the models' ids) once."""
    seen: dict[Pair, tuple[Unit, Unit]] = {}
    for a, b in pairs:
        seen.setdefault((a.id, b.id), (a, b))
    return list(seen.values())


__all__ = ["PairByPair", "Screened"]
