"""Dress on the Colors in a duel: every battle a volley can leave behind, exactly or with its dice rolled.

A volley changes the target's stands, its micro-hit marker [DC-4.3] and its disorder [DC-5.3], and the firer's
gunsmoke marker and fired mark [DC-7.1, DC-9.1]: the battle after it is the game's own ``apply`` of the outcome,
so whatever carries over to the next volley (fewer stands firing back, a disordered firer's -1, a marker that
needs one more unsaved hit, gunsmoke in the line of fire) carries over here too.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from rangefire.core import Attack, Resolution
from rangefire.core.fingerprint import fingerprint
from rangefire.rulesets.dress_on_the_colors.scenario import Battle
from rangefire.rulesets.dress_on_the_colors.volley import (
    DressOutcome,
    VolleyOutcome,
    VolleyPlan,
    casualties,
    sampled_to_hit,
    volley_distribution,
)

if TYPE_CHECKING:
    import numpy as np

    from rangefire.rulesets.dress_on_the_colors import DressOnTheColors


#: A volley's result as the battle sees it: probability, unsaved hits, suppression, disorder, hits.
_Result = tuple[Fraction, int, bool, bool, int]


@dataclass
class _Planned:
    """A volley checked in one battle: its plan (None where refused) and, made at the first ask of the exact
    chain (the Monte Carlo needs only the plan), the battles it leaves behind in that battle."""

    battle: Battle
    plan: VolleyPlan | None
    afters: list[tuple[Fraction, Battle]] | None = None


#: Volleys already checked in a duel, by the battle's fingerprint without the turn (bounded).
_PLANS: dict[Hashable, _Planned] = {}
MAX_PLANS = 20_000


def _planned(ruleset: DressOnTheColors, battle: Battle, attack: Attack) -> _Planned:
    """The volley checked, kept across the turns of a duel (the turn's number changes nothing in a plan: only
    the side to act does [DC-9.2])."""
    key = (attack, battle.turn.side if battle.turn else None, fingerprint(battle, skip=("turn",)))
    found = _PLANS.get(key)
    if found is not None:
        return found
    plan = ruleset.check(battle, attack).plan
    assert plan is None or isinstance(plan, VolleyPlan)
    if len(_PLANS) >= MAX_PLANS:
        _PLANS.clear()
    made = _PLANS[key] = _Planned(battle, plan)
    return made


#: The results of volleys already worked out, by :func:`results_key` (bounded).
_RESULTS: dict[tuple[int | bool | str | None, ...], list[_Result]] = {}


def results_key(plan: VolleyPlan) -> tuple[int | bool | str | None, ...]:
    """Every number of a plan that its volley's results are worked out from (:func:`volley_distribution` and
    :func:`casualties`): plans equal in these, whatever their geometry and reasons, share their results."""
    return (plan.dice, plan.need, plan.save, plan.discipline_dice, plan.discipline_modifier, plan.discipline_pass,
            plan.target_stands, plan.target_micro_hits, plan.target_disordered, plan.reroll_to_hit,
            plan.sixes_ignore_cover)


def _results(plan: VolleyPlan) -> list[_Result]:
    """The volley's results that leave battles apart. apply reads the target's stands, marker and disorder (a
    disordered target stays so), so outcomes equal in those leave equal battles: their integer weights are summed
    first, one Fraction made for each battle left (the joint outcomes of 60 dice are some 7,000)."""
    key = results_key(plan)
    found = _RESULTS.get(key)
    if found is None:
        if len(_RESULTS) >= MAX_PLANS:
            _RESULTS.clear()
        found = _RESULTS[key] = _worked_out(plan)
    return found


def _worked_out(plan: VolleyPlan) -> list[_Result]:
    dist = volley_distribution(plan)
    merged: dict[tuple[int, int, bool], tuple[int, VolleyOutcome]] = {}
    for o, w in dist.weights().items():
        k = (*casualties(plan.target_stands, plan.target_micro_hits, o.unsaved_hits),
             plan.target_disordered or o.disorder)
        seen = merged.get(k)
        merged[k] = (w, o) if seen is None else (seen[0] + w, seen[1])
    return [(Fraction(w, dist.total), o.unsaved_hits, o.suppression, o.disorder, o.hits)
            for w, o in merged.values()]


def _after(ruleset: DressOnTheColors, battle: Battle, plan: VolleyPlan, unsaved: int, suppression: bool,
           disorder: bool, hits: int) -> Battle:
    """The battle after a volley with these results: the outcome as ``resolve`` would give it, applied by the
    game's ``apply`` (no dice or log: only the outcome is applied)."""
    lost, marker = casualties(plan.target_stands, plan.target_micro_hits, unsaved)  # [DC-4.3]
    left = plan.target_stands - lost
    outcome = DressOutcome(hits=hits, unsaved_hits=unsaved, stands_lost=lost, suppression=suppression,
                           disorder=disorder, target_stands=left, micro_hits=marker, destroyed=left == 0)
    return ruleset.apply(battle, Resolution(plan=plan, log=(), dice={}, outcome=outcome))


def exchanges(ruleset: DressOnTheColors, battle: Battle, attack: Attack) -> list[tuple[Fraction, Battle]]:
    """Every battle the volley can leave behind with its exact probability, from the volley's exact joint
    distribution [DC-8.1] (stands lost together with the marker left and disorder); a refused volley leaves the
    battle as it is."""
    planned = _planned(ruleset, battle, attack)
    plan = planned.plan
    if plan is None:
        return [(Fraction(1), battle)]
    if planned.afters is None:  # each result leaves a battle of its own (its target's stands, marker or disorder)
        planned.afters = [(q, _after(ruleset, planned.battle, plan, unsaved, suppression, disorder, hits))
                          for q, unsaved, suppression, disorder, hits in _results(plan)]
    if battle is planned.battle:
        return list(planned.afters)
    # a battle equal to the one checked but for its turn: apply changes the units alone [DC-4.3, DC-5.3, DC-7.1,
    # DC-9.1], so it leaves the same battles, in its own turn
    return [(q, after.model_copy(update={"turn": battle.turn})) for q, after in planned.afters]


