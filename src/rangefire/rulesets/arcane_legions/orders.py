"""Arcane Legions orders: the plan of a ranged or close combat order, its exact odds and its resolution
[AL-5 to AL-8]."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rangefire.core import DiceSource, LogLine, Need, Odds, Outcome, Plan
from rangefire.core.numbers import dump_exact
from rangefire.core.options import house_note
from rangefire.dice import Dist
from rangefire.dice.lineup import Pool, lineup_scores, reroll_weights
from rangefire.rulesets.arcane_legions.scenario import Options, Slot, Unit

#: The rules' values, the defaults of a plan's lineup numbers (a battle's plans carry its options' values).
RULES = Options()

#: The most dice in all (attack and defense) whose lineup is worked out exactly; beyond it ``odds`` gives a Monte
#: Carlo estimate. The exact lineup's time grows about as the fifth power of the dice. Measured on this project's
#: 2-core machine, busy with other work, with rerolls on both sides and the defender scoring (two lineups): 80 in
#: all took 1 to 2.6 s whatever the split (40 v 40, 30 v 50, 50 v 30, 60 v 20), 100 in all 3 to 5 s, 120 over
#: 10 s, 100 v 100 about a minute. 80 keeps every exact answer within a few seconds and covers every pool the
#: games field in practice (a whole army rarely rolls 40 dice).
MAX_EXACT_DICE = 80
#: Orders sampled for an estimate, and the fixed seed that makes it the same every time it is asked for: 20,000
#: orders of 500 dice a side (the most a scenario allows) take under a second, and put the mean hits within a
#: 95% interval about a fifth of a hit either side at 100 dice a side, half a hit at 500.
SAMPLES = 20_000
SEED = 20_000


@dataclass(frozen=True)
class ArcaneOutcome(Outcome):
    """What an order came to: damage to the target (lineup hits plus the critical) [AL-6.5, AL-6.2], whether a
    critical was scored, the defender's hits [AL-6.6, AL-8.2], and the lineup's hits alone."""

    hits: int
    critical: bool
    defender_hits: int
    lineup_hits: int


@dataclass(frozen=True)
class OrderPlan(Plan):
    """Everything decided before the dice of an order are rolled."""

    order: str = "ranged"
    from_side: str = ""
    to_side: str = ""
    from_notch: tuple[Fraction, Fraction] | None = None
    to_notch: tuple[Fraction, Fraction] | None = None
    distance2: Fraction = Fraction(0)
    sight: str = "clear"
    hindered_by: tuple[str, ...] = ()
    touching: tuple[str, ...] = ()
    attack_dice: int = 0
    defense_dice: int = 0
    attack_die_bonus: int = 0
    defense_die_bonus: int = 0
    reroll_attack_at_most: int = 0
    reroll_defense_at_most: int = 0
    crit_per_three: bool = False
    #: first-roll 6s that make a critical, and the extra hits it scores [AL-6.2]; the phantom die [AL-6.4]
    crit_sixes: int = RULES.critical.sixes
    crit_hits: int = RULES.critical.hits
    phantom: int = RULES.phantom
    defender_scores: bool = False
    cost: int = 0
    push: bool = False
    #: figures a push removes [AL-5.2]
    push_figures: int = RULES.push_figures
    chosen_by_engine: bool = True
    tied_sides: tuple[tuple[str, str], ...] = ()
    attack_icons: int = 0
    defense_icons: int = 0
    #: (slot, hit points) of each figure in the order they fall, and how many figures the unit has [AL-7.2].
    attacker_figures: tuple[tuple[int, int], ...] = ()
    target_figures: tuple[tuple[int, int], ...] = ()
    attacker_figure_count: int = 0
    target_figure_count: int = 0

    @property
    def crit_mode(self) -> str:
        return "per-set" if self.crit_per_three else "one"

    def details(self) -> dict[str, Any]:
        return {
            "order": self.order,
            "sides": {"from": self.from_side, "to": self.to_side, "chosen_by_engine": self.chosen_by_engine,
                      "tied_with": [list(pair) for pair in self.tied_sides]},
            "notches": {"from": _notch(self.from_notch), "to": _notch(self.to_notch)},
            "range": {"steps": round(math.sqrt(self.distance2), 4), "squared": str(self.distance2)},
            "line_of_sight": {"verdict": self.sight, "hindered_by": list(self.hindered_by),
                              "touching": list(self.touching)},
            "attack_dice": self.attack_dice,
            "defense_dice": self.defense_dice,
            "die_bonus": {"attack": self.attack_die_bonus, "defense": self.defense_die_bonus},
            "reroll_at_most": {"attack": self.reroll_attack_at_most, "defense": self.reroll_defense_at_most},
            "defender_scores": self.defender_scores,
            "cost": {"order_points": self.cost, "push": self.push},
        }

    def dice_text(self) -> str:
        """``4 blue v 2 white dice, each higher die in the lineup hits, attack rerolls 1s``: the dice [AL-6.1],
        the lineup [AL-6.5] and the rerolls and die bonuses that apply [AL-6.3]."""
        colour = "blue" if self.order == "ranged" else "red"
        defense = counted(self.defense_dice, "white die", "white dice")
        text = f"{self.attack_dice} {colour} v {defense}, each higher die in the lineup hits"
        for who, at_most, bonus, dice in (
                ("attack", self.reroll_attack_at_most, self.attack_die_bonus, self.attack_dice),
                ("defense", self.reroll_defense_at_most, self.defense_die_bonus, self.defense_dice)):
            if at_most and dice:
                text += f", {who} rerolls {at_most}" + (" or less" if at_most > 1 else "s")
            if bonus and dice:
                text += f", {bonus:+d} to each {who} die"
        return text

    def summary(self) -> list[tuple[str, str]]:
        rows = [("order", f"{self.order} combat"),
                ("sides", f"from its {self.from_side} side to {possessive(self.target)} {self.to_side} side"
                          + (" (engine's choice)" if self.chosen_by_engine else "")
                          + (f"; {counted(len(self.tied_sides), 'other')} tied" if self.tied_sides else "")),
                ("range", f"{math.sqrt(self.distance2):.2f} steps")]
        if self.order == "ranged":
            los = self.sight + (f" by {', '.join(self.hindered_by)}" if self.hindered_by else "")
            los += f" (touching {', '.join(self.touching)})" if self.touching else ""
            rows.append(("line of sight", los))
        rows += [("attack dice", str(self.attack_dice)), ("defense dice", str(self.defense_dice))]
        extras = []
        if self.attack_die_bonus or self.defense_die_bonus:
            extras.append(f"die bonus {self.attack_die_bonus:+d} / {self.defense_die_bonus:+d}")
        if self.reroll_attack_at_most or self.reroll_defense_at_most:
            extras.append(f"reroll at most {self.reroll_attack_at_most} / {self.reroll_defense_at_most}")
        if extras:
            rows.append(("abilities", "; ".join(extras)))
        rows.append(("cost", counted(self.cost, "order point")
                             + (" and a push (one figure)" if self.push else "")))
        return rows

    def pools(self) -> tuple[Pool, Pool]:
        """The two pools: reroll thresholds and die bonuses as abilities give them [AL-6.3]."""
        ta, td = self.reroll_attack_at_most, self.reroll_defense_at_most
        attack = Pool(self.attack_dice, reroll_weights(ta), self.attack_die_bonus, (6, ta) if ta else (1, 0))
        defense = Pool(self.defense_dice, reroll_weights(td), self.defense_die_bonus)
        return attack, defense


def noted(value: Any, rules: Any, form: str | Callable[[Any], str] = "{}") -> str:
    """Nothing where a value is the rules' own; else the house-rule note with the rules' value, ``form`` saying
    how a value is written.

    >>> noted(3, 3), noted(-1, -3, "{:+d}")
    ('', ' (house rule; the rules say -3)')
    """
    if value == rules:
        return ""
    say = form.format if isinstance(form, str) else form
    return " " + house_note(say(value), say(rules))


def steps(value: Fraction) -> str:
    """A distance in steps as a scenario writes it: ``6``, ``4.5``, ``13/3``."""
    return str(dump_exact(value))


def possessive(name: str) -> str:
    """``possessive("archers")`` is "archers'", ``possessive("orc-band")`` is "orc-band's"."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _notch(p: tuple[Fraction, Fraction] | None) -> list[str] | None:
    return [str(c) for c in p] if p else None


