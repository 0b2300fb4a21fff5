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
from rangefire.rulesets.arcane_legions.orders import MAX_EXACT_DICE, ArcaneOutcome, OrderPlan, figures
from rangefire.rulesets.arcane_legions.scenario import Battle, Unit

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


def bounds(ruleset: ArcaneLegions, battle: Battle, attack: Attack) -> tuple[int, int, int]:
    """The most states the target can take while it stands, and the most battles one order at it can leave.

    What the duel can change of a unit: its figures, each point of damage taken by the figures in casualty order
    [AL-7.2] (a push removes the first of them [AL-5.2], as its hit points of damage would), so that its figures
    and hit points follow from the damage it has taken, from none to one short of its last figure in casualty
    order (or every point of those, where a figure the order does not name stands on); its side's order points,
    spent by its orders [AL-5.1] (refilled at the end of its side's turn where the scenario gives points per turn:
    then one value [AL-9.2]); and its orders this turn and push, cleared at the end of its side's turn [AL-9.2],
    which passes before the other unit's order: the marks and points the battle begins with last at most until
    every side's turn has ended once, one order in, and the states of that first round are counted as one more of
    each unit's (the product of the two counts grows by more than they are: the start, and one order's results).
    One order deals as much damage as it has attack dice, each scoring one hit at most [AL-6.5, AL-6.6], and its
    critical hits [AL-6.2]: its ready blue icons and its attack_dice ability at most [AL-5.3].

    The order points are given apart, as the third number (the orders they can pay, plus one): a unit given its
    order gives it once every turn, so that the two units pay theirs together, turn by turn, and the duel's count
    takes the pairs of them that can be (:func:`~rangefire.analysis.duel_work.spent_together`)."""
    if attack.target is None:
        raise ValueError("a duel's attack names its target")
    firer, target = battle.unit(attack.attacker), battle.unit(attack.target)
    options = battle.options
    standing, damage = 1, 0  # never damaged where the other is never given the order
    if _may_order(ruleset, battle, attack):
        falling = figures(target)  # the figures damage reaches, in casualty order [AL-7.2]
        standing = sum(hp for _, hp in falling) + (1 if target.figures > len(falling) else 0)  # one never reached
        dice = firer.ready("blue") + max(0, firer.abilities.attack_dice)
        sixes, extra = options.critical.sixes, options.critical.hits
        damage = dice + extra * (dice // sixes if options.crit_per_three_sixes else int(dice >= sixes))
    player = battle.players.get(target.side)
    cost = _cost(battle, target)
    paid = 1
    if player is not None and player.order_points_per_turn is None and cost and \
            _may_order(ruleset, battle, Attack(target.id, attack.attacker)):
        paid = player.order_points // cost + 1
    return standing + 1, min(damage, standing) + 1, paid


def _cost(battle: Battle, unit: Unit) -> int:
    """The order points an order to the unit costs [AL-5.1]."""
    base: int = getattr(battle.options.cost, unit.base)
    return max(0, base + unit.abilities.order_cost)


def _may_order(ruleset: ArcaneLegions, battle: Battle, attack: Attack) -> bool:
    """Whether the unit may ever be given this ranged order in a duel: checked in its side's turn, with the order
    points its side has now or will have each turn and no order given yet this turn (what the turn's passing
    gives it [AL-9.2]), so that whatever refuses it then refuses it for good: next to an enemy [AL-2.1], no ready
    blue icon (icons are only lost [AL-7.2]) [AL-2.2], no side in range or sight [AL-2.3, AL-3, AL-4], no dice
    where the battle refuses that [AL-5.5], or points that never reach the cost [AL-5.1]."""
    firer = battle.unit(attack.attacker)
    players = dict(battle.players)
    player = players.get(firer.side)
    if player is not None:
        players[firer.side] = player.model_copy(update={"order_points": max(player.order_points,
                                                                           player.order_points_per_turn or 0)})
    units = tuple(u.model_copy(update={"ranged_orders_this_turn": 0, "pushed": False}) if u.id == firer.id else u
                  for u in battle.units)
    turn = None if battle.turn is None else battle.turn.model_copy(update={"side": firer.side})
    probe = battle.model_copy(update={"players": players, "units": units, "turn": turn})
    return ruleset.check(probe, attack).plan is not None
