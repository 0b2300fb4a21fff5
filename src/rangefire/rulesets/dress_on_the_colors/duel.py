"""Dress on the Colors in a duel: every battle a volley can leave behind, exactly or with its dice rolled.

A volley changes the target's stands, its micro-hit marker [DC-4.3] and its disorder [DC-5.3], and the firer's
gunsmoke marker and fired mark [DC-7.1, DC-9.1]: the battle after it is the game's own ``apply`` of the outcome,
so whatever carries over to the next volley (fewer stands firing back, a disordered firer's -1, a marker that
needs one more unsaved hit, gunsmoke in the line of fire) carries over here too.
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from typing import TYPE_CHECKING

from rangefire.core import Attack, Resolution
from rangefire.core.fingerprint import fingerprint
from rangefire.rulesets.dress_on_the_colors.scenario import Battle
from rangefire.rulesets.dress_on_the_colors.volley import DressOutcome, VolleyPlan, casualties, volley_distribution

if TYPE_CHECKING:
    import numpy as np

    from rangefire.rulesets.dress_on_the_colors import DressOnTheColors


#: A volley's result as the battle sees it: probability, unsaved hits, suppression, disorder, hits.
_Result = tuple[Fraction, int, bool, bool, int]
#: Plans already made in a duel, by the battle's fingerprint without the turn number (bounded).
_PLANS: dict[Hashable, tuple[Battle, VolleyPlan, list[_Result]]] = {}
MAX_PLANS = 20_000


def _plan(ruleset: DressOnTheColors, battle: Battle, attack: Attack) -> tuple[VolleyPlan, list[_Result]] | None:
    """The volley's plan and its results that change the battle, None where it is refused; kept across the
    turns of a duel (the turn's number changes nothing in a plan: only the side to act does [DC-9.2])."""
    key = (attack, battle.turn.side if battle.turn else None, fingerprint(battle, skip=("turn",)))
    found = _PLANS.get(key)
    if found is not None:
        return found[1], found[2]
    plan = ruleset.check(battle, attack).plan
    if plan is None:
        return None
    assert isinstance(plan, VolleyPlan)
    # apply reads the target's stands, marker and disorder, so outcomes equal in those are applied once
    merged: dict[tuple[int, int, bool], _Result] = {}
    for o, p in volley_distribution(plan).probabilities().items():
        k = (*casualties(plan.target_stands, plan.target_micro_hits, o.unsaved_hits), o.disorder)
        q = merged[k][0] if k in merged else Fraction(0)
        merged[k] = (q + p, o.unsaved_hits, o.suppression, o.disorder, o.hits)
    if len(_PLANS) >= MAX_PLANS:
        _PLANS.clear()
    _PLANS[key] = (battle, plan, list(merged.values()))
    return plan, list(merged.values())


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
    planned = _plan(ruleset, battle, attack)
    if planned is None:
        return [(Fraction(1), battle)]
    plan, results = planned
    out: dict[Hashable, tuple[Fraction, Battle]] = {}
    for q, unsaved, suppression, disorder, hits in results:
        after = _after(ruleset, battle, plan, unsaved, suppression, disorder, hits)
        k = fingerprint(after)
        out[k] = (out[k][0] + q, after) if k in out else (q, after)
    return list(out.values())


def sampled_exchanges(ruleset: DressOnTheColors, battle: Battle, attack: Attack, n: int,
                      rng: np.random.Generator) -> list[tuple[int, Battle]]:
    """``n`` volleys with every die rolled in the order of DC-8.1 (to-hit dice, a save behind each hit, the
    discipline check on suppression), counted by the battle each leaves behind."""
    import numpy as np

    planned = _plan(ruleset, battle, attack)
    if planned is None:
        return [(n, battle)]
    plan = planned[0]
    roll = rng.integers(1, 7, size=(n, plan.dice), dtype=np.int8)
    hit = roll >= plan.need  # need >= 2: a natural 1 never hits; above 6 nothing hits [DC-3.4]
    hits = hit.sum(axis=1, dtype=np.int64)
    suppression = (roll == 6).any(axis=1)  # [DC-5.1]
    if plan.save is None:
        unsaved = hits
    else:  # one save die behind each hit [DC-4.1]
        saves = rng.integers(1, 7, size=(n, plan.dice), dtype=np.int8)
        unsaved = (hit & (saves < plan.save)).sum(axis=1, dtype=np.int64)
    survives = (plan.target_micro_hits + unsaved) // 2 < plan.target_stands  # [DC-4.3]
    check = rng.integers(1, 7, size=(n, plan.discipline_dice), dtype=np.int8).sum(axis=1, dtype=np.int64)
    disorder = suppression & survives & (check + plan.discipline_modifier < plan.discipline_pass)  # [DC-5.2]
    # apply reads the stands and marker left (from the unsaved hits) and disorder: one apply for each of those
    rows, counts = np.unique(np.stack([unsaved, disorder, hits, suppression], axis=1), axis=0, return_counts=True)
    firsts: dict[tuple[int, bool], tuple[int, int, bool]] = {}
    for (u, d, h, s), c in zip(rows.tolist(), counts.tolist(), strict=True):
        seen = firsts.get((u, bool(d)))
        firsts[(u, bool(d))] = (h, c, bool(s)) if seen is None else (seen[0], seen[1] + c, seen[2])
    out: dict[Hashable, tuple[int, Battle]] = {}
    for (u, d), (h, c, s) in firsts.items():
        after = _after(ruleset, battle, plan, int(u), s, d, int(h))
        k = fingerprint(after)
        out[k] = (out[k][0] + int(c), after) if k in out else (int(c), after)
    return list(out.values())


def left(battle: Battle, uid: str) -> int:
    """Stands left: 0 once the unit is destroyed and gone from the table [DC-4.3]."""
    return next((u.stands for u in battle.units if u.id == uid), 0)