def critical_probability(dice: int, sixes: int = RULES.critical.sixes) -> Fraction:
    """P(``sixes`` or more 6s, three in the rules, on the first roll of ``dice`` attack dice) [AL-6.2].

    >>> critical_probability(3)
    Fraction(1, 216)
    >>> critical_probability(3, 1)
    Fraction(91, 216)
    """
    return Dist.binomial(dice, 1, 6).at_least(sixes) if dice >= sixes else Fraction(0)


def counted(n: int, one: str, many: str | None = None) -> str:
    """``counted(1, "die", "dice")`` is "1 die", ``counted(2, "hit")`` is "2 hits"."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def order_odds(plan: OrderPlan) -> tuple[dict[str, Dist[int]], dict[str, Fraction]]:
    """Exact distributions of hits (criticals included) and, where the defender scores, defender hits."""
    attack, defense = plan.pools()
    outcomes = {"hits": lineup_scores(attack, defense, plan.phantom, plan.crit_mode, plan.crit_sixes,
                                      plan.crit_hits)}
    if plan.defender_scores:
        outcomes["defender_hits"] = lineup_scores(defense, attack, plan.phantom)
    return outcomes, {"critical": critical_probability(plan.attack_dice, plan.crit_sixes)}


def odds_of(plan: OrderPlan, exact_limit: int = MAX_EXACT_DICE, samples: int = SAMPLES, seed: int = SEED) -> Odds:
    """Exact odds up to ``exact_limit`` dice in all; beyond it a seeded Monte Carlo estimate, labelled as one.
    Which of the two is decided from the dice counts alone, before any work."""
    if plan.attack_dice + plan.defense_dice <= exact_limit:
        outcomes, events = order_odds(plan)
        return Odds(plan=plan, outcomes=outcomes, events=events)
    from rangefire.rulesets.arcane_legions.sampling import estimate  # numpy is loaded only when needed

    why = (f"{plan.attack_dice} attack against {plan.defense_dice} defense dice: beyond the {exact_limit} dice in "
           "all that the exact lineup answers within seconds")
    return estimate(plan, samples, seed, why)


def resolve_order(plan: OrderPlan, source: DiceSource) -> tuple[list[LogLine], ArcaneOutcome]:
    """The plan's steps, then roll, reroll, add bonuses, sort, line up with phantom dice (2s in the rules) and
    count hits [AL-6];
    every point of damage logged [AL-7.3]."""
    log = [*plan.notes, *_dice_lines(plan)]
    colour = "blue" if plan.order == "ranged" else "red"
    first = list(source.roll("attack", plan.attack_dice, need=_attack_need(plan, colour)))  # [AL-6.1]
    log.append(LogLine("AL-6.1", f"{plan.attacker} rolls {counted(plan.attack_dice, colour + ' die', colour + ' dice')}"
                                 f": {' '.join(map(str, first)) or 'none'}"))
    defense_first = list(source.roll("defense", plan.defense_dice, need=_defense_need(plan, colour)))  # [AL-6.1]
    log.append(LogLine("AL-6.1", f"{plan.target} rolls {counted(plan.defense_dice, 'white die', 'white dice')}: "
                                 f"{' '.join(map(str, defense_first)) or 'none'}"))
    sixes = first.count(6)
    sets = (sixes // plan.crit_sixes) if plan.crit_per_three else int(sixes >= plan.crit_sixes)
    crits = sets * plan.crit_hits
    crit_rule = ""
    if (plan.crit_sixes, plan.crit_hits) != (RULES.critical.sixes, RULES.critical.hits):
        crit_rule = (f" ({'each full set of' if plan.crit_per_three else 'a critical on'} {plan.crit_sixes}"
                     f"{noted(plan.crit_sixes, RULES.critical.sixes)}, {counted(plan.crit_hits, 'extra hit')}"
                     f"{noted(plan.crit_hits, RULES.critical.hits)})")
    log.append(LogLine("AL-6.2", f"{counted(sixes, 'six', 'sixes')} on the first roll{crit_rule}: "
                                 + (_criticals(sets, crits, plan) if sets else "no critical")))
    attack = _rerolled(source, "attack", first, plan.reroll_attack_at_most, log, plan.attacker)
    defense = _rerolled(source, "defense", defense_first, plan.reroll_defense_at_most, log, plan.target)
    attack = sorted((v + plan.attack_die_bonus for v in attack), reverse=True)
    defense = sorted((v + plan.defense_die_bonus for v in defense), reverse=True)
    for who, bonus, dice in ((plan.attacker, plan.attack_die_bonus, attack),
                             (plan.target, plan.defense_die_bonus, defense)):
        if bonus and dice:
            log.append(LogLine("AL-6.3", f"{bonus:+d} to each of {possessive(who)} dice: "
                                         f"{' '.join(map(str, dice))}"))
    pairs = []
    hits = defender_hits = 0
    for i in range(max(len(attack), len(defense))):
        real_a, real_d = i < len(attack), i < len(defense)
        av = attack[i] if real_a else plan.phantom
        dv = defense[i] if real_d else plan.phantom
        if real_a and av > dv:
            hits += 1  # a phantom never scores [AL-6.6]
        elif real_d and dv > av and plan.defender_scores:
            defender_hits += 1  # [AL-6.6, AL-8.2]
        mark = ">" if av > dv else "<" if av < dv else "="
        pairs.append(f"{av if real_a else f'({plan.phantom})'}{mark}{dv if real_d else f'({plan.phantom})'}")
    phantoms = f", of {plan.phantom}{noted(plan.phantom, RULES.phantom)}" if plan.phantom != RULES.phantom else ""
    log.append(LogLine("AL-6.4", f"lineup, highest first (phantoms in brackets{phantoms} never score): "
                                 + (" ".join(pairs) or "none")))
    log.append(LogLine("AL-6.5", f"{counted(hits, 'attack die', 'attack dice')} strictly higher: "
                                 f"{counted(hits, 'hit')}"))
    if plan.defender_scores:
        scored = LogLine("AL-8.2" if plan.order == "close" else "AL-6.6",
                         f"{counted(defender_hits, 'defense die', 'defense dice')} strictly higher: the defender "
                         f"scores {counted(defender_hits, 'hit')}")
    else:
        scored = LogLine("AL-6.6", "in ranged combat the defender's higher dice score nothing")
    log.append(scored)
    total = hits + crits
    log.append(LogLine("AL-7.1", f"{plan.target} takes {total} damage ({counted(hits, 'hit')}"
                                 + (f" + {counted(crits, 'critical hit')})" if crits else ", no critical)")))
    log += damage_lines(plan.target, plan.target_figures, plan.target_figure_count, total)
    if plan.defender_scores:
        log.append(LogLine(scored.clause, f"{plan.attacker} takes {defender_hits} damage from the defender's hits"))
        log += damage_lines(plan.attacker, plan.attacker_figures, plan.attacker_figure_count, defender_hits)
    return log, ArcaneOutcome(hits=total, critical=crits > 0, defender_hits=defender_hits, lineup_hits=hits)


def _criticals(sets: int, crits: int, plan: OrderPlan) -> str:
    """``1 critical hit`` under the rules; where a critical scores other than one extra hit, both counts."""
    if plan.crit_hits == 1:
        return counted(crits, "critical hit")
    return f"{counted(sets, 'critical')}, {counted(crits, 'extra hit')}"


def _dice_lines(plan: OrderPlan) -> list[LogLine]:
    """How many dice each side rolls and why [AL-5.3, AL-5.4, AL-8.1], from the plan's modifiers."""
    attack_clause = "AL-5.3" if plan.order == "ranged" else "AL-8.1"
    colour = "blue" if plan.order == "ranged" else "red"
    lines = []
    for clause, who, verb, kind, icons, dice, icon in (
            (attack_clause, plan.attacker, "attacks with", colour, plan.attack_icons, plan.attack_dice, colour),
            ("AL-5.4", plan.target, "defends with", "white", plan.defense_icons, plan.defense_dice, "white")):
        mods = [m for m in plan.modifiers if m.clause == clause]
        parts = [counted(icons, f"ready {icon} icon"), *(f"{m.delta:+d} {m.reason}" for m in mods)]
        floor = "; never below 0 [AL-5.5]" if icons + sum(m.delta for m in mods) < 0 else ""
        lines.append(LogLine(clause, f"{who} {verb} {counted(dice, kind + ' die', kind + ' dice')}: "
                                     f"{', '.join(parts)}{floor}"))
    return lines


