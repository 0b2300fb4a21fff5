"""The duel: its exact chain beside its Monte Carlo on one example battle (time, and the largest difference in
probability between the two, which should be of the order of the Monte Carlo's own error)."""

from __future__ import annotations

import math
import time
from typing import Any

from rangefire.analysis.duel import duel, sample_duel
from rangefire.rulesets import battle_from_mapping

SAMPLES = 100_000
TURNS = 4


def example() -> tuple[Any, Any]:
    """Five stands of rifled muskets against five of breechloaders, 9 in apart, the second in light woods."""
    data = {"ruleset": "dress-on-the-colors",
            "terrain": [{"id": "woods", "kind": "light", "polygon": [[-5, 9.5], [5, 9.5], [5, 13], [-5, 13]]}],
            "units": [
                {"id": "F", "side": "blue", "stands": 5, "weapon": "rifled-musket", "formation": "line",
                 "position": [0, 0], "facing": 0},
                {"id": "T", "side": "grey", "stands": 5, "weapon": "breechloader", "formation": "line",
                 "position": [0, 9], "facing": 180}]}
    return battle_from_mapping(data)


def run() -> None:
    ruleset, battle = example()
    start = time.perf_counter()
    exact = duel(ruleset, battle, "F", "T", turns=TURNS)
    t_exact = time.perf_counter() - start
    start = time.perf_counter()
    est = sample_duel(ruleset, battle, "F", "T", turns=TURNS, samples=SAMPLES, seed=1)
    t_mc = time.perf_counter() - start
    gaps = []
    for e, c in ((exact.winner, est.winner), (exact.turns, est.turns), (exact.left["a"], est.left["a"]),
                 (exact.left["b"], est.left["b"])):
        gaps += [abs(float(e.get(k, 0)) - c.get(k, 0) / SAMPLES) for k in set(e) | set(c)]
    error = 1.96 * math.sqrt(0.25 / SAMPLES)  # the widest 95% half-interval of one sampled probability
    print(f"\nduel, Dress on the Colors, 5 stands against 5 in light woods, {TURNS} turns (winner, turns taken, "
          "stands left of each):")
    print(f"  exact chain (Fractions)   {t_exact:8.2f} s   {exact.states} battles visited")
    print(f"  Monte Carlo (numpy)       {t_mc:8.2f} s   {SAMPLES:,} duels, every die rolled")
    print(f"  largest difference in a probability: {max(gaps):.4f} (the Monte Carlo's 95% error is at most "
          f"{error:.4f})")


if __name__ == "__main__":
    run()