def sampled_volleys(plan: VolleyPlan, n: int, rng: np.random.Generator) -> list[tuple[int, int, bool, int, bool]]:
    """``n`` volleys of a plan with every die rolled in the order of DC-8.1 (to-hit dice, a save behind each hit,
    the discipline check on suppression): (count, unsaved hits, disorder, hits, suppression) of each result."""
    import numpy as np

    hit, sure, suppression = sampled_to_hit(plan, n, rng)  # a house rule's second roll too [DC-3.4, DC-5.1]
    hits = hit.sum(axis=1, dtype=np.int64)
    if plan.save is None:
        unsaved = hits
    else:  # one save die behind each hit [DC-4.1], none behind a house rule's natural 6
        saves = rng.integers(1, 7, size=(n, plan.dice), dtype=np.int8)
        unsaved = (sure | (hit & (saves < plan.save))).sum(axis=1, dtype=np.int64)
    survives = (plan.target_micro_hits + unsaved) // 2 < plan.target_stands  # [DC-4.3]
    check = rng.integers(1, 7, size=(n, plan.discipline_dice), dtype=np.int8).sum(axis=1, dtype=np.int64)
    disorder = suppression & survives & (check + plan.discipline_modifier < plan.discipline_pass)  # [DC-5.2]
    rows, counts = np.unique(np.stack([unsaved, disorder, hits, suppression], axis=1), axis=0, return_counts=True)
    return [(c, u, bool(d), h, bool(s)) for (u, d, h, s), c in zip(rows.tolist(), counts.tolist(), strict=True)]


def sampled_exchanges(ruleset: DressOnTheColors, battle: Battle, attack: Attack, n: int,
                      rng: np.random.Generator) -> list[tuple[int, Battle]]:
    """``n`` volleys with every die rolled (:func:`sampled_volleys`), counted by the battle each leaves behind."""
    plan = _planned(ruleset, battle, attack).plan
    if plan is None:
        return [(n, battle)]
    # apply reads the stands and marker left (from the unsaved hits) and disorder (a disordered target stays so):
    # one apply for each of those, the volleys that leave it counted together
    firsts: dict[tuple[int, int, bool], tuple[int, int, bool, bool, int]] = {}
    for c, u, d, h, s in sampled_volleys(plan, n, rng):
        k = (*casualties(plan.target_stands, plan.target_micro_hits, u), plan.target_disordered or d)
        seen = firsts.get(k)
        firsts[k] = (c, u, s, d, h) if seen is None else (seen[0] + c, *seen[1:])
    return [(c, _after(ruleset, battle, plan, u, s, d, h)) for c, u, s, d, h in firsts.values()]


def bounds(ruleset: DressOnTheColors, battle: Battle, attack: Attack) -> tuple[int, int]:
    """The most states the target can take while it stands, and the most battles one volley at it can leave:
    what a volley changes of it is its stands, its micro-hit marker (0 or 1) and its disorder, once gained never
    lost in a duel [DC-4.3, DC-5.3]; a volley loses it at most one stand for every two unsaved hits, a die each
    at most (one a stand firing, and enfilade's [DC-3.1, DC-6.2]), one more with a marker already on it."""
    if attack.target is None:
        raise ValueError("a duel's attack names its target")
    firer, target = battle.unit(attack.attacker), battle.unit(attack.target)
    options = battle.options
    disorders = 1 if target.disordered else 2
    states = target.stands * 2 * disorders
    dice = firer.stands * options.dice_per_stand + firer.stands // options.enfilade.per_stands * options.enfilade.dice
    lost = min(target.stands, (1 + dice) // 2)
    return states, min(states + 1, (lost + 1) * 2 * disorders)  # each number of stands lost, marker, disorder


def battle_key(battle: Battle) -> Hashable:
    """A key equal for two battles of one duel only where they are equal: its turn and its units (a duel changes
    nothing else: the options, the terrain and the name are those it began with), each by its fingerprint."""
    return fingerprint(battle.turn), tuple([fingerprint(u) for u in battle.units])


def left(battle: Battle, uid: str) -> int:
    """Stands left: 0 once the unit is destroyed and gone from the table [DC-4.3]."""
    return next((u.stands for u in battle.units if u.id == uid), 0)


def state_key(battle: Battle) -> Hashable:
    """A key equal for two battles a duel cannot tell apart: the side to act and everything but the turn's
    number, which no volley and no end of turn reads [DC-9.2, DC-9.3] (only the side to act is read)."""
    turn = battle.turn
    return (None if turn is None else (turn.side, turn.order)), fingerprint(battle, skip=("turn",))


def chain_model(ruleset: DressOnTheColors, battle: Battle) -> Any:
    """The duel's states as plain numbers (:class:`~rangefire.rulesets.dress_on_the_colors.duel_states.States`)."""
    from rangefire.rulesets.dress_on_the_colors.duel_states import States

    return States(ruleset, battle)


def alone(battle: Battle, a: str, b: str) -> Battle:
    """The battle with every unit but ``a`` and ``b`` taken off the table: each then fires at the other where
    the rules allow it (a duel's assumption, not the rules': a third unit closer in the arc is the target the
    rules choose [DC-2.3])."""
    return battle.model_copy(update={"units": tuple(u for u in battle.units if u.id in (a, b))})
