"""Dress on the Colors: American Civil War regiments of stands firing volleys (``../shared/rules``, DC-*).

>>> from rangefire.rulesets import find_ruleset
>>> find_ruleset("doc").key
'dress-on-the-colors'
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from rangefire.core import Attack, DiceSource, LogLine, Modifier, Odds, Refusal, Resolution, Ruleset
from rangefire.geometry import Point
from rangefire.rulesets.dress_on_the_colors.scenario import KEY, Battle, Options, Turn, Unit, cross_problems
from rangefire.rulesets.dress_on_the_colors.table import (
    MAX_RANGE2,
    Footprint,
    LineOfFire,
    band_of,
    cover,
    footprint,
    in_arc,
    is_behind_front_baseline,
    line_of_fire,
    line_of_fire_within,
    smoke_crossed,
    smoke_marker,
)
from rangefire.rulesets.dress_on_the_colors.volley import (
    SAVES,
    TARGET_NUMBERS,
    WEAPON_NAMES,
    DressOutcome,
    VolleyPlan,
    need_for,
    plural,
    resolve_volley,
    volley_distribution,
    worsen_save,
)

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Battle", "DressOnTheColors", "DressOutcome", "Options", "Unit", "VolleyPlan"]


def _inches(distance2: Fraction) -> str:
    return f"{math.sqrt(distance2):.2f} in"


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

    # -- duels (rangefire.rulesets.dress_on_the_colors.duel) ----------------------------------------
    def exchanges(self, battle: Battle, attack: Attack) -> list[tuple[Fraction, Battle]]:
        from rangefire.rulesets.dress_on_the_colors import duel
        return duel.exchanges(self, battle, attack)

    def sampled_exchanges(self, battle: Battle, attack: Attack, n: int,
                          rng: np.random.Generator) -> list[tuple[int, Battle]]:
        from rangefire.rulesets.dress_on_the_colors import duel
        return duel.sampled_exchanges(self, battle, attack, n, rng)

    def duel_key(self, battle: Battle) -> Hashable:
        from rangefire.core.fingerprint import fingerprint
        return fingerprint(battle)

    def duel_left(self, battle: Battle, uid: str) -> int:
        from rangefire.rulesets.dress_on_the_colors import duel
        return duel.left(battle, uid)

    # -- check and plan --------------------------------------------------------------------------
    def _check(self, battle: Battle, attack: Attack) -> VolleyPlan | Sequence[Refusal]:
        firer = battle.unit(attack.attacker)
        arc = battle.options.arc
        fp = footprint(firer)
        turn_refusals = self._turn_refusals(battle, firer)
        if turn_refusals:
            return turn_refusals
        if firer.engaged:
            return [Refusal("DC-2.3", f"{firer.id} is engaged in melee: engaged units cannot fire")]
        # The closest unengaged enemy in the arc and within 20 in must be the target [DC-2.3].
        candidates: list[tuple[Fraction, int, Unit]] = []
        limit = MAX_RANGE2
        enemies = [(fp.box.gap2(footprint(o).box), i, o) for i, o in enumerate(battle.units)
                   if o.side != firer.side and not o.engaged]
        for gap, index, other in sorted(enemies, key=lambda e: (e[0], e[1])):  # nearest first: the limit falls fast
            if gap > limit:
                break
            ofp = footprint(other)
            if in_arc(fp, ofp, arc):
                lof_other = line_of_fire_within(fp, ofp, limit)
                if lof_other is not None:
                    candidates.append((lof_other.distance2, index, other))
                    limit = min(limit, lof_other.distance2)
        closest = min((d for d, _, _ in candidates), default=None)
        tied = tuple(u.id for d, _, u in sorted(candidates, key=lambda c: c[1]) if d == closest)  # file order
        if attack.target is None and not tied:
            return [Refusal("DC-2.3", f"{firer.id} has no unengaged enemy within 20 in in its 45° arc")]
        target = battle.unit(attack.target or tied[0])
        tfp = footprint(target)
        lof = line_of_fire(fp, tfp)
        if attack.target is not None:
            refusals = self._target_refusals(firer, fp, target, tfp, lof.distance2, arc, closest, tied)
            if refusals:
                return refusals
        return self._plan_volley(battle, firer, target, tfp, lof, tied if len(tied) > 1 else ())

    @staticmethod
    def _target_refusals(firer: Unit, fp: Footprint, target: Unit, tfp: Footprint, d2: Fraction, arc: str,
                         closest: Fraction | None, tied: tuple[str, ...]) -> list[Refusal]:
        if target.id == firer.id:
            return [Refusal("DC-2.3", f"{firer.id} cannot fire at itself")]
        if target.side == firer.side:
            return [Refusal("DC-2.3", f"{target.id} is on {firer.id}'s side ({firer.side}), not an enemy")]
        out = []
        arc_ok = in_arc(fp, tfp, arc)
        if target.engaged:
            out.append(Refusal("DC-2.3", f"{target.id} is engaged in melee: engaged units cannot be targeted"))
        if not arc_ok:
            out.append(Refusal("DC-2.1", f"{target.id} is outside {firer.id}'s 45° forward arc"))
        if d2 > MAX_RANGE2:
            out.append(Refusal("DC-2.4", f"{target.id} is {_inches(d2)} away; beyond 20 in a unit cannot fire"))
        if not out and target.id not in tied:
            assert closest is not None
            out.append(Refusal("DC-2.3", f"{firer.id} must target the closest unengaged enemy in its arc: "
                                         f"{' or '.join(tied)} at {_inches(closest)}, not {target.id} at "
                                         f"{_inches(d2)}"))
        return out

    def _plan_volley(self, battle: Battle, firer: Unit, target: Unit, tfp: Footprint, lof: LineOfFire,
                     tied: tuple[str, ...]) -> VolleyPlan | list[Refusal]:
        band = band_of(lof.distance2)
        assert band is not None
        tn = TARGET_NUMBERS[firer.weapon][band]
        if tn is None:
            return [Refusal("DC-3.2", f"a {WEAPON_NAMES[firer.weapon]} cannot fire at {band} range "
                                      f"({_inches(lof.distance2)})")]
        notes = [LogLine("DC-2.3", f"{target.id} is the closest unengaged enemy in the arc"
                                   + (f" (tied with {', '.join(t for t in tied if t != target.id)}: "
                                      "the firer chooses)" if tied else "")),
                 LogLine("DC-2.4", f"range {_inches(lof.distance2)} from the front edge: {band}"),
                 *([LogLine("DC-7.3", f"other lines of fire tie as the shortest: gunsmoke and cover are judged "
                                      f"on the middle one, from {_at(lof.start)} to {_at(lof.end)}")]
                   if lof.tied else []),
                 LogLine("DC-3.2", f"{WEAPON_NAMES[firer.weapon]}"
                                   + (" (canister)" if firer.weapon == "artillery" and band == "short" else
                                      " (roundshot)" if firer.weapon == "artillery" else "")
                                   + f" at {band} range: {tn}+")]
        modifiers = []
        if target.formation == "skirmish":
            modifiers.append(Modifier("DC-3.3", -1, "target is in skirmish formation"))
        markers = [(t.id, t.polygon) for t in battle.terrain if t.kind == "gunsmoke"]
        # a unit's marker is removed when it moves [DC-7.1]
        markers += [(f"{u.id}:gunsmoke", smoke_marker(u)) for u in battle.units if u.gunsmoke and not u.moved]
        smoke = smoke_crossed(lof, markers)
        if smoke:
            modifiers.append(Modifier("DC-7.2", -1, f"firing through gunsmoke ({', '.join(smoke)}) over "
                                                    f"{_inches(lof.distance2)}"))
        if firer.disordered:
            modifiers.append(Modifier("DC-3.3", -1, "firer is disordered"))
        if firer.formation == "march-column":
            modifiers.append(Modifier("DC-3.3", -1, "firer is in march column"))
        need = need_for(tn, sum(m.delta for m in modifiers))  # only the to-hit modifiers so far [DC-3.3]
        enfilade = is_behind_front_baseline(firer, tfp)
        enfilade_dice = firer.stands // 2 if enfilade else 0  # one per two stands, rounded down [DC-6.2]
        grade, cover_from = cover(tfp, lof, battle.terrain)
        save = SAVES[grade]
        where = f"in {grade} cover ({', '.join(cover_from)})" if cover_from else "in the open"
        if enfilade:
            notes.append(LogLine("DC-6.1", f"{firer.id} began its turn wholly behind {target.id}'s front "
                                           "baseline: enfilade"))
        notes.append(LogLine("DC-4.2", f"{target.id} is {where}" + (f": saves on {save}+" if save else ": no save")))
        if enfilade:
            # The extra dice and the worse save are modifiers like any other, each with its clause; where
            # they change nothing, a note says why.
            if enfilade_dice:
                modifiers.append(Modifier("DC-6.2", enfilade_dice, f"to-hit dice: enfilade, one for every two of "
                                                                   f"the {plural(firer.stands, 'stand')} firing"))
            else:
                notes.append(LogLine("DC-6.2", "enfilade: no extra dice for 1 stand firing (one for every two, "
                                               "rounded down)"))
            if save is None:
                notes.append(LogLine("DC-6.3", f"enfilade worsens a save by one, but {target.id} is in the open: "
                                               "still no save"))
            else:
                worse = worsen_save(save)
                modifiers.append(Modifier("DC-6.3", 1, f"cover save: enfilade worsens it by one, {save}+ becomes "
                                                       f"{worse}+"))
                save = worse
        if need > 6:
            notes.append(LogLine("DC-3.4", f"needs a natural {need}: no die can hit (a 6 still suppresses)"))
        opts = battle.options
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
            discipline_pass=opts.discipline_pass, places_gunsmoke=not firer.moved, tied_targets=tied,
        )

    # -- odds, resolution, application -----------------------------------------------------------
    def _odds(self, plan: VolleyPlan) -> Odds:
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
