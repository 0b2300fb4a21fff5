"""Bushido duels: two models exchange ranged attacks activation by activation, turn by turn, until one is
removed [BU-7.3] or the turn limit. Wounds stay marked, Ammo stays spent [BU-4.1], and ending the turn clears
``aimed``, ``moved``, ``ran``, ``will_move``, ``surprised`` and the attack marks while ``prone`` stays [BU-8.2].

Two ways to the battles one attack can leave behind, kept apart so that each checks the other:

- :func:`exchanges`: exact. The opposed test [BU-6] and the wound roll [BU-7.2] as exact distributions (never
  roll by roll), each outcome applied by the game's own ``apply``; equal battles merged.
- :func:`sampled_exchanges`: every die rolled (numpy, vectorised over the trials that reached the same battle),
  counted by the side results of BU-6.2 and the chart of BU-7.2, then applied the same way.

The duel keeps the declared target: nominating another model [BU-4.2] is a choice the target's player may make,
and a duel is between the two models named.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, TypeVar

from rangefire.core import Attack, Resolution
from rangefire.core.fingerprint import fingerprint
from rangefire.dice import Dist
from rangefire.rulesets.bushido import Bushido, BushidoOutcome, BushidoPlan
from rangefire.rulesets.bushido.dice import (
    MAX_CHART_SL,
    RULES_ROLL,
    WOUND_CHART,
    AttackRoll,
    Chart,
    opposed_dist,
    sampled_attack,
    wound_dist,
    wounds_for,
)
from rangefire.rulesets.bushido.scenario import Battle, Unit

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

W = TypeVar("W", Fraction, int)
#: Plans already made in a duel, by the attack and the battle's key without the turn number, with the battle
#: they were made for (kept, so that no identity in a key is reused while it is here; bounded).
_PLANS: dict[Hashable, tuple[Battle, BushidoPlan | None]] = {}
MAX_PLANS = 20_000


def battle_key(battle: Battle, skip: tuple[str, ...] = ()) -> Hashable:
    """A key equal for two battles only where they are equal, cheap to hash (:func:`fingerprint`: coordinates
    by identity, shared by the battles a duel copies from one another), with each model's states by value: ending
    the turn builds them anew [BU-8.2], and battles equal but for that are merged."""
    return fingerprint(battle, skip=("units", *skip)), tuple(_unit_key(u) for u in battle.units)


#: Each model's key by its identity, the model kept beside it (a copied battle keeps most of its models; bounded).
_UNITS: dict[int, tuple[Unit, Hashable]] = {}


def _unit_key(unit: Unit) -> Hashable:
    found = _UNITS.get(id(unit))
    if found is not None and found[0] is unit:
        return found[1]
    key = (fingerprint(unit, skip=("states",)), unit.states)
    if len(_UNITS) >= MAX_PLANS:
        _UNITS.clear()
    _UNITS[id(unit)] = (unit, key)
    return key


def plan_of(rules: Bushido, battle: Battle, attack: Attack) -> BushidoPlan | None:
    """The attack's plan, None where it is refused; kept across the turns of a duel (nothing in a plan reads the
    turn's number: the states it clears [BU-8.2] are in the key)."""
    key = (attack, battle_key(battle, skip=("turn",)))
    found = _PLANS.get(key)
    if found is not None:
        return found[1]
    plan = rules.check(battle, attack).plan
    assert plan is None or isinstance(plan, BushidoPlan)
    if len(_PLANS) >= MAX_PLANS:
        _PLANS.clear()
    _PLANS[key] = (battle, plan)
    return plan


def merge(branches: Iterable[tuple[W, Battle]]) -> list[tuple[W, Battle]]:
    """Equal battles merged (by :func:`battle_key`), their weights added, in the order each first came."""
    out: dict[Hashable, tuple[W, Battle]] = {}
    for weight, battle in branches:
        key = battle_key(battle)
        out[key] = (out[key][0] + weight, out[key][1]) if key in out else (weight, battle)
    return list(out.values())


# -- one attack, exactly --------------------------------------------------------------------------------------
def outcome_dist(plan: BushidoPlan) -> Dist[BushidoOutcome]:
    """The exact distribution of what a planned attack comes to (see :func:`attack_outcomes`); a redirection
    beyond long range fails before any roll [BU-4.3]."""
    if plan.fails:
        return Dist.constant(BushidoOutcome(hit=False, success_level=0, wounds=0, fails=True))
    return attack_outcomes(plan.attack_dice, plan.defense_dice, plan.supporting_dice_cap, plan.wound_roll_modifier,
                           plan.target_wounds_left, plan.options.chart, plan.options.attacker_wins_ties,
                           plan.attack_roll)


