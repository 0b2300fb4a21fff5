"""Independent oracles for the lineup (AL-6): brute-force enumeration of every die, and an icepool
``MultisetEvaluator`` written by hand (icepool's own ``sort_pair`` is avoided: in 2.1 it can answer wrongly
when the left pool is the smaller one)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import icepool
from scipy.stats import chisquare

PHANTOM = 2


def brute_lineup(attack: int, defense: int, *, bonus_a: int = 0, bonus_d: int = 0, reroll_a: int = 0,
                 reroll_d: int = 0, crit: str | None = None, defender: bool = False, phantom: int = PHANTOM,
                 crit_sixes: int = 3, crit_hits: int = 1) -> dict[int, Fraction]:
    """Every first roll and every reroll enumerated; sorted, padded with phantom 2s (or ``phantom``), compared
    pair by pair. ``defender=True`` counts the pairs the defender wins instead (no critical). A critical:
    ``crit_hits`` more for ``crit_sixes`` 6s or more on the first roll (``"one"``) or for each full set of them."""

    def outcomes(threshold: int) -> list[tuple[int, int, int]]:
        out = []
        for first in range(1, 7):
            if first <= threshold:
                out += [(first, final, 1) for final in range(1, 7)]
            else:
                out.append((first, first, 6))
        return out

    counts: Counter[int] = Counter()
    for rolls_a in itertools.product(outcomes(reroll_a), repeat=attack):
        for rolls_d in itertools.product(outcomes(reroll_d), repeat=defense):
            weight = 1
            for *_, w in rolls_a + rolls_d:
                weight *= w
            a = sorted((final + bonus_a for _, final, _ in rolls_a), reverse=True)
            d = sorted((final + bonus_d for _, final, _ in rolls_d), reverse=True)
            n = max(attack, defense)
            a += [phantom] * (n - attack)
            d += [phantom] * (n - defense)
            if defender:
                score = sum(1 for i in range(n) if i < defense and d[i] > a[i])
            else:
                score = sum(1 for i in range(n) if i < attack and a[i] > d[i])
                sixes = sum(1 for first, _, _ in rolls_a if first == 6)
                sets = sixes // crit_sixes if crit == "per-set" else int(sixes >= crit_sixes) if crit == "one" else 0
                score += sets * crit_hits
            counts[score] += weight
    total = sum(counts.values())
    return {k: Fraction(v, total) for k, v in sorted(counts.items())}


class LineupEvaluator(icepool.MultisetEvaluator):  # type: ignore[misc]
    """Walks outcomes from high to low: state (attack dice seen, defense dice seen, hits, sixes)."""

    def __init__(self, top_attack: int | None = None) -> None:
        self.top_attack = top_attack  # the value of an attack 6, for criticals (None: no criticals)

    def initial_state(self, order: Any, outcomes: Any, attack_size: int, defense_size: int, **_: Any) -> Any:
        if order != icepool.Order.Descending:
            raise icepool.UnsupportedOrder()
        return (0, 0, 0, 0, defense_size)

    def next_state(self, state: Any, order: Any, outcome: int, attack: int, defense: int) -> Any:
        if order != icepool.Order.Descending:
            raise icepool.UnsupportedOrder()
        seen_a, seen_d, hits, sixes, size_d = state
        # defense dice at this value lose to attack dice already seen (strictly higher) in the same positions
        hits += max(0, min(seen_d + defense, seen_a) - seen_d)
        # attack dice beyond the last defense die meet phantom 2s
        if outcome > PHANTOM:
            hits += max(0, seen_a + attack - max(seen_a, size_d))
        if outcome == self.top_attack:
            sixes += attack
        return (seen_a + attack, seen_d + defense, hits, sixes, size_d)

    def final_outcome(self, state: Any, order: Any, outcomes: Any, *sizes: Any, **_: Any) -> int:
        return int(state[2] + (state[3] >= 3 if self.top_attack is not None else 0))


def icepool_lineup(attack: int, defense: int, *, bonus_a: int = 0, bonus_d: int = 0, reroll_a: int = 0,
                   reroll_d: int = 0, crit: bool = False) -> dict[int, Fraction]:
    """The lineup's hits by icepool (criticals only without rerolls: icepool sees final faces)."""
    assert not (crit and reroll_a), "a critical is judged on the first roll: not expressible here"
    die_a = icepool.d6.reroll(lambda x: x <= reroll_a, depth=1) if reroll_a else icepool.d6
    die_d = icepool.d6.reroll(lambda x: x <= reroll_d, depth=1) if reroll_d else icepool.d6
    pool_a = (die_a + bonus_a).pool(attack)
    pool_d = (die_d + bonus_d).pool(defense)
    result = LineupEvaluator(6 + bonus_a if crit else None).evaluate(pool_a, pool_d)
    return {k: Fraction(p) for k, p in zip(result.outcomes(), result.probabilities(), strict=True) if p}


def chi_square(observed: Mapping[Any, int], exact: Mapping[Any, Fraction], n: int) -> float:
    """p-value of observed counts against exact probabilities; bins expected below 5 are pooled. The counts
    must sum to ``n`` and never hold an outcome the exact distribution gives no chance of (an impossible
    outcome sampled is a fault, not noise); with a single bin left there is nothing to test (1.0)."""
    seen = {k for k, c in observed.items() if c}
    assert sum(observed.values()) == n, f"{sum(observed.values())} samples counted, {n} drawn"
    assert seen <= {k for k, p in exact.items() if p}, "an impossible outcome was sampled"
    obs, exp, rest_o, rest_e = [], [], 0, 0.0
    for key, p in exact.items():
        e = float(p) * n
        if e < 5:
            rest_o += observed.get(key, 0)
            rest_e += e
        else:
            obs.append(observed.get(key, 0))
            exp.append(e)
    if rest_e:
        obs.append(rest_o)
        exp.append(rest_e)
    if len(obs) < 2:
        return 1.0
    return float(chisquare(obs, exp).pvalue)


def icepool_bushido_side(n: int, cap: int | None) -> icepool.Die:
    """One side of the Bushido opposed test by icepool: every multiset of n d6, scored as BU-6.2 says."""

    def score(dice: tuple[int, ...]) -> tuple[int, int]:
        kept = [d for d in dice if d != 1]
        if not kept:
            return (0, 0)
        support = len(kept) - 1 if cap is None else min(len(kept) - 1, cap)
        return (max(kept) + support, len(kept))

    return icepool.d6.pool(n).expand().map(score)


def icepool_bushido_test(attack: int, defense: int, cap: int | None,
                         contest: Any) -> dict[tuple[bool, int], Fraction]:
    """The opposed test by icepool: both sides' results, combined by ``contest`` (attacker wins?, SL)."""
    test = icepool.map(lambda a, d: contest(tuple(a), tuple(d)), icepool_bushido_side(attack, cap),
                       icepool_bushido_side(defense, cap))
    return {tuple(k): Fraction(w, test.denominator()) for k, w in sorted(test.items())}
