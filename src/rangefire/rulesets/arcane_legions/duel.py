"""Arcane Legions in a duel: every battle a ranged order can leave behind, exactly or with its dice rolled.

An order takes damage off the target's figures in casualty order [AL-7.2], spends the firer's side's order
points [AL-5.1] and counts the firer's ranged orders this turn [AL-5.2]; the battle after it is the game's own
``apply`` of the outcome, so what carries over (fewer figures and ready icons, fewer dice next time, order
points run down until a side can no longer pay) carries over here too. The turn's end clears the orders counted
and refills the points where the scenario says so [AL-9.2].
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from typing import TYPE_CHECKING

from rangefire.core import Attack, LimitError, Resolution
from rangefire.core.fingerprint import fingerprint
from rangefire.core.ruleset import NoDuelError
from rangefire.dice.lineup import lineup_scores
from rangefire.rulesets.arcane_legions.orders import MAX_EXACT_DICE, ArcaneOutcome, OrderPlan
from rangefire.rulesets.arcane_legions.scenario import Battle

if TYPE_CHECKING:
    import numpy as np

    from rangefire.rulesets.arcane_legions import ArcaneLegions


def _plan(ruleset: ArcaneLegions, battle: Battle, attack: Attack) -> OrderPlan | None:
    plan = ruleset.check(battle, attack).plan
    if plan is None:
        return None
    assert isinstance(plan, OrderPlan)
    if plan.defender_scores:
        # the damage each way comes from one lineup: a duel would need the two together, which the exact
        # lineup gives one at a time
        raise NoDuelError(f"{plan.target} scores back against {plan.attacker}'s order [AL-6.6]: a duel needs the "
                          "hits both ways together, which is not worked out exactly")
    return plan


def _after(ruleset: ArcaneLegions, battle: Battle, plan: OrderPlan, damage: int) -> Battle:
    """The battle after an order dealing ``damage`` (hits and the critical): ``apply`` reads only the damage
    each way [AL-7.2]; the defender scores nothing in ranged combat [AL-6.6]."""
    outcome = ArcaneOutcome(hits=damage, critical=False, defender_hits=0, lineup_hits=damage)
    return ruleset.apply(battle, Resolution(plan=plan, log=(), dice={}, outcome=outcome))


def exchanges(ruleset: ArcaneLegions, battle: Battle, attack: Attack) -> list[tuple[Fraction, Battle]]:
    """Every battle the order can leave behind with its exact probability, from the exact lineup's damage
    [AL-6.2 to AL-6.5]; a refused order leaves the battle as it is."""
    plan = _plan(ruleset, battle, attack)
    if plan is None:
        return [(Fraction(1), battle)]
    if plan.attack_dice + plan.defense_dice > MAX_EXACT_DICE:
        raise LimitError(f"{plan.attacker} against {plan.target}: {plan.attack_dice} attack and "
                         f"{plan.defense_dice} defense dice, beyond the {MAX_EXACT_DICE} dice in all that the exact "
                         "lineup answers")
    attack_pool, defense_pool = plan.pools()
    # the battle's phantom die and critical [AL-6.2, AL-6.4], as the order's own odds take them
    damage = lineup_scores(attack_pool, defense_pool, plan.phantom, plan.crit_mode, plan.crit_sixes, plan.crit_hits)
    out: dict[Hashable, tuple[Fraction, Battle]] = {}
    for d, p in damage.probabilities().items():
        after = _after(ruleset, battle, plan, d)
        k = fingerprint(after)
        out[k] = (out[k][0] + p, after) if k in out else (p, after)
    return list(out.values())


def sampled_exchanges(ruleset: ArcaneLegions, battle: Battle, attack: Attack, n: int,
                      rng: np.random.Generator) -> list[tuple[int, Battle]]:
    """``n`` orders with every die rolled, step by step as AL-6 plays them (first rolls, criticals judged on
    them, rerolls, bonuses, sorted highest first, phantom dice, pairs compared), counted by the battle each
    leaves behind; the phantom's value and the critical are the battle's options, as in the exact exchanges."""
    import numpy as np

    from rangefire.rulesets.arcane_legions.sampling import _lined_up, _roll

    plan = _plan(ruleset, battle, attack)
    if plan is None:
        return [(n, battle)]
    width = max(plan.attack_dice, plan.defense_dice)
    a, sixes = _roll(rng, n, plan.attack_dice, plan.reroll_attack_at_most, plan.attack_die_bonus)
    d, _ = _roll(rng, n, plan.defense_dice, plan.reroll_defense_at_most, plan.defense_die_bonus)
    a, d = _lined_up(a, width, plan.phantom), _lined_up(d, width, plan.phantom)
    sets = sixes // plan.crit_sixes if plan.crit_per_three else (sixes >= plan.crit_sixes).astype(np.int64)
    crits = sets * plan.crit_hits  # [AL-6.2]
    damage = ((a > d) & (np.arange(width) < plan.attack_dice)).sum(axis=1) + crits  # [AL-6.5, AL-6.6]
    values, counts = np.unique(damage, return_counts=True)
    out: dict[Hashable, tuple[int, Battle]] = {}
    for v, c in zip(values.tolist(), counts.tolist(), strict=True):
        after = _after(ruleset, battle, plan, int(v))
        k = fingerprint(after)
        out[k] = (out[k][0] + int(c), after) if k in out else (int(c), after)
    return list(out.values())


def left(battle: Battle, uid: str) -> int:
    """Figures left: 0 once the unit is destroyed and gone [AL-7.2]."""
    return next((u.figures for u in battle.units if u.id == uid), 0)


def state_key(battle: Battle) -> Hashable:
    """A key equal for two battles a duel cannot tell apart: the side to act and everything but the turn's
    number, which no order and no end of turn reads [AL-9.1, AL-9.2] (only the side to act is read)."""
    turn = battle.turn
    return (None if turn is None else (turn.side, turn.order)), fingerprint(battle, skip=("turn",))