@lru_cache(maxsize=4096)
def attack_outcomes(attack_dice: int, defense_dice: int, cap: int | None, modifier: int, left: int,
                    chart: Chart = WOUND_CHART, attacker_wins_ties: bool = True,
                    roll: AttackRoll = RULES_ROLL) -> Dist[BushidoOutcome]:
    """The opposed test, equal results and dice going as ``attacker_wins_ties`` says [BU-6.1 to BU-6.4], then on a
    hit the wound roll (1D6 + ``modifier``) on ``chart`` (the battle's) at the SL [BU-7.2]; ``removed`` where the
    wounds fill the ``left`` boxes [BU-7.3]. Kept: a duel meets the same dice again and again."""
    miss = BushidoOutcome(hit=False, success_level=0, wounds=0)
    rolls = wound_dist(modifier)

    def after(test: tuple[bool, int]) -> Dist[BushidoOutcome]:
        hit, sl = test
        if not hit:
            return Dist.constant(miss)
        return rolls.map(lambda roll: _hit(sl, wounds_for(roll, sl, chart), left))

    return opposed_dist(attack_dice, defense_dice, cap, attacker_wins_ties, roll).bind(after)  # house rules too


def _hit(sl: int, wounds: int, left: int) -> BushidoOutcome:
    return BushidoOutcome(hit=True, success_level=sl, wounds=wounds, removed=wounds >= left)


def exchanges(rules: Bushido, battle: Battle, attack: Attack) -> list[tuple[Fraction, Battle]]:
    """Every battle this attack can leave behind, with its exact probability; equal battles merged; the
    probabilities sum to 1. A refused attack (out of Ammo [BU-3.5], out of range [BU-3.4], no sight [BU-3.2],
    in a zone of control [BU-3.3], a second attack this turn [BU-8.1]...) leaves the battle as it is."""
    plan = plan_of(rules, battle, attack)
    if plan is None:
        return [(Fraction(1), battle)]
    if plan.fails:
        return applied(rules, battle, plan, [(Fraction(1), outcome_dist(plan).outcomes()[0])])
    return applied(rules, battle, plan, _weighted(plan.attack_dice, plan.defense_dice, plan.supporting_dice_cap,
                                                  plan.wound_roll_modifier, plan.target_wounds_left,
                                                  plan.options.chart, plan.options.attacker_wins_ties,
                                                  plan.attack_roll))


@lru_cache(maxsize=4096)
def _weighted(attack_dice: int, defense_dice: int, cap: int | None, modifier: int, left: int, chart: Chart,
              attacker_wins_ties: bool, roll: AttackRoll = RULES_ROLL) -> tuple[tuple[Fraction, BushidoOutcome], ...]:
    """:func:`attack_outcomes` as (probability, outcome) pairs."""
    dist = attack_outcomes(attack_dice, defense_dice, cap, modifier, left, chart, attacker_wins_ties, roll)
    return tuple((p, outcome) for outcome, p in dist.probabilities().items())


def applied(rules: Bushido, battle: Battle, plan: BushidoPlan,
            outcomes: Iterable[tuple[W, BushidoOutcome]]) -> list[tuple[W, Battle]]:
    """The battles the outcomes leave behind by the game's own ``apply``, with their weights; equal battles
    merged. What an outcome changes is the boxes it marks (wounds beyond the track fill it, and the model is
    removed [BU-7.3]), with the Ammo spent and the attack mark, the same whatever it is [BU-4.1, BU-8.1]: so each
    number of boxes marked is applied once, for one of its outcomes (many SLs give the same wounds)."""
    groups: dict[int, tuple[W, BushidoOutcome]] = {}
    for weight, outcome in outcomes:
        marks = min(outcome.wounds, plan.target_wounds_left)
        groups[marks] = (groups[marks][0] + weight, groups[marks][1]) if marks in groups else (weight, outcome)
    return merge((weight, rules.apply(battle, Resolution(plan, (), {}, outcome)))
                 for weight, outcome in groups.values())


