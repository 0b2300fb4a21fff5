"""A Bushido ranged attack as data: its plan (everything decided before the dice) and its outcome, and the
words their explanations share [BU-4 to BU-7]."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rangefire.core import DiceSource, LogLine, Modifier, Need, Outcome, Plan
from rangefire.core.options import house_note
from rangefire.rulesets.bushido.dice import WOUND_CHART, AttackRoll
from rangefire.rulesets.bushido.scenario import CHART_ROLLS, CHART_SLS, Options
from rangefire.rulesets.bushido.table import Nominee


def count(n: int, one: str, many: str) -> str:
    """``1 die``, ``2 dice``, ``0 dice``: a number with its noun in the right number."""
    return f"{n} {one if n == 1 else many}"


def dice_noun(pool: str, delta: int) -> str:
    """The pool a modifier changes, in the number its size asks for: ``+1 attack die``, ``+2 attack dice``."""
    return f"{pool} {'die' if abs(delta) == 1 else 'dice'}"


#: The rules' values of every option: an explanation names a house rule beside them.
RULES = Options()


def inches(value: Fraction) -> str:
    return f"{float(value):g} in"


def ruled(shown: str, rules: str) -> str:
    """`` (house rule; the rules say 1 in)`` after a value a house rule sets, nothing after the rules' value."""
    return "" if shown == rules else f" {house_note(shown, rules)}"


def modifier(clause: str, pool: str, delta: int, rules: int, reason: str, cite: str = "") -> Modifier:
    """A modifier in dice [BU-5.5], with the house rule named where the battle's value is not the rules'."""
    return Modifier(clause, delta, f"{dice_noun(pool, delta)}: {reason}{ruled(f'{delta:+d}', f'{rules:+d}')}{cite}")


def chart_changes(chart: tuple[tuple[int, ...], ...]) -> list[str]:
    """The wound chart's entries a house rule changes: ``roll 6 at SL 2 gives 9 (the rules say 4)`` [BU-7.2]."""
    return [f"roll {roll} at SL {sl} gives {chart[roll - 1][sl]} (the rules say {WOUND_CHART[roll - 1][sl]})"
            for roll in CHART_ROLLS for sl in CHART_SLS if chart[roll - 1][sl] != WOUND_CHART[roll - 1][sl]]


@dataclass(frozen=True)
class BushidoOutcome(Outcome):
    """What a ranged attack came to: whether it hit and at what SL [BU-6.3], the wounds rolled [BU-7.2];
    ``removed`` only where it hit [BU-7.3], ``fails`` only where it failed before any roll [BU-4.3]."""

    hit: bool
    success_level: int
    wounds: int
    removed: bool | None = None
    fails: bool | None = None


