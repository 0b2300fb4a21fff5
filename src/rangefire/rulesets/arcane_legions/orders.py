"""Arcane Legions orders: the plan of a ranged or close combat order, its exact odds and its resolution
[AL-5 to AL-8]."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rangefire.core import DiceSource, LogLine, Plan
from rangefire.dice import Dist
from rangefire.dice.lineup import Pool, lineup_scores, reroll_weights
from rangefire.rulesets.arcane_legions.scenario import Slot, Unit

PHANTOM = 2


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
    defender_scores: bool = False
    cost: int = 0
    push: bool = False
    chosen_by_engine: bool = True

    @property
    def crit_mode(self) -> str:
        return "per-three" if self.crit_per_three else "one"

    def details(self) -> dict[str, Any]:
        return {
            "order": self.order,
            "sides": {"from": self.from_side, "to": self.to_side, "chosen_by_engine": self.chosen_by_engine},
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

    def summary(self) -> list[tuple[str, str]]:
        rows = [("order", f"{self.order} combat"),
                ("sides", f"from its {self.from_side} side to {possessive(self.target)} {self.to_side} side"
                          + (" (engine's choice)" if self.chosen_by_engine else "")),
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
        rows.append(("cost", f"{self.cost} order point{'s' if self.cost != 1 else ''}"
                             + (" and a push (one figure)" if self.push else "")))
        return rows

    def pools(self) -> tuple[Pool, Pool]:
        """The two pools: reroll thresholds and die bonuses as abilities give them [AL-6.3]."""
        ta, td = self.reroll_attack_at_most, self.reroll_defense_at_most
        attack = Pool(self.attack_dice, reroll_weights(ta), self.attack_die_bonus, (6, ta) if ta else (1, 0))
        defense = Pool(self.defense_dice, reroll_weights(td), self.defense_die_bonus)
        return attack, defense


def possessive(name: str) -> str:
    """``possessive("archers")`` is "archers'", ``possessive("orc-band")`` is "orc-band's"."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _notch(p: tuple[Fraction, Fraction] | None) -> list[str] | None:
    return [str(c) for c in p] if p else None


def critical_probability(dice: int) -> Fraction:
    """P(three or more 6s on the first roll of ``dice`` attack dice) [AL-6.2].

    >>> critical_probability(3)
    Fraction(1, 216)
    """
    return Dist.binomial(dice, 1, 6).at_least(3) if dice >= 3 else Fraction(0)


def order_odds(plan: OrderPlan) -> tuple[dict[str, Dist[int]], dict[str, Fraction]]:
    """Exact distributions of hits (criticals included) and, where the defender scores, defender hits."""
    attack, defense = plan.pools()
    outcomes = {"hits": lineup_scores(attack, defense, PHANTOM, crit=plan.crit_mode)}
    if plan.defender_scores:
        outcomes["defender_hits"] = lineup_scores(defense, attack, PHANTOM)
    return outcomes, {"critical": critical_probability(plan.attack_dice)}