def _attack_need(plan: OrderPlan, colour: str) -> Need:
    """What the attack dice need, said to a player rolling them by hand [AL-6.1 to AL-6.5]."""
    text = f"{colour}: a die higher than its white die hits"
    return Need(text + _changes(plan.reroll_attack_at_most, plan.attack_die_bonus),
                f"against {plan.defense_dice} white")


def _defense_need(plan: OrderPlan, colour: str) -> Need:
    """What the defense dice need: to meet each attack die with one as high [AL-6.1, AL-6.4, AL-6.5]; where the
    defender scores, higher [AL-6.6, AL-8.2]."""
    text = f"white: a die as high as its {colour} die stops it"
    if plan.defender_scores:  # [AL-6.6, AL-8.2]
        text += ", a higher one scores a hit"
    return Need(text + _changes(plan.reroll_defense_at_most, plan.defense_die_bonus),
                f"against {plan.attack_dice} {colour}")


def _changes(reroll_at_most: int, bonus: int) -> str:
    """The abilities that change a roll [AL-6.3]: a reroll comes before a bonus."""
    parts = [f"{reroll_at_most} or less rerolled"] if reroll_at_most else []
    if bonus:
        parts.append(f"{bonus:+d} to each")
    return "".join(f", {p}" for p in parts)


