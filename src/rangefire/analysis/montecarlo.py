"""Vectorised Monte Carlo of Dress on the Colors volleys (numpy), for estimates and for checking exact odds.

A sampled figure is an *estimate*: results carry ``exact = False`` and a 95% confidence interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rangefire.core import LimitError
from rangefire.dice.intervals import wilson
from rangefire.rulesets.dress_on_the_colors.volley import VolleyPlan, sampled_to_hit

#: Volleys sampled per block: bounds memory whatever the number asked for.
BLOCK = 1 << 18
MAX_SAMPLES = 10**9


@dataclass(frozen=True)
class VolleySamples:
    """Per-volley arrays: hits, unsaved_hits, stands_lost (ints) and suppression, disorder (bools)."""

    hits: NDArray[np.int64]
    unsaved_hits: NDArray[np.int64]
    stands_lost: NDArray[np.int64]
    suppression: NDArray[np.bool_]
    disorder: NDArray[np.bool_]


def sample_block(plan: VolleyPlan, n: int, rng: np.random.Generator) -> VolleySamples:
    """``n`` volleys of one plan, every die rolled, in the order of DC-8.1."""
    dice = plan.dice
    hit, sure, suppression = sampled_to_hit(plan, n, rng)  # a house rule's second roll too [DC-3.4, DC-5.1]
    hits = hit.sum(axis=1, dtype=np.int64)
    if plan.save is None:
        unsaved = hits
    else:
        saves = rng.integers(1, 7, size=(n, dice), dtype=np.int8)  # one save die behind each hit [DC-4.1]
        unsaved = (sure | (hit & (saves < plan.save))).sum(axis=1, dtype=np.int64)  # a house rule's 6s unsaved
    kills = (plan.target_micro_hits + unsaved) // 2  # [DC-4.3]
    lost = np.minimum(kills, plan.target_stands)
    survives = kills < plan.target_stands
    check = rng.integers(1, 7, size=(n, plan.discipline_dice), dtype=np.int8).sum(axis=1, dtype=np.int64)
    fails = check + plan.discipline_modifier < plan.discipline_pass  # [DC-5.2]
    return VolleySamples(hits, unsaved, lost, suppression, suppression & survives & fails)


def sample_volleys(plan: VolleyPlan, n: int, seed: int) -> VolleySamples:
    """``n`` sampled volleys from a seed (reproducible), in blocks of :data:`BLOCK`."""
    if not 1 <= n <= MAX_SAMPLES:
        raise LimitError(f"samples must be between 1 and {MAX_SAMPLES}, got {n}")
    rng = np.random.default_rng(seed)
    parts = [sample_block(plan, min(BLOCK, n - start), rng) for start in range(0, n, BLOCK)]
    return VolleySamples(*(np.concatenate([getattr(p, f) for p in parts]) for f in
                           ("hits", "unsaved_hits", "stands_lost", "suppression", "disorder")))


def estimate(plan: VolleyPlan, n: int, seed: int) -> dict[str, Any]:
    """Estimated distributions and event probabilities, each labelled an estimate with its interval."""
    s = sample_volleys(plan, n, seed)
    outcomes = {}
    for name in ("hits", "unsaved_hits", "stands_lost"):
        values, counts = np.unique(getattr(s, name), return_counts=True)
        outcomes[name] = {str(int(v)): int(c) / n for v, c in zip(values, counts, strict=True)}
    events = {}
    for name in ("suppression", "disorder"):
        k = int(getattr(s, name).sum())
        low, high = wilson(k, n)
        events[name] = {"estimate": k / n, "ci95": [low, high]}
    return {"exact": False, "samples": n, "seed": seed, "outcomes": outcomes, "events": events}
