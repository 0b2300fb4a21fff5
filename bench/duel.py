"""The duel: its exact chain beside its Monte Carlo on one example battle (time, and the largest difference in
probability between the two, which should be of the order of the Monte Carlo's own error); and duels too large to
answer exactly, refused from their bounds before any work, beside the chain run until its own limits refuse it."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import rangefire.analysis.duel
from rangefire.analysis.duel import duel, sample_duel
from rangefire.core import LimitError
from rangefire.rulesets import battle_from_mapping, load_battle
from rangefire.scenario.paths import Setting

WHEATFIELD = Path(__file__).resolve().parent.parent / "examples" / "wheatfield.yaml"

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


def cpu_until_answered_or_refused(ruleset: Any, battle: Any, a: str, b: str, turns: int) -> tuple[float, str]:
    """CPU seconds the exact duel takes to answer or be refused, and which it was."""
    start = time.process_time()
    try:
        found = duel(ruleset, battle, a, b, turns)
        said = f"answered, {found.states:,} battles"
    except LimitError as exc:
        said = f"refused ({type(exc).__name__})"
    return time.process_time() - start, said


def refusals() -> None:
    """Duels too large to answer exactly (issue 20): refused from the game's bounds before any volley, beside the
    same chain with no bounds, run until the battles or results it really reaches pass its limits."""
    wheatfield = load_battle(WHEATFIELD)
    sixty = load_battle(WHEATFIELD, [Setting("units.20th-maine.stands", 60),
                                     Setting("units.15th-alabama.stands", 60)])
    cases = (("the Wheatfield's regiments, 200 turns", wheatfield, 200),
             ("the Wheatfield's regiments at 60 stands, 5 turns", sixty, 5))
    print("\nduels too large to answer exactly, 20th-maine against 15th-alabama (CPU time to the refusal):")
    for name, (ruleset, battle), turns in cases:
        ours, said = cpu_until_answered_or_refused(ruleset, battle, "20th-maine", "15th-alabama", turns)
        bounded = rangefire.analysis.duel.estimate_duel
        rangefire.analysis.duel.estimate_duel = lambda *args, **kwargs: None  # the chain with no bounds
        try:
            theirs, reference = cpu_until_answered_or_refused(ruleset, battle, "20th-maine", "15th-alabama", turns)
        finally:
            rangefire.analysis.duel.estimate_duel = bounded
        print(f"  {name}: {ours * 1e3:.2f} ms, {said}; the chain to its own limits {theirs:.2f} s, {reference};"
              f" ratio {theirs / ours:,.0f}x; budget 2 s: {'met' if ours < 2 else 'MISSED'}")
    ruleset, battle = wheatfield
    took, said = cpu_until_answered_or_refused(ruleset, battle, "20th-maine", "15th-alabama", 5)
    print(f"  the Wheatfield's regiments, 5 turns (the command's default): {took:.2f} s, {said}; "
          f"budget 1 s: {'met' if took < 1 else 'MISSED'} (progress shown at a terminal)")


if __name__ == "__main__":
    run()
    refusals()