# -- one attack, every die rolled -----------------------------------------------------------------------------
def _side_results(dice: NDArray[np.int64], cap: int | None) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Each row's result and remaining dice [BU-6.2]: 1s discarded, the highest plus 1 for each other remaining
    die (at most ``cap``), 0 when every die is a 1."""
    import numpy as np

    kept = dice != 1
    count = kept.sum(axis=1)
    highest = np.where(kept, dice, 0).max(axis=1)
    support = np.maximum(count - 1, 0)
    if cap is not None:
        support = np.minimum(support, cap)
    return np.where(count > 0, highest + support, 0), count


def sample_outcomes(plan: BushidoPlan, n: int, rng: np.random.Generator,
                    ) -> tuple[NDArray[np.bool_], NDArray[np.int64], NDArray[np.int64]]:
    """``n`` attacks of one plan, every die rolled: whether each hit, its SL and the wounds rolled (0 on a miss)
    [BU-6, BU-7.2]."""
    import numpy as np

    if plan.fails:
        zeros = np.zeros(n, dtype=np.int64)
        return np.zeros(n, dtype=np.bool_), zeros, zeros
    attack = sampled_attack(n, plan.attack_dice, plan.attack_roll, rng)  # both roll at once [BU-6.1]; house rules
    defense = rng.integers(1, 7, size=(n, plan.defense_dice), dtype=np.int64)
    (ra, ka), (rd, kd) = _side_results(attack, plan.supporting_dice_cap), _side_results(defense,
                                                                                        plan.supporting_dice_cap)
    # the higher result wins; equal results go to more remaining dice, then to the attacker (or the defender, as
    # the battle's tie rule says); 0 never wins [BU-6.3]
    more = (ka >= kd) if plan.options.attacker_wins_ties else (ka > kd)
    hit = (ra > rd) | ((ra == rd) & (ra > 0) & more)
    sl = np.where(hit, ra - rd, 0)
    die = rng.integers(1, 7, size=n, dtype=np.int64)
    roll = np.clip(die + plan.wound_roll_modifier, 1, 10)
    chart = np.array(plan.options.chart, dtype=np.int64)  # the battle's wound chart [BU-7.2]
    wounds = np.where(hit, chart[roll - 1, np.minimum(sl, MAX_CHART_SL)], 0)
    return hit, sl, wounds


def sampled_exchanges(rules: Bushido, battle: Battle, attack: Attack, n: int, rng: np.random.Generator,
                     ) -> list[tuple[int, Battle]]:
    """``n`` trials of this attack, every die rolled: the battles they leave behind with how many trials left
    each (summing to ``n``); equal battles merged. A refused attack leaves all ``n`` where they were."""
    import numpy as np

    plan = plan_of(rules, battle, attack)
    if plan is None or n == 0:
        return [(n, battle)]
    hit, sl, wounds = sample_outcomes(plan, n, rng)
    # trials are told apart by the boxes they mark (see applied): one trial of each number stands for its outcome
    _, first, counts = np.unique(np.minimum(wounds, plan.target_wounds_left), return_index=True, return_counts=True)
    outcomes = []
    for i, count in zip(first.tolist(), counts.tolist(), strict=True):
        if hit[i]:
            outcomes.append((count, _hit(int(sl[i]), int(wounds[i]), plan.target_wounds_left)))
        else:
            outcomes.append((count, BushidoOutcome(hit=False, success_level=0, wounds=0,
                                                   fails=True if plan.fails else None)))
    return applied(rules, battle, plan, outcomes)


# -- the turn [BU-8] ------------------------------------------------------------------------------------------
def left(battle: Battle, uid: str) -> int:
    """What is left of a model: its wound boxes not yet marked, 0 once every box is marked and it is removed
    [BU-7.3]."""
    return next((u.wounds.left for u in battle.units if u.id == uid), 0)


def begin(rules: Bushido, battle: Battle, uid: str) -> Battle:
    """The battle as a duel begins with ``uid`` to shoot: its side's activation [BU-3.1]. A battle recording no
    active side is taken to be at that side's activation; one recording another side's has the activation
    passed on to it (:func:`pass_to`)."""
    side = battle.unit(uid).side
    if battle.active_side is None:
        return battle.model_copy(update={"active_side": side})
    return pass_to(rules, battle, uid)


def pass_to(rules: Bushido, battle: Battle, uid: str) -> Battle:
    """The battle with the activation passed on until ``uid``'s side is active: each side's activation ends in
    turn, passing ``active_side`` to the next side in the order of the sides [BU-8.2, BU-8.4]; when it passes
    from the last side back to the first, every side has had its activation and the turn ends too [BU-8.2]:
    ``aimed``, ``moved``, ``ran``, ``will_move``, ``surprised`` and the attack marks [BU-8.1] are cleared,
    ``prone`` and wounds stay, the turn number grows by one."""
    side = battle.unit(uid).side
    for _ in range(len(rules.sides(battle))):
        if battle.active_side == side:
            return battle
        _following, new_turn, _passed = rules.following_side(battle, battle.active_side)
        battle = rules.end_activation(battle)[0]
        if new_turn:
            battle = rules.end_turn(battle)[0]
    if battle.active_side != side:
        raise AssertionError(f"the activation never passes to {side}")
    return battle


# -- the duel's work, bounded before it is done -----------------------------------------------------------------
def bounds(rules: Bushido, battle: Battle, attack: Attack) -> tuple[int, int, int]:
    """The most states the target can take while it stands, and the most battles one attack at it can leave.

    What the duel can change of a model: its marked boxes, from those marked now to one short of the track
    [BU-7.3]; its Ammo, one marker spent with each attack it declares, down to 0 [BU-4.1, BU-3.5]; and the
    turn's marks [BU-8.1, BU-8.2]. In a turn a model attacks once, so that its attack mark says whether it has
    attacked yet this turn, which its place in the order of fire says, unless it could not (no Ammo left: then it
    has none, one more of its states), and ending the turn clears the mark and ``aimed``, ``moved``, ``ran``,
    ``will_move`` and ``surprised``: the marks and states the battle begins with last at most until the first
    turn ends, one attack in, and the states of that first turn are counted as one more of each model's (the
    product of the two counts grows by more than the first turn's states: the start, and one attack's results).
    One attack marks as many boxes as the wound chart gives, at most every box left [BU-7.2, BU-7.3]: the
    distinct entries of the battle's chart, 0 for a miss [BU-6.4].

    The Ammo is given apart, as the third number (its values, Ammo + 1): a model that may attack attacks once
    every turn, so that the two models spend theirs together, turn by turn, and the duel's count takes the pairs
    of them that can be (:func:`~rangefire.analysis.duel_work.spent_together`), not every pair."""
    if attack.target is None:
        raise ValueError("a duel's attack names its target")
    target = battle.unit(attack.target)
    if not _may_attack(rules, battle, attack):
        left, marks = 1, {0}  # never marked: the other never attacks it
    else:
        left = target.wounds.left
        marks = {0, *(min(wounds, left) for row in battle.options.chart for wounds in row)}
    weapon = target.weapon
    spends = weapon is not None and weapon.ammo is not None and _may_attack(rules, battle, Attack(target.id,
                                                                                                    attack.attacker))
    ammo = weapon.ammo + 1 if spends and weapon is not None and weapon.ammo is not None else 1
    return left + 1, len(marks), ammo


def _may_attack(rules: Bushido, battle: Battle, attack: Attack) -> bool:
    """Whether the model may ever make this attack in a duel: checked at its side's activation with its attack
    mark cleared (what the turn's passing gives it [BU-8.2, BU-8.3]), so that whatever refuses it then refuses it
    for good: no RCP or weapon, no sight, a zone of control, beyond long range [BU-3.1 to BU-3.4], or no Ammo
    left, which is never given back [BU-3.5]."""
    firer = battle.unit(attack.attacker)
    units = tuple(u.model_copy(update={"attacked": False}) if u.id == firer.id else u for u in battle.units)
    probe = battle.model_copy(update={"active_side": firer.side, "units": units})
    return rules.check(probe, attack).plan is not None


__all__ = ["applied", "attack_outcomes", "battle_key", "begin", "bounds", "exchanges", "left", "outcome_dist",
           "pass_to", "plan_of", "sample_outcomes", "sampled_exchanges", "state_key"]


def state_key(battle: Battle) -> Hashable:
    """A key equal for two battles a duel cannot tell apart: everything but the turn's number, which no attack and
    no end of an activation or a turn reads [BU-8.2] (the side active is ``active_side``, kept)."""
    order = None if battle.turn is None else battle.turn.order
    return battle.turn is None, order, battle_key(battle, skip=("turn",))