@dataclass(frozen=True)
class BushidoPlan(Plan):
    """Everything decided before the dice of a ranged attack are rolled."""

    declared_target: str = ""
    redirected: bool = False
    nominees: tuple[Nominee, ...] = ()
    weapon: str = ""
    distance: float = 0.0
    band: str | None = None
    line_of_sight: Mapping[str, Any] = field(default_factory=dict)
    in_cover: bool = False
    cover_by: tuple[str, ...] = ()
    rcp: int = 0
    attack_pool: int = 0
    defense_pool: int = 0
    attack_dice: int = 0
    defense_dice: int = 0
    supporting_dice_cap: int | None = None
    wound_modifier: int = 0
    armour: int = 0
    armour_piercing: bool = False
    ammo_before: int | None = None
    target_wounds_left: int = 0
    #: The battle's options: the wound chart and the tie rule the dice are judged by [BU-6.3, BU-7.2].
    options: Options = field(default=RULES, repr=False)
    #: Plans for each model the defender may nominate instead [BU-4.2]; for odds, not part of the data.
    alternatives: tuple[BushidoPlan, ...] = field(default=(), compare=False, repr=False)

    @property
    def fails(self) -> bool:
        """A redirected attack whose new target is beyond long range fails [BU-4.3]."""
        return self.band is None

    @property
    def attack_roll(self) -> AttackRoll:
        """The house rules of the attack dice: failed dice rolled once more, 6s adding dice [BU-6.2]."""
        return AttackRoll(self.options.reroll_failed_attack, self.options.exploding_sixes)

    def house_dice(self) -> str:
        """The house rules of the attack dice in a few words (``1s rolled again, each 6 adds a die (at most 2)``),
        "" under the rules [BU-6.2]."""
        roll = self.attack_roll
        said = ["1s rolled again"] if roll.reroll_failed else []
        if roll.exploding:
            said.append(f"each 6 adds a die (at most {roll.exploding})")
        return ", ".join(said)

    @property
    def wound_roll_modifier(self) -> int:
        """The weapon's wound modifier less the target's armour, unless armour piercing [BU-7.2]."""
        return self.wound_modifier - (0 if self.armour_piercing else self.armour)

    def details(self) -> dict[str, Any]:
        return {
            "declared_target": self.declared_target,
            "redirected": self.redirected,
            "nominees": [{"id": n.id, "crosses": n.crosses} for n in self.nominees],
            "weapon": self.weapon,
            "range": {"inches": round(self.distance, 4), "band": self.band},
            "fails": self.fails,
            "line_of_sight": dict(self.line_of_sight),
            "in_cover": self.in_cover,
            "cover_by": list(self.cover_by),
            "pools": {"attack": self.attack_pool, "defense": self.defense_pool},
            "attack_dice": self.attack_dice,
            "defense_dice": self.defense_dice,
            "supporting_dice_cap": "none" if self.supporting_dice_cap is None else self.supporting_dice_cap,
            "reroll_failed_attack": self.attack_roll.reroll_failed,
            "exploding_sixes": self.attack_roll.exploding,
            "wound_roll_modifier": self.wound_roll_modifier,
            "ammo": None if self.ammo_before is None else {"before": self.ammo_before, "after": self.ammo_before - 1},
            "target_wounds_left": self.target_wounds_left,
        }

    def _cover_text(self) -> str:
        if self.cover_by:
            reach = inches(self.options.cover_reach)
            return (f"{', '.join(self.cover_by)} within {reach}{ruled(reach, inches(RULES.cover_reach))} of "
                    f"{self.target} on every line of sight")
        return f"no line of sight to {self.target} at all"

    def dice_text(self) -> str:
        """``3 attack dice v 3 defense, opposed; wound 1D6 -1``: the opposed test [BU-6.1] and the wound roll [BU-7.2];
        a redirected attack beyond long range rolls nothing [BU-4.3]."""
        if self.fails:
            return "beyond long range: the attack fails"
        house = self.house_dice()
        return (f"{count(self.attack_dice, 'attack die', 'attack dice')} v {self.defense_dice} defense, opposed; "
                f"wound 1D6 {self.wound_roll_modifier:+d}" + (f"; attack {house}" if house else ""))

    def summary(self) -> list[tuple[str, str]]:
        rows = [("weapon", self.weapon)]
        if self.redirected:
            rows.append(("target", f"{self.target}, nominated instead of {self.declared_target} [BU-4.2]"))
        rows.append(("range", f"{self.distance:.2f} in, " + (f"{self.band} band" if self.band else
                                                            "beyond long range: the attack fails [BU-4.3]")))
        rows.append(("line of sight", str(self.line_of_sight.get("verdict", ""))))
        rows.append(("cover", f"in cover: {self._cover_text()} [BU-5.7]" if self.in_cover else "none"))
        if not self.fails:
            house = self.house_dice()
            rows += [("attack dice", str(self.attack_dice) + (f": {house} (house rules) [BU-6.2]" if house else "")),
                     ("defense dice", str(self.defense_dice)),
                     ("wound roll", f"1D6 {self.wound_roll_modifier:+d}")]
            cap = self.supporting_dice_cap
            if cap != RULES.cap:  # the result counts at most this many supporting dice [BU-6.2]
                shown = "no cap" if cap is None else f"at most {count(cap, 'supporting die', 'supporting dice')}"
                rows.append(("supporting dice", f"{shown} {house_note(str(cap), 'none')} [BU-6.2]"))
        if self.ammo_before is not None:
            rows.append(("ammo", f"{self.ammo_before} -> {self.ammo_before - 1} (spent on declaring) [BU-4.1]"))
        if self.nominees and not self.redirected:
            rows.append(("may be nominated", "; ".join(n.describe() for n in self.nominees)))
        return rows


def house_attack_dice(plan: BushidoPlan, source: DiceSource, first: tuple[int, ...]) -> tuple[tuple[int, ...],
                                                                                             list[LogLine]]:
    """The attack dice after the house rules of the dice [BU-6.2], and the lines saying what they did: each die that
    failed (a 1) rolled once more, stage ``attack-reroll`` (the second roll stands); then a die added for each 6,
    stage ``attack-extra``, in rounds (a 6 among the added dice adds another), at most ``exploding_sixes`` in all.
    Under the rules, the dice as rolled and no line."""
    roll = plan.attack_roll
    dice, lines = list(first), []
    if roll.reroll_failed:
        again = [i for i, v in enumerate(dice) if v == 1]
        said = "house rule: an attack die that fails (a 1) is rolled once more (options.reroll_failed_attack; the " \
               "rules roll it once)"
        if again:
            second = source.roll("attack-reroll", len(again), need=Need(
                "the second roll stands (a 1 is discarded)", f"{count(len(again), '1', '1s')} of {plan.attacker}'s "
                                                             f"{' '.join(map(str, first))}"))
            for i, v in zip(again, second, strict=True):
                dice[i] = v
            lines.append(LogLine("BU-6.2", f"{said}: {count(len(again), 'die', 'dice')} rolled again: "
                                           f"{' '.join(map(str, second))}"))
        else:
            lines.append(LogLine("BU-6.2", f"{said}: none failed"))
    if roll.exploding:
        sixes = pending = dice.count(6)
        added: list[int] = []
        while pending and len(added) < roll.exploding:
            more = source.roll("attack-extra", min(pending, roll.exploding - len(added)), need=Need(
                "added attack dice: a 6 adds another", f"{count(pending, 'six', 'sixes')} to add a die for, at most "
                                                       f"{roll.exploding - len(added)} more"))
            added += more
            pending = more.count(6)
        what = (f"{count(sixes, 'six', 'sixes')}: {count(len(added), 'die', 'dice')} added, "
                f"{' '.join(map(str, added))}" if added else "no six: no die added")
        lines.append(LogLine("BU-6.2", f"house rule: each 6 on the attack dice adds a die, an added 6 another, at "
                                       f"most {roll.exploding} (options.exploding_sixes; the rules add none): {what}"))
        dice += added
    return tuple(dice), lines
