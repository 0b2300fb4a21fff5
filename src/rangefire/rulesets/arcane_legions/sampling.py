"""Arcane Legions orders sampled (numpy, vectorised): the Monte Carlo estimate that ``odds`` gives beyond the
exact lineup's limit (``orders.MAX_EXACT_DICE``).

Each sampled order follows AL-6 step by step: first rolls, criticals judged on them, rerolls, bonuses, both
sides sorted highest first, phantom dice, pairs compared. The numbers the options set (the phantom die, the
critical's 6s and extra hits) come from the plan, as the exact lineup takes them. It shares no code with the exact
lineup, so where both answer they check each other. Every figure it gives is labelled an estimate, with its 95%
interval.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from rangefire.core import LimitError, Odds
from rangefire.dice import Dist
from rangefire.dice.intervals import Z95, wilson

if TYPE_CHECKING:
    from rangefire.rulesets.arcane_legions.orders import OrderPlan

#: Dice held in memory at once per side (rows x dice): bounds memory whatever the pools.
BLOCK_DICE = 1 << 21
MAX_SAMPLES = 10**7


def _roll(rng: np.random.Generator, rows: int, dice: int, reroll_at_most: int, bonus: int,
          ) -> tuple[NDArray[np.int16], NDArray[np.int64]]:
    """Final dice sorted highest first, and the 6s of the first roll [AL-6.2, AL-6.3]."""
    first = rng.integers(1, 7, size=(rows, dice), dtype=np.int16)
    sixes = (first == 6).sum(axis=1, dtype=np.int64)
    final = first
    if reroll_at_most:
        again = rng.integers(1, 7, size=(rows, dice), dtype=np.int16)
        final = np.where(first <= reroll_at_most, again, first)  # once only, dice at or below T [AL-6.3]
    final = final + np.int16(bonus)  # after rerolls; may exceed 6 [AL-6.3]
    return -np.sort(-final, axis=1), sixes


def _lined_up(dice: NDArray[np.int16], width: int, phantom: int) -> NDArray[np.int16]:
    """The sorted dice padded with phantom dice (2s in the rules) to ``width`` [AL-6.4]."""
    rows, count = dice.shape
    out = np.full((rows, width), phantom, dtype=np.int16)
    out[:, :count] = dice
    return out


def sample(plan: OrderPlan, n: int, seed: int) -> dict[str, NDArray[Any]]:
    """``n`` orders of one plan from a seed: damage dealt (hits plus criticals), whether a critical came, and
    the defender's hits where it scores."""
    if not 1 <= n <= MAX_SAMPLES:
        raise LimitError(f"samples must be between 1 and {MAX_SAMPLES}, got {n}")
    rng = np.random.default_rng(seed)
    a_count, d_count = plan.attack_dice, plan.defense_dice
    width = max(a_count, d_count)
    real_a = np.arange(width) < a_count  # a phantom never scores [AL-6.6]
    real_d = np.arange(width) < d_count
    rows = max(1, BLOCK_DICE // max(width, 1))
    parts: dict[str, list[NDArray[Any]]] = {"hits": [], "critical": [], "defender_hits": []}
    for start in range(0, n, rows):
        m = min(rows, n - start)
        attack, sixes = _roll(rng, m, a_count, plan.reroll_attack_at_most, plan.attack_die_bonus)
        defense, _ = _roll(rng, m, d_count, plan.reroll_defense_at_most, plan.defense_die_bonus)
        a, d = _lined_up(attack, width, plan.phantom), _lined_up(defense, width, plan.phantom)
        sets = sixes // plan.crit_sixes if plan.crit_per_three else (sixes >= plan.crit_sixes).astype(np.int64)
        parts["hits"].append(((a > d) & real_a).sum(axis=1, dtype=np.int64) + sets * plan.crit_hits)  # [AL-6.2]
        parts["critical"].append(sets > 0)
        parts["defender_hits"].append(((d > a) & real_d).sum(axis=1, dtype=np.int64))  # [AL-6.6, AL-8.2]
    return {name: np.concatenate(chunks) for name, chunks in parts.items()}


def mean_interval(values: NDArray[np.int64]) -> tuple[float, float, float]:
    """The sample mean and its 95% interval (normal approximation: the samples run to thousands)."""
    mean = float(values.mean())
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, mean - half, mean + half


def _down(x: float) -> float:
    return math.floor(x * 1e6) / 1e6


def _up(x: float) -> float:
    return math.ceil(x * 1e6) / 1e6


def estimate(plan: OrderPlan, n: int, seed: int, why: str) -> Odds:
    """Odds estimated from ``n`` seeded orders: the sampled frequencies as distributions, and in ``estimate``
    the method, sample count, seed, reason and the 95% intervals of each mean and event."""
    drawn = sample(plan, n, seed)
    names = ("hits", "defender_hits") if plan.defender_scores else ("hits",)
    outcomes: dict[str, Dist[int]] = {}
    intervals: dict[str, Any] = {}
    for name in names:
        values, counts = np.unique(drawn[name], return_counts=True)
        outcomes[name] = Dist({int(v): int(c) for v, c in zip(values, counts, strict=True)})
        mean, low, high = mean_interval(drawn[name])
        intervals[name] = {"mean": round(mean, 6), "ci95": [_down(low), _up(high)]}  # rounded outwards
    k = int(drawn["critical"].sum())
    low, high = wilson(k, n)
    detail = {"method": "monte carlo", "samples": n, "seed": seed, "confidence": 0.95, "why": why,
              "outcomes": intervals,
              "events": {"critical": {"estimate": round(k / n, 6), "ci95": [_down(low), _up(high)]}}}
    return Odds(plan=plan, outcomes=outcomes, events={"critical": Fraction(k, n)}, exact=False, estimate=detail)
