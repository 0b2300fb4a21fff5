"""Dress on the Colors: American Civil War regiments of stands firing volleys (``../shared/rules``, DC-*).

>>> from rangefire.rulesets import find_ruleset
>>> find_ruleset("doc").key
'dress-on-the-colors'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from rangefire.core import Attack, DiceSource, LimitError, LogLine, Modifier, Odds, Refusal, Resolution, Ruleset
from rangefire.core.numbers import dump_exact
from rangefire.core.options import house_note
from rangefire.geometry import Point
from rangefire.rulesets.dress_on_the_colors.scenario import (
    KEY,
    MAX_STANDS,
    Battle,
    Options,
    Turn,
    Unit,
    cross_problems,
)
from rangefire.rulesets.dress_on_the_colors.table import (
    LineOfFire,
    Same,
    Shape,
    arc_between,
    band_of,
    cover_between,
    enfilade_between,
    gap2_between,
    line_between,
    range2_within,
    smoke_between,
    smoke_key,
)
from rangefire.rulesets.dress_on_the_colors.volley import (
    WEAPON_NAMES,
    DressOutcome,
    VolleyPlan,
    need_for,
    never_hits,
    plural,
    resolve_volley,
    volley_distribution,
    worsen_save,
)

T = TypeVar("T")

__all__ = ["Battle", "DressOnTheColors", "DressOutcome", "Options", "Unit", "VolleyPlan"]


#: The rules as written: what an explanation quotes beside a value a house rule changed.
RULES = Options()
#: The most to-hit dice the rules give (60 stands enfilading: 60 + 30), the most whose exact odds are worked
#: out: 90 dice take about a second; 300, which house rules could give, twenty.
MAX_EXACT_DICE = MAX_STANDS + MAX_STANDS // 2
#: The options the rulings name (DC-2.1, DC-5.2, DC-9.1): a written battle always states them.
RULINGS = ("arc", "discipline_dice", "discipline_pass", "one_volley_per_turn")


def _inches(distance2: Fraction) -> str:
    return f"{math.sqrt(distance2):.2f} in"


def _edge(inches: Fraction) -> str:
    """An option's distance as written in a scenario (``6``, ``10.5``)."""
    return f"{dump_exact(inches)} in"


def _number(tn: int | None) -> str:
    return "cannot fire" if tn is None else f"{tn}+"


def _save(save: int | None) -> str:
    return "no save" if save is None else f"{save}+"


def _changed(value: T, rules: T, say: Callable[[T], str]) -> str:
    """`` (house rule; the rules say ...)`` after a value a house rule changed, or nothing."""
    return "" if value == rules else f" {house_note(say(value), say(rules))}"


def _at(p: Point) -> str:
    return f"({float(p.x):.2f}, {float(p.y):.2f})"


