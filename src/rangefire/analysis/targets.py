"""Who can shoot whom: every unit of a side checked against every enemy, with the odds of each legal attack.

One row per (attacker, enemy) pair: legal or refused with the clauses, and for a legal pair the dice, what
they need and the mean of the game's main outcome (``Ruleset.main_outcome``). Where the rules choose the
target themselves (``Ruleset.chooses_target``), the row of that target is marked. Odds a game will not
compute (a search beyond its limit) or only estimates are said so in the row, never given as exact.

>>> from rangefire.demo import example_path
>>> from rangefire.rulesets import load_battle
>>> ruleset, battle = load_battle(example_path("wheatfield.yaml"))
>>> rows = targets(ruleset, battle, attacker="15th-alabama")
>>> [(r.target, r.legal, r.chosen) for r in rows]
[('20th-maine', True, True), ('83rd-pennsylvania', False, False), ('battery-d', False, False)]
>>> rows[0].dice, rows[0].outcome, rows[0].mean
('8 dice, natural 5+, saves 4+', 'stands_lost', Fraction(11191, 26244))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rangefire.core import Attack, Check, LimitError, RangefireError, Refusal, Ruleset, UnknownUnitError
from rangefire.core.numbers import with_float

#: At most this many (attacker, enemy) pairs in one table: 50 units against 50. A pair is a whole check and its
#: odds (under a millisecond where a game checks a battle's pairs together, as Bushido does: 40 against 40 in well
#: under a second; some milliseconds in a crowded Dress on the Colors battle, whose every check weighs every enemy:
#: 40 against 40 in about 4 s), so a table of this size answers within seconds. A larger one is refused at once,
#: naming the narrower asks.
MAX_PAIRS = 2500


@dataclass(frozen=True)
class TargetRow:
    """One attacker against one enemy.

    ``mean`` is the mean of ``outcome`` (the game's main outcome); ``exact`` is False when that mean is an
    estimate, which ``estimate`` then describes (null in JSON where there is no mean); ``limit`` holds the
    game's reason when it refuses to compute the odds at all (the pair stays legal). ``chosen`` marks the
    target the rules choose, under the clause ``chosen_by``; ``tied`` the other targets the rules leave to the
    firer on a tie.
    """

    attacker: str
    side: str
    target: str
    target_side: str
    legal: bool
    refusals: tuple[Refusal, ...] = ()
    dice: str = ""
    outcome: str = ""
    mean: Fraction | None = None
    exact: bool = True
    estimate: dict[str, Any] | None = None
    limit: str | None = None
    chosen: bool = False
    chosen_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the mean as an exact fraction string ("4/3"), its float beside it (``mean_float``)."""
        return {
            "attacker": self.attacker, "side": self.side, "target": self.target, "target_side": self.target_side,
            "legal": self.legal, "refusals": [r.to_dict() for r in self.refusals],
            "dice": self.dice or None, "outcome": self.outcome or None,
            **with_float("mean", self.mean),
            "exact": None if self.mean is None else self.exact,  # no mean: neither exact nor estimated
            "estimate": self.estimate, "limit": self.limit, "chosen": self.chosen, "chosen_by": self.chosen_by,
        }


def attackers_of(ruleset: Ruleset[Any, Any], battle: Any, side: str | None = None,
                 attacker: str | None = None) -> list[str]:
    """The attackers a table covers: the one named, else every unit of ``side``, else of the side whose
    turn it is, else every unit. An unknown side or attacker is bad input, named."""
    ids = list(ruleset.unit_ids(battle))
    if attacker is not None:
        if side is not None:
            raise RangefireError("give either a side or an attacker, not both")
        if attacker not in ids:
            raise UnknownUnitError(f"attacker {attacker!r} is not in this battle (units: {', '.join(ids) or 'none'})")
        return [attacker]
    sides = ruleset.sides(battle)
    if side is not None and side not in sides:
        raise RangefireError(f"side {side!r} is not in this battle (sides: {', '.join(sides) or 'none'})")
    side = side if side is not None else ruleset.side_to_act(battle)
    return [uid for uid in ids if side is None or ruleset.side_of(battle, uid) == side]


def targets(ruleset: Ruleset[Any, Any], battle: Any, side: str | None = None,
            attacker: str | None = None) -> list[TargetRow]:
    """Every attacker of the side (see :func:`attackers_of`) against every enemy (``Ruleset.enemies``), in
    file order."""
    attackers = attackers_of(ruleset, battle, side, attacker)
    enemies = {uid: ruleset.enemies(battle, uid) for uid in attackers}
    pairs = sum(len(found) for found in enemies.values())
    if pairs > MAX_PAIRS:
        whose = f"side {side}" if side is not None else "the battle"
        # a side given already is not the way out: one unit's targets are
        narrower = "one unit's targets" if side is not None else "one side or one unit's targets"
        raise LimitError(f"{whose} has {pairs} attacker and enemy pairs; a table checks at most {MAX_PAIRS} "
                         f"within seconds: ask for {narrower}")
    # every pair checked in one ask of the game: a game shares the work of one battle's checks (Bushido screens
    # every pair's sight at once), with the answers of checking each pair alone
    checks = iter(ruleset.check_many(battle, [Attack(uid, enemy) for uid in attackers for enemy in enemies[uid]]))
    rows = []
    for uid in attackers:
        chosen = _chosen(ruleset, battle, uid)
        for enemy in enemies[uid]:
            rows.append(_row(ruleset, battle, uid, enemy, chosen, next(checks)))
    return rows


def _chosen(ruleset: Ruleset[Any, Any], battle: Any, attacker: str) -> tuple[str, ...]:
    """The targets the rules choose for an attack naming none: the one they pick, and any it tied with
    (among which the firer chooses); none where the player names the target or nothing qualifies."""
    if ruleset.chooses_target is None:
        return ()
    plan = ruleset.check(battle, Attack(attacker)).plan
    if plan is None:
        return ()
    # A game that breaks ties by the firer's choice lists them on the plan (Dress on the Colors: DC-2.3).
    tied = tuple(getattr(plan, "tied_targets", ()))
    return (plan.target, *(t for t in tied if t != plan.target))


def _row(ruleset: Ruleset[Any, Any], battle: Any, attacker: str, enemy: str, chosen: tuple[str, ...],
         checked: Check) -> TargetRow:
    base: dict[str, Any] = {"attacker": attacker, "side": ruleset.side_of(battle, attacker), "target": enemy,
                            "target_side": ruleset.side_of(battle, enemy)}
    if checked.plan is None:
        return TargetRow(**base, legal=False, refusals=checked.refusals)
    marked: dict[str, Any] = {"chosen": enemy in chosen,
                              "chosen_by": ruleset.chooses_target if enemy in chosen else None}
    name = ruleset.main_outcome
    try:
        odds = ruleset.odds(checked.plan)
    except LimitError as exc:  # the attack is legal; only its odds are beyond what the game computes
        return TargetRow(**base, legal=True, dice=checked.plan.dice_text(), outcome=name, limit=str(exc), **marked)
    mean = Fraction(odds.outcomes[name].to_dict()["mean"])
    estimate = None
    if not odds.exact and odds.estimate is not None:
        estimate = {k: v for k, v in odds.estimate.items() if k != "outcomes"}
        estimate.update(odds.estimate.get("outcomes", {}).get(name, {}))
    return TargetRow(**base, legal=True, dice=checked.plan.dice_text(), outcome=name, mean=mean, exact=odds.exact,
                     estimate=estimate, **marked)


__all__ = ["MAX_PAIRS", "TargetRow", "attackers_of", "targets"]