def _rerolled(source: DiceSource, stage: str, first: list[int], at_most: int, log: list[LogLine],
              who: str) -> list[int]:
    """Each die showing ``at_most`` or less is rolled once more [AL-6.3]."""
    again = [i for i, v in enumerate(first) if v <= at_most]
    final = list(first)
    if again:
        redo = source.roll(f"{stage}-reroll", len(again), need=Need(  # [AL-6.3]
            f"once more for each die showing {at_most} or less", f"{who} rolled {' '.join(map(str, first))}"))
        for i, v in zip(again, redo, strict=True):
            final[i] = v
        log.append(LogLine("AL-6.3", f"{who} rerolls {counted(len(again), 'die', 'dice')} showing {at_most} or "
                                     f"less: {' '.join(map(str, redo))}"))
    return final


def casualty_order(unit: Unit) -> list[int]:
    """The slots in the order figures fall: the unit's own order, else the last occupied slot first [AL-7.2]."""
    if unit.casualty_order is not None:
        return list(unit.casualty_order)
    return [i for i in range(len(unit.slots) - 1, -1, -1)]


def figures(unit: Unit) -> tuple[tuple[int, int], ...]:
    """The unit's figures in the order they fall: (slot, hit points) [AL-7.2]. A slot named twice in the
    casualty order falls once; an occupied slot recorded with 0 hit points holds a figure of 1."""
    order = dict.fromkeys(casualty_order(unit))
    return tuple((i, max(unit.slots[i].hp, 1)) for i in order if unit.slots[i].occupied)


