"""An Arcane Legions order checked and planned step by step [AL-2, AL-3, AL-5, AL-6, AL-8.1, AL-9.1].

:class:`OrderPlanner` refuses what the rules forbid (the turn, the target, the order points, a ranged order
next to the enemy, a push), takes the sides (:func:`~rangefire.rulesets.arcane_legions.sides.choose_sides`),
then says in the plan's notes how the order was made, each line with its clause.
"""

from __future__ import annotations

from rangefire.core import Attack, LogLine, Modifier, Refusal
from rangefire.geometry import Segment
from rangefire.rulesets.arcane_legions.orders import (
    RULES,
    OrderPlan,
    counted,
    figures,
    noted,
    possessive,
    steps,
    without_figures,
)
from rangefire.rulesets.arcane_legions.scenario import SIDE_NAMES, Battle, Options, Unit
from rangefire.rulesets.arcane_legions.sides import Sides, choose_sides
from rangefire.rulesets.arcane_legions.table import is_adjacent, near_misses, nearby


class OrderPlanner:
    """The plan of one order (``attack``), or the refusals of the clauses it breaks."""

    def __init__(self, key: str, battle: Battle, attack: Attack) -> None:
        self.key, self.battle, self.options, self.attack = key, battle, battle.options, attack
        self.firer = battle.unit(attack.attacker)
        self.order = attack.choice("order") or "ranged"  # each value checked against the declaration [AL-8.1]
        self.wanted = {role: attack.choice(role) for role in ("from_side", "to_side")}  # [AL-1.1]
        firer = self.firer
        self.base_cost = getattr(self.options.cost, firer.base)  # [AL-5.1]
        self.cost = max(0, self.base_cost + firer.abilities.order_cost)
        self.points = battle.players[firer.side].order_points if firer.side in battle.players else 0
        self.shooter, self.push = firer, False  # the firer after a push [AL-5.2]
        self.pushed: list[int] = []  # the slots a push emptied

    def plan(self) -> OrderPlan | list[Refusal]:
        firer, battle = self.firer, self.battle
        if battle.turn is not None and battle.turn.side is not None and firer.side != battle.turn.side:
            return [Refusal("AL-9.1", f"it is {battle.turn.side}'s turn ({battle.turn.number}); only its units take "
                                      f"orders, and {firer.id} is on {firer.side}'s side")]
        if self.attack.target is None:
            return [Refusal("AL-2.3", "name the target unit")]
        target = battle.unit(self.attack.target)
        if target.side == firer.side:
            return [Refusal("AL-2.3", f"{target.id} is on {firer.side}'s side, not an enemy")]
        refusals = self._cost_refusals() + (self._ranged_refusals() if self.order == "ranged" else [])
        if refusals:
            return refusals
        found = choose_sides(battle, self.shooter, target, self.order, self.wanted)
        if isinstance(found, list):
            return found
        if self.options.refuse_zero_dice and found.attack_dice == 0:
            return [Refusal("AL-5.5", f"{firer.id} would roll no attack dice (option refuse_zero_dice)")]
        notes = [*self._sides_notes(target, found), *self._order_notes(target, found),
                 *lineup_house_rules(self.options)]
        return self._order_plan(target, found, [*found.modifiers, *self._bonuses(target, found)], notes)

    # -- refusals ----------------------------------------------------------------------------------
    def _cost_refusals(self) -> list[Refusal]:
        """An order costs order points the side must have [AL-5.1]."""
        if self.points >= self.cost:
            return []
        return [Refusal("AL-5.1", f"{self.firer.side} has {counted(self.points, 'order point')}; the order costs "
                                  f"{self.cost}")]

    def _ranged_refusals(self) -> list[Refusal]:
        """No ranged order next to the enemy [AL-2.1]; a second one pushes the unit [AL-5.2]; it needs a ready
        blue icon [AL-2.2]."""
        firer, options = self.firer, self.options
        refusals = []
        near = [u.id for u in nearby(self.battle.units, firer)
                if u.side != firer.side and is_adjacent(firer, u, options.corner_contact_is_adjacent)]
        if near:
            refusals.append(Refusal("AL-2.1", f"{firer.id} is adjacent to the enemy ({', '.join(near)}): no ranged "
                                              "combat order"))
        if firer.ranged_orders_this_turn >= 1:
            refusals += self._push()
        if self.shooter.ready("blue") == 0:
            refusals.append(Refusal("AL-2.2", f"{firer.id} has no ready blue icon"
                                              + (" after the push" if self.push else "")))
        return refusals

    def _push(self) -> list[Refusal]:
        """A second ranged order in a turn removes figures (a push), once a turn and never the last [AL-5.2]."""
        firer, push_figures = self.firer, self.options.push_figures
        if firer.pushed:
            return [Refusal("AL-5.2", f"{firer.id} has had a ranged order and been pushed this turn: it cannot be "
                                      "pushed again")]
        if firer.figures <= push_figures:
            return [Refusal("AL-5.2", f"a push would remove {possessive(firer.id)} last figure"
                                      + (f" (a push removes {push_figures}{noted(push_figures, RULES.push_figures)})"
                                         if push_figures != RULES.push_figures else ""))]
        self.push = True
        self.shooter, self.pushed = without_figures(firer, push_figures)
        return []

    # -- the plan's notes and modifiers ------------------------------------------------------------
    def _sides_notes(self, target: Unit, found: Sides) -> list[LogLine]:
        """The sides used, chosen by the player or by the engine [AL-3.1, AL-3.4, AL-8.1], the pairs that tied
        [AL-3.5] and the line of sight [AL-4]."""
        firer, options = self.firer, self.options
        sa, st, seen = found.from_side, found.to_side, found.sight
        by_engine = self._by_engine
        if self.order == "close":
            notes = [LogLine("AL-8.1", f"from {possessive(firer.id)} {sa} side to {possessive(target.id)} {st} "
                                       "side, the touching sides"
                                       + (" (the engine's choice: most dice net of the defender's)"
                                          if by_engine else ""))]
        else:
            notes = [LogLine("AL-3.4" if by_engine else "AL-3.1",
                             f"from {possessive(firer.id)} {sa} side to {possessive(target.id)} {st} side, "
                             f"{float(found.distance2) ** 0.5:.2f} steps"
                             + (f", within the range of {steps(options.range_steps)}"
                                f"{noted(options.range_steps, RULES.range_steps, steps)}"
                                if options.range_steps != RULES.range_steps else "")
                             + (" (the engine's choice: most dice net of the defender's, then the shortest)"
                                if by_engine else ""))]
        if found.tied:
            notes.append(LogLine("AL-3.5", "tied on net dice and distance with "
                                 + ", ".join(f"{possessive(firer.id)} {a} side to {possessive(target.id)} {t} side"
                                             for a, t in found.tied)
                                 + ": the engine takes the most attack dice, then the sides in the order "
                                   f"{', '.join(SIDE_NAMES)}"))
        if seen is not None:
            notes.append(LogLine("AL-4.3" if seen.hindered_by else "AL-4.4" if seen.touching else "AL-4.1",
                                 f"line of sight {seen.verdict}"
                                 + (f" by {', '.join(seen.hindered_by)}" if seen.hindered_by else "")
                                 + (f"; touching {', '.join(seen.touching)}" if seen.touching else "")))
            notes += self._near_sight(found)
        return notes

    def _near_sight(self, found: Sides) -> list[LogLine]:
        """Blocking or hindering terrain the line of sight passes near but does not meet, and so neither blocks
        nor hinders it [AL-4.2, AL-4.3]."""
        notes = []
        for pid, kind, d2 in near_misses(Segment(found.from_notch, found.to_notch), self.battle.terrain):
            gap = f"{float(d2) ** 0.5:.2f}"
            gap = "less than 0.01 steps" if gap == "0.00" else f"{gap} steps"
            verb, clause = ("block", "AL-4.2") if kind == "blocking" else ("hinder", "AL-4.3")
            notes.append(LogLine(clause, f"{pid} ({kind}) is {gap} from the line of sight, which does not pass "
                                         f"through it: it does not {verb}"))
        return notes

    @property
    def _by_engine(self) -> bool:
        """The engine chose a side the player did not name [AL-3.4]."""
        return self.wanted["from_side"] is None or self.wanted["to_side"] is None

    def _order_notes(self, target: Unit, found: Sides) -> list[LogLine]:
        """The order's cost [AL-5.1], the push [AL-5.2] and the rerolls [AL-6.3]."""
        firer = self.firer
        rules_cost = getattr(RULES.cost, firer.base)
        notes = [LogLine("AL-5.1", f"the order costs {counted(self.cost, 'order point')}"
                                   + (f" (a {firer.base}'s order {self.base_cost}{noted(self.base_cost, rules_cost)})"
                                      if self.base_cost != rules_cost else "")
                                   + f": {firer.side} has {self.points}")]
        if self.push:
            pushed = self.pushed
            removed = (f"its figure in slot {pushed[0]}" if len(pushed) == 1 else
                       f"its figures in slots {', '.join(map(str, pushed))}")
            notes.append(LogLine("AL-5.2", f"a second ranged order this turn: {firer.id} is pushed ({removed} "
                                           "removed" + noted(self.options.push_figures, RULES.push_figures) + ")"))
        shooter = self.shooter
        for who, kind, own, dice in ((shooter.id, "attack", shooter.abilities.reroll_attack_at_most, found.attack_dice),
                                     (target.id, "defense", target.abilities.reroll_defense_at_most,
                                      found.defense_dice)):
            house = getattr(self.options, f"reroll_{kind}_at_most")
            at_most = max(own, house)
            if at_most and dice:
                rule = (f" (house rule: options.reroll_{kind}_at_most = {house}, every unit's {kind} dice; the rules "
                        "reroll only by a unit's ability" + (f", {possessive(who)} being {own}" if own else "") + ")"
                        if house > own else "")
                notes.append(LogLine("AL-6.3", f"{who} rerolls once each {kind} die showing {at_most} or less{rule}"))
        return notes

    def _bonuses(self, target: Unit, found: Sides) -> list[Modifier]:
        """Each die's bonus after rerolls, where the unit rolls dice [AL-6.3]."""
        return [Modifier("AL-6.3", bonus, f"to each of {possessive(who)} {kind} dice after rerolls ({kind}_die_bonus)")
                for who, bonus, dice, kind in (
                    (self.shooter.id, self.shooter.abilities.attack_die_bonus, found.attack_dice, "attack"),
                    (target.id, target.abilities.defense_die_bonus, found.defense_dice, "defense"))
                if bonus and dice]

    def _order_plan(self, target: Unit, found: Sides, modifiers: list[Modifier],
                    notes: list[LogLine]) -> OrderPlan:
        shooter, options, seen, order = self.shooter, self.options, found.sight, self.order
        ab, db = shooter.abilities, target.abilities
        na, nt = found.from_notch, found.to_notch
        return OrderPlan(
            ruleset=self.key, attacker=self.firer.id, target=target.id, modifiers=tuple(modifiers),
            notes=tuple(notes), order=order, from_side=found.from_side, to_side=found.to_side,
            from_notch=(na.x, na.y), to_notch=(nt.x, nt.y), distance2=found.distance2,
            sight=seen.verdict if seen else "adjacent", hindered_by=seen.hindered_by if seen else (),
            touching=seen.touching if seen else (), attack_dice=found.attack_dice, defense_dice=found.defense_dice,
            attack_die_bonus=ab.attack_die_bonus, defense_die_bonus=db.defense_die_bonus,
            # a unit's own reroll, or every unit's under a house rule, whichever reaches higher [AL-6.3]
            reroll_attack_at_most=max(ab.reroll_attack_at_most, options.reroll_attack_at_most),
            reroll_defense_at_most=max(db.reroll_defense_at_most, options.reroll_defense_at_most),
            crit_per_three=options.crit_per_three_sixes, crit_sixes=options.critical.sixes,
            crit_hits=options.critical.hits, phantom=options.phantom, push_figures=options.push_figures,
            defender_scores=order == "close" or db.defender_scores_in_ranged, cost=self.cost, push=self.push,
            chosen_by_engine=self._by_engine, tied_sides=found.tied,
            attack_icons=shooter.ready("blue" if order == "ranged" else "red"), defense_icons=target.ready("white"),
            attacker_figures=figures(shooter), target_figures=figures(target),
            attacker_figure_count=shooter.figures, target_figure_count=target.figures)


def lineup_house_rules(options: Options) -> list[LogLine]:
    """Where a house rule changes the lineup, a note naming it beside the rules' value: the critical hit
    [AL-6.2] and the phantom die [AL-6.4]. None under the rules as written."""
    notes = []
    crit, rules = options.critical, RULES.critical
    if crit != rules:
        when = "for each full set of" if options.crit_per_three_sixes else "on"
        more = "" if options.crit_per_three_sixes else " or more"
        notes.append(LogLine("AL-6.2", f"a critical hit {when} {crit.sixes}{noted(crit.sixes, rules.sixes)}{more} "
                                       f"6s on the first roll, scoring {counted(crit.hits, 'extra hit')}"
                                       + noted(crit.hits, rules.hits)))
    if options.phantom != RULES.phantom:
        notes.append(LogLine("AL-6.4", f"a side that has run out of dice compares phantom dice of {options.phantom}"
                                       + noted(options.phantom, RULES.phantom)))
    return notes