class DressOnTheColors(Ruleset[Battle, VolleyPlan, DressOutcome]):
    """Volleys of musketry and artillery between regiments of stands."""

    key = KEY
    title = "Dress on the Colors"
    aliases = ("doc", "dress")
    clause_prefix = "DC"
    stages = ("hit", "save", "discipline")
    outcome_names = ("hits", "unsaved_hits", "stands_lost")
    event_names = ("suppression", "disorder")
    main_outcome = "stands_lost"
    chooses_target = "DC-2.3"  # the closest unengaged enemy in the arc must be the target
    battle_model = Battle
    options_model = Options
    written_rulings = RULINGS
    duel_left_name = "stands"

    def raw_problems(self, data: Mapping[str, Any]) -> list[str]:
        return cross_problems(data)

    def status(self, battle: Battle) -> list[dict[str, Any]]:
        return [{"id": u.id, "side": u.side, "stands": u.stands, "micro-hit": u.micro_hits,
                 "disordered": u.disordered, "gunsmoke": u.gunsmoke and not u.moved} for u in battle.units]

    # -- the turn [DC-9] --------------------------------------------------------------------------
    def _side_to_act(self, battle: Battle) -> str | None:
        return battle.turn.side if battle.turn is not None else None

    @staticmethod
    def _turn_refusals(battle: Battle, firer: Unit) -> list[Refusal]:
        """Only the side whose turn it is fires [DC-9.2], and a unit fires one volley a turn [DC-9.1]."""
        out = []
        if battle.turn is not None and firer.side != battle.turn.side:
            out.append(Refusal("DC-9.2", f"it is {battle.turn.side}'s turn ({battle.turn.number}); {firer.id} is "
                                         f"on {firer.side}'s side"))
        if firer.fired and battle.options.one_volley_per_turn:
            out.append(Refusal("DC-9.1", f"{firer.id} has already fired a volley this turn (one volley a turn)"))
        return out

    def _end_turn(self, battle: Battle) -> tuple[Battle, list[LogLine]]:
        side, number, following, passing = self.passed_turn(battle, "DC-9.2")
        log = passing[:-1]
        units = []
        for unit in battle.units:
            if unit.side == side:
                update: dict[str, Any] = {"moved": False, "fired": False, "start_position": unit.position,
                                          "start_facing": unit.facing}
                done = [w for w, flag in (("moved", unit.moved), ("fired", unit.fired)) if flag]
                log.append(LogLine("DC-9.3", f"{unit.id}: " + (" and ".join(done) + " cleared; " if done else "")
                                             + f"its start of turn is now at {_at(Point(*unit.position))}, facing "
                                               f"{float(unit.facing):g}"))
                if unit.moved and unit.gunsmoke:
                    # the marker went when the unit moved; clearing the mark must not bring it back [DC-7.1]
                    update["gunsmoke"] = False
                    log.append(LogLine("DC-7.1", f"{unit.id} moved this turn: its gunsmoke marker is gone"))
                unit = unit.model_copy(update=update)
            units.append(unit)
        kept = [u.id for u in battle.units if u.gunsmoke and not u.moved]
        marks = [u.id for u in battle.units if u.disordered or u.micro_hits]
        log.append(LogLine("DC-9.3", "gunsmoke markers stay until their unit moves"
                                     + (f" ({', '.join(kept)})" if kept else "")
                                     + "; disorder and micro-hits stay" + (f" ({', '.join(marks)})" if marks else "")))
        log.append(passing[-1])
        after = battle.model_copy(update={"units": tuple(units), "turn": Turn(number=number, side=following)})
        return after, log

    # -- duels: played by rangefire.rulesets.dress_on_the_colors.duel --------------------
    duel_module = "rangefire.rulesets.dress_on_the_colors.duel"
    # -- check and plan --------------------------------------------------------------------------
    def _check(self, battle: Battle, attack: Attack) -> VolleyPlan | Sequence[Refusal]:
        firer = battle.unit(attack.attacker)
        arc = battle.options.arc
        fs = Shape(firer)  # the geometry below is shared between battles by the units' shapes (table.py)
        turn_refusals = self._turn_refusals(battle, firer)
        if turn_refusals:
            return turn_refusals
        if firer.engaged:
            return [Refusal("DC-2.3", f"{firer.id} is engaged in melee: engaged units cannot fire")]
        # The closest unengaged enemy in the arc and within 20 in must be the target [DC-2.3].
        candidates: list[tuple[Fraction, int, Unit]] = []
        reach = battle.options.bands.long  # the long band's edge is the farthest any unit fires [DC-2.4]
        max_range2 = reach * reach
        limit = max_range2
        shapes = {o.id: Shape(o) for o in battle.units if o.side != firer.side and not o.engaged}
        enemies = [(gap2_between(fs, shapes[o.id]), i, o) for i, o in enumerate(battle.units) if o.id in shapes]
        for gap, index, other in sorted(enemies, key=lambda e: (e[0], e[1])):  # nearest first: the limit falls fast
            if gap > limit:
                break
            os = shapes[other.id]
            if arc_between(fs, os, arc):
                d2 = range2_within(fs, os, limit)
                if d2 is not None:
                    candidates.append((d2, index, other))
                    limit = min(limit, d2)
        closest = min((d for d, _, _ in candidates), default=None)
        tied = tuple(u.id for d, _, u in sorted(candidates, key=lambda c: c[1]) if d == closest)  # file order
        if attack.target is None and not tied:
            return [Refusal("DC-2.3", f"{firer.id} has no unengaged enemy within {_edge(reach)} in its 45° arc"
                                      + _changed(reach, RULES.bands.long, _edge))]
        target = battle.unit(attack.target or tied[0])
        ts = shapes.get(target.id) or Shape(target)
        lof = line_between(fs, ts)
        if attack.target is not None:
            refusals = self._target_refusals(firer, fs, target, ts, lof.distance2, arc, closest, tied, reach)
            if refusals:
                return refusals
        return self._plan_volley(battle, firer, target, fs, ts, lof, tied if len(tied) > 1 else ())

    @staticmethod
    def _target_refusals(firer: Unit, fs: Shape, target: Unit, ts: Shape, d2: Fraction, arc: str,
                         closest: Fraction | None, tied: tuple[str, ...], reach: Fraction) -> list[Refusal]:
        if target.id == firer.id:
            return [Refusal("DC-2.3", f"{firer.id} cannot fire at itself")]
        if target.side == firer.side:
            return [Refusal("DC-2.3", f"{target.id} is on {firer.id}'s side ({firer.side}), not an enemy")]
        out = []
        arc_ok = arc_between(fs, ts, arc)
        if target.engaged:
            out.append(Refusal("DC-2.3", f"{target.id} is engaged in melee: engaged units cannot be targeted"))
        if not arc_ok:
            out.append(Refusal("DC-2.1", f"{target.id} is outside {firer.id}'s 45° forward arc"))
        if d2 > reach * reach:
            out.append(Refusal("DC-2.4", f"{target.id} is {_inches(d2)} away; beyond {_edge(reach)} a unit cannot "
                                         f"fire" + _changed(reach, RULES.bands.long, _edge)))
        if not out and target.id not in tied:
            assert closest is not None
            out.append(Refusal("DC-2.3", f"{firer.id} must target the closest unengaged enemy in its arc: "
                                         f"{' or '.join(tied)} at {_inches(closest)}, not {target.id} at "
                                         f"{_inches(d2)}"))
        return out

    def _plan_volley(self, battle: Battle, firer: Unit, target: Unit, fs: Shape, ts: Shape, lof: LineOfFire,
                     tied: tuple[str, ...]) -> VolleyPlan | list[Refusal]:
        opts = battle.options
        band = band_of(lof.distance2, opts.bands)
        assert band is not None
        rules_band = band_of(lof.distance2, RULES.bands) if opts.bands != RULES.bands else band
        tn = opts.to_hit.row(firer.weapon).at(band)
        tn_note = _changed(tn, RULES.to_hit.row(firer.weapon).at(band), _number)
        if tn is None:
            return [Refusal("DC-3.2", f"a {WEAPON_NAMES[firer.weapon]} cannot fire at {band} range "
                                      f"({_inches(lof.distance2)}){tn_note}")]
        notes = [LogLine("DC-2.3", f"{target.id} is the closest unengaged enemy in the arc"
                                   + (f" (tied with {', '.join(t for t in tied if t != target.id)}: "
                                      "the firer chooses)" if tied else "")),
                 LogLine("DC-2.4", f"range {_inches(lof.distance2)} from the front edge: {band}"
                                   + _changed(band, rules_band, str)),
                 *([LogLine("DC-7.3", f"other lines of fire tie as the shortest: gunsmoke and cover are judged "
                                      f"on the middle one, from {_at(lof.start)} to {_at(lof.end)}")]
                   if lof.tied else []),
                 LogLine("DC-3.2", f"{WEAPON_NAMES[firer.weapon]}"
                                   + (" (canister)" if firer.weapon == "artillery" and band == "short" else
                                      " (roundshot)" if firer.weapon == "artillery" else "")
                                   + f" at {band} range: {tn}+{tn_note}")]
        # Each summary row a house rule changed says what the rules would give in its place.
        house: dict[str, str] = {}
        if band != rules_band:
            house["range"] = house_note(band, str(rules_band))
        modifiers: list[Modifier] = []
        deltas, rules_deltas = opts.modifiers, RULES.modifiers
        rules_mods: list[int] = []

        def modify(clause: str, name: str, reason: str) -> None:
            """A to-hit modifier at the battle's delta [DC-3.3, DC-7.2]; at 0 a note says it was turned off."""
            delta, rules = getattr(deltas, name), getattr(rules_deltas, name)
            if name != "gunsmoke":  # whether the rules' gunsmoke applies is their length's to say, below
                rules_mods.append(rules)
            if delta:
                modifiers.append(Modifier(clause, delta, reason + _changed(delta, rules, lambda d: f"{d:+d}")))
            else:
                notes.append(LogLine(clause, f"{reason}: no modifier {house_note('+0', f'{rules:+d}')}"))

        if target.formation == "skirmish":
            modify("DC-3.3", "target_skirmish", "target is in skirmish formation")
        markers = smoke_key(battle.terrain, battle.units)  # a unit's marker is removed when it moves [DC-7.1]
        beyond = opts.gunsmoke_beyond
        longer = _changed(beyond, RULES.gunsmoke_beyond, lambda b: f"longer than {_edge(b)}")
        smoke = smoke_between(fs, ts, markers, beyond)
        if smoke_between(fs, ts, markers, RULES.gunsmoke_beyond) if longer else smoke:
            rules_mods.append(rules_deltas.gunsmoke)  # the rules would penalise this line [DC-7.2]
        if smoke:
            modify("DC-7.2", "gunsmoke", f"firing through gunsmoke ({', '.join(smoke)}) over "
                                         f"{_inches(lof.distance2)}{longer}")
        elif longer and smoke_between(fs, ts, markers, None):
            notes.append(LogLine("DC-7.2", f"the line of fire crosses gunsmoke but is not longer than "
                                           f"{_edge(beyond)}: no penalty{longer}"))
        if firer.disordered:
            modify("DC-3.3", "firer_disordered", "firer is disordered")
        if firer.formation == "march-column":
            modify("DC-3.3", "firer_march_column", "firer is in march column")
        to_hit_mods = sum(m.delta for m in modifiers)  # only the to-hit modifiers so far [DC-3.3]
        need = need_for(tn, to_hit_mods, opts.lowest_hit)
        enfilade = enfilade_between(Shape(firer, at_start=True), ts)
        per, each = opts.enfilade.per_stands, opts.enfilade.dice
        enfilade_dice = firer.stands // per * each if enfilade else 0  # one per two stands, rounded down [DC-6.2]
        rules_extra = firer.stands // RULES.enfilade.per_stands * RULES.enfilade.dice if enfilade else 0
        dice_per_stand = opts.dice_per_stand
        terrain = Same(battle.terrain)
        grade, cover_from = cover_between(fs, ts, terrain, opts.cover_reach)
        rules_grade = grade
        if opts.cover_reach != RULES.cover_reach:
            rules_grade, _ = cover_between(fs, ts, terrain, RULES.cover_reach)
            if rules_grade != grade:
                notes.append(LogLine("DC-4.2", f"terrain crossed within {_edge(opts.cover_reach)} of the target "
                                               f"gives cover: {grade}"
                                               + _changed(opts.cover_reach, RULES.cover_reach, _edge)
                                               + f"; {rules_grade} under the rules"))
        save = opts.cover_save.at(grade)
        where = f"in {grade} cover ({', '.join(cover_from)})" if cover_from else "in the open"
        if enfilade:
            notes.append(LogLine("DC-6.1", f"{firer.id} began its turn wholly behind {target.id}'s front "
                                           "baseline: enfilade"))
        notes.append(LogLine("DC-4.2", f"{target.id} is {where}" + (f": saves on {save}+" if save else ": no save")
                             + _changed(save, RULES.cover_save.at(grade), _save)))
        if enfilade:
            # The extra dice and the worse save are modifiers like any other, each with its clause; where
            # they change nothing, a note says why.
            how = ("one for every two of the" if (per, each) == (2, 1) else
                   f"{plural(each, 'die')} for every {plural(per, 'stand')},")
            if enfilade_dice:
                modifiers.append(Modifier("DC-6.2", enfilade_dice, f"to-hit dice: enfilade, {how} "
                                          f"{plural(firer.stands, 'stand')} firing"
                                          + _changed(enfilade_dice, rules_extra, lambda n: f"+{n}")))
            else:
                notes.append(LogLine("DC-6.2", f"enfilade: no extra dice for {plural(firer.stands, 'stand')} firing "
                                               f"({how.removesuffix(' of the').rstrip(',')}, rounded down)"
                                               + _changed(enfilade_dice, rules_extra, lambda n: f"+{n}")))
            shift = opts.enfilade.save_shift
            by = "one" if shift == 1 else str(shift)
            shifted = _changed(shift, RULES.enfilade.save_shift, lambda n: f"by {n}")
            if save is None:
                why = "is in the open" if grade == "open" else "has no save"
                notes.append(LogLine("DC-6.3", f"enfilade worsens a save by {by}, but {target.id} {why}: "
                                               f"still no save{shifted}"))
            elif shift:
                worse = worsen_save(save, shift)
                modifiers.append(Modifier("DC-6.3", shift, f"cover save: enfilade worsens it by {by}, {save}+ "
                                                           f"becomes {_save(worse) if worse else 'no save'}"
                                                           + shifted))
                save = worse
            else:
                notes.append(LogLine("DC-6.3", f"enfilade leaves the save at {save}+{shifted}"))
        rules_save = RULES.cover_save.at(rules_grade)
        if enfilade:
            rules_save = worsen_save(rules_save, RULES.enfilade.save_shift)
        if save != rules_save:
            house["cover"] = house_note(_save(save), _save(rules_save))
        rules_dice = firer.stands * RULES.dice_per_stand + rules_extra
        if firer.stands * dice_per_stand + enfilade_dice != rules_dice:
            house["dice"] = house_note("", str(rules_dice))
        rules_tn = RULES.to_hit.row(firer.weapon).at(rules_band) if rules_band is not None else None
        rules_need = None if rules_tn is None else need_for(rules_tn, sum(rules_mods), RULES.lowest_hit)
        if need != rules_need:
            said = ("cannot fire" if rules_need is None else f"a natural {rules_need}+" if rules_need <= 6
                    else "no die can hit")
            house["to hit"] = house_note("", said)
        if need > 6:
            notes.append(LogLine("DC-3.4", f"needs a natural {need}: no die can hit (a 6 still suppresses)"))
        elif need < 2:
            notes.append(LogLine("DC-3.4", f"needs a natural {need}+: {never_hits(opts.lowest_hit)}"))
        return VolleyPlan(
            ruleset=self.key, attacker=firer.id, target=target.id, modifiers=tuple(modifiers),
            notes=tuple(notes), weapon=firer.weapon, band=band, distance2=lof.distance2,
            line_of_fire=(tuple(lof.start), tuple(lof.end)),  # type: ignore[arg-type]
            line_of_fire_tied=lof.tied,
            target_number=tn, need=need, stands_firing=firer.stands, enfilade=enfilade,
            enfilade_dice=enfilade_dice, cover=grade, cover_from=tuple(cover_from),
            save=save, smoke_from=tuple(smoke), target_stands=target.stands,
            target_micro_hits=target.micro_hits, target_disordered=target.disordered,
            target_discipline=target.discipline, discipline_dice=opts.discipline_dice,
            discipline_pass=opts.discipline_pass, discipline_disordered=opts.discipline_disordered,
            places_gunsmoke=not firer.moved, tied_targets=tied, dice_per_stand=dice_per_stand,
            lowest_hit=opts.lowest_hit, house_notes=tuple(house.items()),
        )

    # -- odds, resolution, application -----------------------------------------------------------
    def _odds(self, plan: VolleyPlan) -> Odds:
        if plan.dice > MAX_EXACT_DICE:
            # only house rules give more (two dice a stand, more enfilade dice), and the work grows steeply
            raise LimitError(f"{plan.attacker} rolls {plan.dice} to-hit dice under the house rules [DC-3.1, DC-6.2]; "
                             f"exact odds are worked out for at most {MAX_EXACT_DICE}, the most the rules give "
                             f"({MAX_STANDS} stands and their enfilade dice)")
        joint = volley_distribution(plan)
        return Odds(
            plan=plan,
            outcomes={
                "hits": joint.map(lambda o: o.hits),
                "unsaved_hits": joint.map(lambda o: o.unsaved_hits),
                "stands_lost": joint.map(lambda o: o.stands_lost),
            },
            events={
                "suppression": joint.p(lambda o: o.suppression),
                "disorder": joint.p(lambda o: o.disorder),
                "destroyed": joint.p(lambda o: o.stands_lost == plan.target_stands),
            },
        )

    def _resolve(self, plan: VolleyPlan, source: DiceSource) -> tuple[list[LogLine], DressOutcome]:
        return resolve_volley(plan, source)

    def _apply(self, battle: Battle, resolution: Resolution[DressOutcome]) -> Battle:
        plan = resolution.plan
        assert isinstance(plan, VolleyPlan)
        out = resolution.outcome
        units = []
        for unit in battle.units:
            if unit.id == plan.target:
                if out.destroyed:
                    continue  # the unit is destroyed and leaves the table [DC-4.3]
                unit = unit.model_copy(update={
                    "stands": out.target_stands, "micro_hits": out.micro_hits,
                    "disordered": unit.disordered or out.disorder,
                })
            if unit.id == plan.attacker:
                # stationary fire places a marker; a unit that moved has lost its old one [DC-7.1]; the unit
                # is marked as having fired this turn [DC-9.1]
                unit = unit.model_copy(update={"gunsmoke": plan.places_gunsmoke, "fired": True})
            units.append(unit)
        return battle.model_copy(update={"units": tuple(units)})
