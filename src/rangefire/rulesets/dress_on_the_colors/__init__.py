"""Dress on the Colors: American Civil War regiments of stands firing volleys (``../shared/rules``, DC-*).

>>> from rangefire.rulesets import find_ruleset
>>> find_ruleset("doc").key
'dress-on-the-colors'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from rangefire.core import Attack, DiceSource, LimitError, LogLine, Move, MoveCheck, Odds, Refusal, Resolution, Ruleset
from rangefire.geometry import Point
from rangefire.rulesets.dress_on_the_colors.moves import check_move
from rangefire.rulesets.dress_on_the_colors.planning import VolleyPlanner, at, changed, edge, inches
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
    Shape,
    arc_between,
    band_edges2,
    gap2_between,
    line_between,
    range2_within,
    shape_of,
)
from rangefire.rulesets.dress_on_the_colors.volley import (
    RULES,
    DressOutcome,
    VolleyPlan,
    resolve_volley,
    volley_distribution,
)

__all__ = ["Battle", "DressOnTheColors", "DressOutcome", "Options", "Unit", "VolleyPlan"]


#: The most to-hit dice the rules give (60 stands enfilading: 60 + 30), the most whose exact odds are worked
#: out: 90 dice take about a second; 300, which house rules could give, twenty.
MAX_EXACT_DICE = MAX_STANDS + MAX_STANDS // 2
#: The options the rulings name (DC-2.1, DC-5.2, DC-9.1): a written battle always states them.
RULINGS = ("arc", "discipline_dice", "discipline_pass", "one_volley_per_turn")


class DressOnTheColors(Ruleset[Battle, VolleyPlan, DressOutcome]):
    """Volleys of musketry and artillery between regiments of stands."""

    key = KEY
    title = "Dress on the Colors"
    aliases = ("doc", "dress")
    clause_prefix = "DC"
    setup_clause = "DC-10.4"  # set-up edits before the first turn
    stages = ("hit", "hit-reroll", "save", "discipline")  # hit-reroll: a house rule's second roll [DC-3.4]
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
        if battle.turn is not None and battle.turn.side is not None and firer.side != battle.turn.side:
            out.append(Refusal("DC-9.2", f"it is {battle.turn.side}'s turn ({battle.turn.number}); {firer.id} is "
                                         f"on {firer.side}'s side"))
        if firer.fired and battle.options.one_volley_per_turn:
            out.append(Refusal("DC-9.1", f"{firer.id} has already fired a volley this turn (one volley a turn)"))
        return out

    def _end_turn(self, battle: Battle) -> tuple[Battle, list[LogLine]]:
        side, number, following, log, closing = self.passed_turn(battle, "DC-9.2", "DC-9.4")
        units = []
        for unit in battle.units:
            if unit.side == side:
                update: dict[str, Any] = {"moved": False, "fired": False, "start_position": unit.position,
                                          "start_facing": unit.facing}
                done = [w for w, flag in (("moved", unit.moved), ("fired", unit.fired)) if flag]
                log.append(LogLine("DC-9.3", f"{unit.id}: " + (" and ".join(done) + " cleared; " if done else "")
                                             + f"its start of turn is now at {at(Point(*unit.position))}, facing "
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
        log += closing
        turn = Turn(number=number, side=following, order=tuple(self.sides(battle)))  # the order stays [DC-9.4]
        after = battle.model_copy(update={"units": tuple(units), "turn": turn})
        return after, log

    # -- moves [DC-10]: checked and logged by rangefire.rulesets.dress_on_the_colors.moves ---------------
    def _move(self, battle: Battle, move: Move) -> MoveCheck:
        return check_move(battle, move)

    # -- duels: played by rangefire.rulesets.dress_on_the_colors.duel --------------------
    duel_module = "rangefire.rulesets.dress_on_the_colors.duel"
    # -- check and plan --------------------------------------------------------------------------
    def _check(self, battle: Battle, attack: Attack) -> VolleyPlan | Sequence[Refusal]:
        firer = battle.unit(attack.attacker)
        arc = battle.options.arc
        fs = shape_of(firer)  # the geometry below is shared between battles by the units' shapes (table.py)
        turn_refusals = self._turn_refusals(battle, firer)
        if turn_refusals:
            return turn_refusals
        if firer.engaged:
            return [Refusal("DC-2.3", f"{firer.id} is engaged in melee: engaged units cannot fire")]
        # The closest unengaged enemy in the arc and within 20 in must be the target [DC-2.3].
        candidates: list[tuple[Fraction, int, Unit]] = []
        reach = battle.options.bands.long  # the long band's edge is the farthest any unit fires [DC-2.4]
        max_range2 = band_edges2(battle.options.bands)[-1][1]  # the long edge, squared (worked out once)
        limit = max_range2
        shapes = {o.id: shape_of(o) for o in battle.units if o.side != firer.side and not o.engaged}
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
            return [Refusal("DC-2.3", f"{firer.id} has no unengaged enemy within {edge(reach)} in its 45° arc"
                                      + changed(reach, RULES.bands.long, edge))]
        target = battle.unit(attack.target or tied[0])
        ts = shapes.get(target.id) or shape_of(target)
        lof = line_between(fs, ts)
        if attack.target is not None:
            refusals = self._target_refusals(firer, fs, target, ts, lof.distance2, arc, closest, tied, reach,
                                             max_range2)
            if refusals:
                return refusals
        return VolleyPlanner(self.key, battle, firer, target, fs, ts, lof, tied if len(tied) > 1 else ()).plan()

    @staticmethod
    def _target_refusals(firer: Unit, fs: Shape, target: Unit, ts: Shape, d2: Fraction, arc: str,
                         closest: Fraction | None, tied: tuple[str, ...], reach: Fraction,
                         reach2: Fraction) -> list[Refusal]:
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
        if d2 > reach2:
            out.append(Refusal("DC-2.4", f"{target.id} is {inches(d2)} away; beyond {edge(reach)} a unit cannot "
                                         f"fire" + changed(reach, RULES.bands.long, edge)))
        if not out and target.id not in tied:
            assert closest is not None
            out.append(Refusal("DC-2.3", f"{firer.id} must target the closest unengaged enemy in its arc: "
                                         f"{' or '.join(tied)} at {inches(closest)}, not {target.id} at "
                                         f"{inches(d2)}"))
        return out

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
