"""A Dress on the Colors volley planned step by step, once its target is found [DC-2.4 to DC-7.2].

Each step is a method of :class:`VolleyPlanner` and adds its lines to the plan's notes and modifiers: the
range band and target number, the to-hit modifiers, cover and the save, enfilade's dice and save, and the
needed roll. Beside every value a house rule changed, the plan says what the rules would have given (the
summary's ``house`` rows and each line's note), so each step works out the rules' value too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import TypeVar

from rangefire.core import LogLine, Modifier, Refusal
from rangefire.core.numbers import dump_exact
from rangefire.core.options import house_note
from rangefire.geometry import Point
from rangefire.rulesets.dress_on_the_colors.scenario import Battle, Unit
from rangefire.rulesets.dress_on_the_colors.table import (
    GRADE_ORDER,
    Grade,
    LineOfFire,
    Same,
    Shape,
    band_of,
    cover_between,
    enfilade_between,
    near_cover_between,
    shape_of,
    smoke_between,
    smoke_key,
)
from rangefire.rulesets.dress_on_the_colors.volley import (
    REROLLED,
    RULES,
    WEAPON_NAMES,
    VolleyPlan,
    need_for,
    never_hits,
    plural,
    worsen_save,
)

T = TypeVar("T")


def inches(distance2: Fraction) -> str:
    """A squared distance as a reader measures it (``12.00 in``)."""
    return f"{math.sqrt(distance2):.2f} in"


def edge(distance: Fraction) -> str:
    """An option's distance as written in a scenario (``6 in``, ``10.5 in``)."""
    return f"{dump_exact(distance)} in"


def number(tn: int | None) -> str:
    return "cannot fire" if tn is None else f"{tn}+"


def save_text(save: int | None) -> str:
    return "no save" if save is None else f"{save}+"


def changed(value: T, rules: T, say: Callable[[T], str]) -> str:
    """`` (house rule; the rules say ...)`` after a value a house rule changed, or nothing."""
    return "" if value == rules else f" {house_note(say(value), say(rules))}"


def at(p: Point) -> str:
    return f"({float(p.x):.2f}, {float(p.y):.2f})"


def _plus(n: int) -> str:
    return f"+{n}"