def deal(figures_in_order: tuple[tuple[int, int], ...], damage: int) -> tuple[list[tuple[int, int, int]], int]:
    """Damage one point at a time to the figures in order [AL-7.2]: for each figure reached, (slot, points
    taken, hit points left), and the damage beyond the last figure, which is lost.

    >>> deal(((2, 1), (1, 3), (0, 1)), 3)
    ([(2, 1, 0), (1, 2, 1)], 0)
    >>> deal(((0, 2),), 5)
    ([(0, 2, 0)], 3)
    """
    dealt = []
    for slot, hp in figures_in_order:
        if damage <= 0:
            break
        taken = min(hp, damage)
        damage -= taken
        dealt.append((slot, taken, hp - taken))
    return dealt, max(damage, 0)


def damage_lines(who: str, figures_in_order: tuple[tuple[int, int], ...], count: int, damage: int) -> list[LogLine]:
    """Every point of damage dealt: the figure that takes it, each figure removed, damage lost beyond the last
    figure, the unit destroyed when none of its ``count`` figures is left [AL-7.2, AL-7.3]."""
    dealt, lost = deal(figures_in_order, damage)
    lines = [LogLine("AL-7.2", f"{possessive(who)} figure in slot {slot} takes {taken} damage: "
                               + ("removed" if left == 0 else f"{counted(left, 'hit point')} left"))
             for slot, taken, left in dealt]
    if lost:
        lines.append(LogLine("AL-7.2", f"{lost} damage beyond the last figure is lost"))
    if dealt and sum(1 for *_, left in dealt if left == 0) == count:
        lines.append(LogLine("AL-7.2", f"{who} is destroyed: no figures left"))
    return lines


def take_damage(unit: Unit, damage: int) -> tuple[tuple[Slot, ...], list[int]]:
    """Damage one point at a time to the figures in casualty order; a figure at 0 hit points is removed and
    its icons stop being ready; damage beyond the last figure is lost [AL-7.2]. Returns the slots and the
    indices of the figures removed."""
    slots = list(unit.slots)
    removed = []
    for i, _, left in deal(figures(unit), damage)[0]:
        if left == 0:
            slots[i] = slots[i].model_copy(update={"occupied": False, "hp": 0})
            removed.append(i)
        else:
            slots[i] = slots[i].model_copy(update={"hp": left})
    return tuple(slots), removed


def without_figures(unit: Unit, count: int = RULES.push_figures) -> tuple[Unit, list[int]]:
    """The unit after a push: ``count`` figures removed (one in the rules), the first in casualty order [AL-5.2];
    and their slots."""
    slots = list(unit.slots)
    removed = [i for i in dict.fromkeys(casualty_order(unit)) if slots[i].occupied][:count]
    for i in removed:
        slots[i] = slots[i].model_copy(update={"occupied": False, "hp": 0})
    return unit.model_copy(update={"slots": tuple(slots)}), removed