def resolve_order(plan: OrderPlan, source: DiceSource) -> tuple[list[LogLine], dict[str, Any]]:
    """Roll, reroll, add bonuses, sort, line up with phantom 2s, and count hits [AL-6]; damage follows [AL-7]."""
    log: list[LogLine] = []
    first = list(source.roll("attack", plan.attack_dice))
    colour = "blue" if plan.order == "ranged" else "red"
    log.append(LogLine("AL-6.1", f"{plan.attacker} rolls {plan.attack_dice} {colour} dice: "
                                 f"{' '.join(map(str, first)) or 'none'}"))
    defense_first = list(source.roll("defense", plan.defense_dice))
    log.append(LogLine("AL-6.1", f"{plan.target} rolls {plan.defense_dice} white dice: "
                                 f"{' '.join(map(str, defense_first)) or 'none'}"))
    sixes = first.count(6)
    crits = (sixes // 3) if plan.crit_per_three else int(sixes >= 3)
    log.append(LogLine("AL-6.2", f"{sixes} six{'es' if sixes != 1 else ''} on the first roll: "
                                 + (f"{crits} critical hit{'s' if crits != 1 else ''}" if crits else "no critical")))
    attack = _rerolled(source, "attack", first, plan.reroll_attack_at_most, log, plan.attacker)
    defense = _rerolled(source, "defense", defense_first, plan.reroll_defense_at_most, log, plan.target)
    attack = sorted((v + plan.attack_die_bonus for v in attack), reverse=True)
    defense = sorted((v + plan.defense_die_bonus for v in defense), reverse=True)
    if plan.attack_die_bonus or plan.defense_die_bonus:
        log.append(LogLine("AL-6.3", f"die bonuses {plan.attack_die_bonus:+d} / {plan.defense_die_bonus:+d}"))
    n = max(len(attack), len(defense))
    pairs = []
    hits = defender_hits = 0
    for i in range(n):
        a = attack[i] if i < len(attack) else None
        d = defense[i] if i < len(defense) else None
        av, dv = (a if a is not None else PHANTOM), (d if d is not None else PHANTOM)
        mark = "="
        if a is not None and av > dv:
            hits += 1
            mark = ">"
        elif d is not None and dv > av:
            mark = "<"
            if plan.defender_scores:
                defender_hits += 1
        pairs.append(f"{av if a is not None else '(2)'}{mark}{dv if d is not None else '(2)'}")
    log.append(LogLine("AL-6.4", "lineup, highest first (phantoms in brackets): " + (" ".join(pairs) or "none")))
    log.append(LogLine("AL-6.5", f"{hits} attack {'die' if hits == 1 else 'dice'} strictly higher: {hits} hit"
                                 f"{'s' if hits != 1 else ''}"))
    if plan.defender_scores:
        log.append(LogLine("AL-8.2" if plan.order == "close" else "AL-6.6",
                           f"the defender scores {defender_hits} hit{'s' if defender_hits != 1 else ''}"))
    else:
        log.append(LogLine("AL-6.6", "in ranged combat the defender's higher dice score nothing"))
    total = hits + crits
    log.append(LogLine("AL-7.1", f"{plan.target} takes {total} damage ({hits} hits + {crits} critical)"))
    return log, {"hits": total, "critical": crits > 0, "defender_hits": defender_hits, "lineup_hits": hits}


def _rerolled(source: DiceSource, stage: str, first: list[int], at_most: int, log: list[LogLine],
              who: str) -> list[int]:
    """Each die showing ``at_most`` or less is rolled once more [AL-6.3]."""
    again = [i for i, v in enumerate(first) if v <= at_most]
    final = list(first)
    if again:
        redo = source.roll(f"{stage}-reroll", len(again))
        for i, v in zip(again, redo, strict=True):
            final[i] = v
        log.append(LogLine("AL-6.3", f"{who} rerolls {len(again)} dice showing {at_most} or less: "
                                     f"{' '.join(map(str, redo))}"))
    return final


def casualty_order(unit: Unit) -> list[int]:
    """The slots in the order figures fall: the unit's own order, else the last occupied slot first [AL-7.2]."""
    if unit.casualty_order is not None:
        return list(unit.casualty_order)
    return [i for i in range(len(unit.slots) - 1, -1, -1)]


def take_damage(unit: Unit, damage: int) -> tuple[tuple[Slot, ...], list[int]]:
    """Damage one point at a time to the figures in casualty order; a figure at 0 hit points is removed and
    its icons stop being ready; damage beyond the last figure is lost [AL-7.2]. Returns the slots and the
    indices of the figures removed."""
    slots = list(unit.slots)
    removed = []
    for i in casualty_order(unit):
        if damage <= 0:
            break
        slot = slots[i]
        if not slot.occupied:
            continue
        hp = max(slot.hp, 1)
        taken = min(hp, damage)
        damage -= taken
        if taken >= hp:
            slots[i] = slot.model_copy(update={"occupied": False, "hp": 0})
            removed.append(i)
        else:
            slots[i] = slot.model_copy(update={"hp": hp - taken})
    return tuple(slots), removed


def without_one_figure(unit: Unit) -> Unit:
    """The unit after a push: one figure removed, the first in casualty order [AL-5.2]."""
    for i in casualty_order(unit):
        if unit.slots[i].occupied:
            slots = list(unit.slots)
            slots[i] = slots[i].model_copy(update={"occupied": False, "hp": 0})
            return unit.model_copy(update={"slots": tuple(slots)})
    return unit