class VolleyPlanner:
    """The plan of one volley of ``firer`` at ``target`` along ``lof`` (``tied``: the other targets as close)."""

    def __init__(self, key: str, battle: Battle, firer: Unit, target: Unit, fs: Shape, ts: Shape,
                 lof: LineOfFire, tied: tuple[str, ...]) -> None:
        self.key, self.battle, self.opts = key, battle, battle.options
        self.firer, self.target, self.fs, self.ts, self.lof, self.tied = firer, target, fs, ts, lof, tied
        self.notes: list[LogLine] = []
        self.modifiers: list[Modifier] = []
        self.house: dict[str, str] = {}  # a summary row a house rule changed -> what the rules give instead
        self.rules_modifiers: list[int] = []  # the to-hit modifiers at the rules' values [DC-3.3, DC-7.2]
        self.smoke: tuple[str, ...] = ()  # the gunsmoke markers the line of fire crosses [DC-7.2]

    def plan(self) -> VolleyPlan | list[Refusal]:
        firer, opts = self.firer, self.opts
        band = band_of(self.lof.distance2, opts.bands)
        assert band is not None  # the target was found within the long band's edge [DC-2.4]
        rules_band = band_of(self.lof.distance2, RULES.bands) if opts.bands != RULES.bands else band
        tn = opts.to_hit.row(firer.weapon).at(band)
        tn_note = changed(tn, RULES.to_hit.row(firer.weapon).at(band), number)
        if tn is None:
            return [Refusal("DC-3.2", f"a {WEAPON_NAMES[firer.weapon]} cannot fire at {band} range "
                                      f"({inches(self.lof.distance2)}){tn_note}")]
        self._aim(band, rules_band, f"{tn}+{tn_note}")
        self._to_hit_modifiers()
        need = need_for(tn, sum(m.delta for m in self.modifiers), opts.lowest_hit)
        enfilade = enfilade_between(shape_of(firer, at_start=True), self.ts)
        grade, cover_from, rules_grade = self._cover()
        save = self._save(grade, cover_from, enfilade)
        self._near_cover(grade)
        enfilade_dice, rules_extra = self._enfilade_dice(enfilade)
        if enfilade:
            save = self._enfilade_save(save, grade)
        self._house_rows(save, rules_grade, enfilade, enfilade_dice, rules_extra)
        self._house_to_hit(need, rules_band)
        self._need_notes(need)
        self._house_dice(need, save)
        return self._volley(band, tn, need, enfilade, enfilade_dice, grade, cover_from, save)

    # -- the steps, in the order their lines are read --------------------------------------------
    def _aim(self, band: str, rules_band: str | None, tn_text: str) -> None:
        """The target, the range band and the target number [DC-2.3, DC-2.4, DC-7.3, DC-3.2]."""
        firer, target, lof = self.firer, self.target, self.lof
        ties = f" (tied with {', '.join(t for t in self.tied if t != target.id)}: the firer chooses)"
        self.notes.append(LogLine("DC-2.3", f"{target.id} is the closest unengaged enemy in the arc"
                                            + (ties if self.tied else "")))
        self.notes.append(LogLine("DC-2.4", f"range {inches(lof.distance2)} from the front edge: {band}"
                                            + changed(band, rules_band, str)))
        if lof.tied:
            self.notes.append(LogLine("DC-7.3", f"other lines of fire tie as the shortest: gunsmoke and cover are "
                                                f"judged on the middle one, from {at(lof.start)} to {at(lof.end)}"))
        shot = (" (canister)" if band == "short" else " (roundshot)") if firer.weapon == "artillery" else ""
        self.notes.append(LogLine("DC-3.2", f"{WEAPON_NAMES[firer.weapon]}{shot} at {band} range: {tn_text}"))
        if band != rules_band:
            self.house["range"] = house_note(band, str(rules_band))

    def _modify(self, clause: str, name: str, reason: str) -> None:
        """A to-hit modifier at the battle's delta [DC-3.3, DC-7.2]; at 0 a note says it was turned off."""
        delta, rules = getattr(self.opts.modifiers, name), getattr(RULES.modifiers, name)
        if name != "gunsmoke":  # whether the rules' gunsmoke applies is their length's to say (_gunsmoke)
            self.rules_modifiers.append(rules)
        if delta:
            self.modifiers.append(Modifier(clause, delta, reason + changed(delta, rules, lambda d: f"{d:+d}")))
        else:
            self.notes.append(LogLine(clause, f"{reason}: no modifier {house_note('+0', f'{rules:+d}')}"))

    def _to_hit_modifiers(self) -> None:
        """The target's formation, gunsmoke and the firer's state [DC-3.3, DC-7.2]."""
        if self.target.formation == "skirmish":
            self._modify("DC-3.3", "target_skirmish", "target is in skirmish formation")
        self._gunsmoke()
        if self.firer.disordered:
            self._modify("DC-3.3", "firer_disordered", "firer is disordered")
        if self.firer.formation == "march-column":
            self._modify("DC-3.3", "firer_march_column", "firer is in march column")

    def _gunsmoke(self) -> None:
        """Firing through gunsmoke over a line longer than ``gunsmoke_beyond`` [DC-7.2]."""
        markers = smoke_key(self.battle.terrain, self.battle.units)  # gone when its unit moves [DC-7.1]
        fs, ts, beyond = self.fs, self.ts, self.opts.gunsmoke_beyond
        longer = changed(beyond, RULES.gunsmoke_beyond, lambda b: f"longer than {edge(b)}")
        smoke = smoke_between(fs, ts, markers, beyond)
        if smoke_between(fs, ts, markers, RULES.gunsmoke_beyond) if longer else smoke:
            self.rules_modifiers.append(RULES.modifiers.gunsmoke)  # the rules would penalise this line
        if smoke:
            self._modify("DC-7.2", "gunsmoke", f"firing through gunsmoke ({', '.join(smoke)}) over "
                                               f"{inches(self.lof.distance2)}{longer}")
        elif longer and smoke_between(fs, ts, markers, None):
            self.notes.append(LogLine("DC-7.2", f"the line of fire crosses gunsmoke but is not longer than "
                                                f"{edge(beyond)}: no penalty{longer}"))
        self.smoke = smoke

    def _cover(self) -> tuple[Grade, tuple[str, ...], Grade]:
        """The cover grade and the terrain giving it, and the grade at the rules' reach [DC-4.2]."""
        terrain, reach = Same(self.battle.terrain), self.opts.cover_reach
        grade, cover_from = cover_between(self.fs, self.ts, terrain, reach)
        if reach == RULES.cover_reach:
            return grade, cover_from, grade
        rules_grade, _ = cover_between(self.fs, self.ts, terrain, RULES.cover_reach)
        if rules_grade != grade:
            self.notes.append(LogLine("DC-4.2", f"terrain crossed within {edge(reach)} of the target gives cover: "
                                                f"{grade}" + changed(reach, RULES.cover_reach, edge)
                                                + f"; {rules_grade} under the rules"))
        return grade, cover_from, rules_grade

    def _save(self, grade: str, cover_from: tuple[str, ...], enfilade: bool) -> int | None:
        """The target's cover save by grade [DC-4.1, DC-4.2] (enfilade said first [DC-6.1])."""
        save = self.opts.cover_save.at(grade)
        where = f"in {grade} cover ({', '.join(cover_from)})" if cover_from else "in the open"
        if enfilade:
            self.notes.append(LogLine("DC-6.1", f"{self.firer.id} began its turn wholly behind {self.target.id}'s "
                                                "front baseline: enfilade"))
        self.notes.append(LogLine("DC-4.2", f"{self.target.id} is {where}"
                                            + (f": saves on {save}+" if save else ": no save")
                                            + changed(save, RULES.cover_save.at(grade), save_text)))
        return save

    def _near_cover(self, grade: Grade) -> None:
        """Terrain better than the cover given that the line of fire meets near the target but that gives none,
        and why: it begins no closer than the reach [DC-4.2], exactly at it [DC-4.4], or is only touched
        [DC-4.2]."""
        reach = self.opts.cover_reach
        house = changed(reach, RULES.cover_reach, edge)
        for piece in near_cover_between(self.fs, self.ts, Same(self.battle.terrain), reach):
            if GRADE_ORDER[piece.grade] <= GRADE_ORDER[grade]:
                continue  # it would not change the save
            what, where = f"{piece.id} ({piece.grade})", f"{self.target.id} on the line of fire"
            if piece.touching:
                self.notes.append(LogLine("DC-4.2", f"the line of fire only touches {what}, {inches(piece.distance2)} "
                                                    f"from {self.target.id}: touching is not crossing, so it gives "
                                                    "no cover"))
            elif piece.distance2 == reach * reach:
                self.notes.append(LogLine("DC-4.4", f"{what} is exactly {edge(reach)} from {where}: cover needs less "
                                                    f"than {edge(reach)}{house}"))
            else:
                self.notes.append(LogLine("DC-4.2", f"{what} is {inches(piece.distance2)} from {where}: cover needs "
                                                    f"less than {edge(reach)}{house}"))

    def _enfilade_dice(self, enfilade: bool) -> tuple[int, int]:
        """Enfilade's extra to-hit dice, at the battle's values and at the rules' [DC-6.2]: a modifier where
        there are some, else a note says why there are none."""
        if not enfilade:
            return 0, 0
        stands, per, each = self.firer.stands, self.opts.enfilade.per_stands, self.opts.enfilade.dice
        extra = stands // per * each  # one per two stands, rounded down
        rules_extra = stands // RULES.enfilade.per_stands * RULES.enfilade.dice
        how = ("one for every two of the" if (per, each) == (2, 1) else
               f"{plural(each, 'die')} for every {plural(per, 'stand')},")
        if extra:
            self.modifiers.append(Modifier("DC-6.2", extra, f"to-hit dice: enfilade, {how} {plural(stands, 'stand')} "
                                                            f"firing" + changed(extra, rules_extra, _plus)))
        else:
            self.notes.append(LogLine("DC-6.2", f"enfilade: no extra dice for {plural(stands, 'stand')} firing "
                                                f"({how.removesuffix(' of the').rstrip(',')}, rounded down)"
                                                + changed(extra, rules_extra, _plus)))
        return extra, rules_extra

    def _enfilade_save(self, save: int | None, grade: str) -> int | None:
        """Enfilade worsens the cover save [DC-6.3]: a modifier, or a note where it changes nothing."""
        shift = self.opts.enfilade.save_shift
        by = "one" if shift == 1 else str(shift)
        shifted = changed(shift, RULES.enfilade.save_shift, lambda n: f"by {n}")
        if save is None:
            why = "is in the open" if grade == "open" else "has no save"
            self.notes.append(LogLine("DC-6.3", f"enfilade worsens a save by {by}, but {self.target.id} {why}: "
                                                f"still no save{shifted}"))
            return None
        if not shift:
            self.notes.append(LogLine("DC-6.3", f"enfilade leaves the save at {save}+{shifted}"))
            return save
        worse = worsen_save(save, shift)
        self.modifiers.append(Modifier("DC-6.3", shift, f"cover save: enfilade worsens it by {by}, {save}+ becomes "
                                                        f"{save_text(worse) if worse else 'no save'}{shifted}"))
        return worse

    def _house_rows(self, save: int | None, rules_grade: str, enfilade: bool, extra: int, rules_extra: int) -> None:
        """The summary's cover and dice rows a house rule changed, with the rules' values [DC-3.1, DC-4, DC-6]."""
        rules_save = RULES.cover_save.at(rules_grade)
        if enfilade:
            rules_save = worsen_save(rules_save, RULES.enfilade.save_shift)
        if save != rules_save:
            self.house["cover"] = house_note(save_text(save), save_text(rules_save))
        stands = self.firer.stands
        rules_dice = stands * RULES.dice_per_stand + rules_extra
        if stands * self.opts.dice_per_stand + extra != rules_dice:
            self.house["dice"] = house_note("", str(rules_dice))

    def _house_to_hit(self, need: int, rules_band: str | None) -> None:
        """The roll the rules would need, where a house rule changed it [DC-3.2 to DC-3.4]."""
        rules_tn = RULES.to_hit.row(self.firer.weapon).at(rules_band) if rules_band is not None else None
        rules_need = None if rules_tn is None else need_for(rules_tn, sum(self.rules_modifiers), RULES.lowest_hit)
        if need != rules_need:
            said = ("cannot fire" if rules_need is None else f"a natural {rules_need}+" if rules_need <= 6
                    else "no die can hit")
            self.house["to hit"] = house_note("", said)

    def _need_notes(self, need: int) -> None:
        """A roll no die can make, or one every die makes but for the lowest [DC-3.4]."""
        if need > 6:
            self.notes.append(LogLine("DC-3.4", f"needs a natural {need}: no die can hit (a 6 still suppresses)"))
        elif need < 2:
            self.notes.append(LogLine("DC-3.4", f"needs a natural {need}+: {never_hits(self.opts.lowest_hit)}"))

    def _house_dice(self, need: int, save: int | None) -> None:
        """The house rules of the dice, each said with the rules' way beside it: to-hit dice rolled once more
        [DC-3.4], hits on a natural 6 beyond any save [DC-4.1]."""
        reroll = self.opts.reroll_to_hit
        if reroll != "none":
            what = REROLLED[reroll]
            moot = "; here no die can hit, but a 6 still suppresses" if need > 6 else ""
            self.notes.append(LogLine("DC-3.4", f"house rule: {what} are rolled once more, the second roll standing "
                                                f"(options.reroll_to_hit = {reroll}; the rules roll each die once)"
                                                + moot))
        if self.opts.sixes_ignore_cover:
            moot = "" if need <= 6 and save is not None else (
                "; here no save is rolled anyway" if need <= 6 else "; here no die can hit")
            self.notes.append(LogLine("DC-4.1", "house rule: a hit on a natural 6 cannot be saved (options."
                                                "sixes_ignore_cover; the rules save every hit alike)" + moot))

    def _volley(self, band: str, tn: int, need: int, enfilade: bool, enfilade_dice: int, grade: str,
                cover_from: tuple[str, ...], save: int | None) -> VolleyPlan:
        firer, target, opts, lof = self.firer, self.target, self.opts, self.lof
        return VolleyPlan(
            ruleset=self.key, attacker=firer.id, target=target.id, modifiers=tuple(self.modifiers),
            notes=tuple(self.notes), weapon=firer.weapon, band=band, distance2=lof.distance2,
            line_of_fire=(tuple(lof.start), tuple(lof.end)),  # type: ignore[arg-type]
            line_of_fire_tied=lof.tied,
            target_number=tn, need=need, stands_firing=firer.stands, enfilade=enfilade,
            enfilade_dice=enfilade_dice, cover=grade, cover_from=tuple(cover_from),
            save=save, smoke_from=tuple(self.smoke), target_stands=target.stands,
            target_micro_hits=target.micro_hits, target_disordered=target.disordered,
            target_discipline=target.discipline, discipline_dice=opts.discipline_dice,
            discipline_pass=opts.discipline_pass, discipline_disordered=opts.discipline_disordered,
            places_gunsmoke=not firer.moved, tied_targets=self.tied, dice_per_stand=opts.dice_per_stand,
            lowest_hit=opts.lowest_hit, reroll_to_hit=opts.reroll_to_hit,
            sixes_ignore_cover=opts.sixes_ignore_cover, house_notes=tuple(self.house.items()),
        )
