"""The Monte Carlo duel: the same turns as the exact chain, every attack played with its dice rolled.

Every attack is the game's :meth:`~rangefire.core.Ruleset.sampled_exchanges` (vectorised with numpy: the duels in
equal battles are rolled together), every passing of the turn its ``duel_pass``; a game whose duel has states of
its own (``chain_model``) with a ``sample`` plays them instead, its dice rolled the same way (Dress on the Colors:
quicker than whole battles). It never reads the exact transitions, so the two agreeing checks both. A duel is
played until one unit is destroyed, or until the turn limit (to the end: at most
:data:`~rangefire.analysis.duel.MAX_TURNS` turns, the duels still undecided then counted as such). Each
probability comes with its 95% interval (Wilson's score interval).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rangefire.core import Attack, Ruleset

#: How many duels of one battle are rolled at once (bounding memory).
BLOCK = 1 << 16
#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson(count: int, n: int) -> tuple[float, float]:
    """The 95% score interval of a probability seen ``count`` times in ``n`` (Wilson's): never outside [0, 1],
    and not empty where nothing was seen.

    >>> [round(x, 4) for x in wilson(0, 100)], [round(x, 4) for x in wilson(50, 100)]
    ([0.0, 0.037], [0.4038, 0.5962])
    """
    p = count / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _quantile(counts: Mapping[int, int], share: float) -> int | None:
    total = sum(counts.values())
    running = 0
    for t in sorted(counts):
        running += counts[t]
        if running >= share * total:
            return t
    return None


@dataclass(frozen=True)
class DuelEstimate:
    """A sampled duel: counts out of ``samples`` (estimates) of the winner, of the turn of the end, of what is left
    of each unit, and of the turn of each end (``ends``: by winner)."""

    ruleset: str
    a: str
    b: str
    turn_limit: int | None
    left_name: str
    samples: int
    seed: int
    winner: Mapping[str, int]
    turns: Mapping[int, int]
    left: Mapping[str, Mapping[int, int]]
    ends: Mapping[str, Mapping[int, int]] = field(default_factory=dict)
    first: str = "a"
    third_unit: str | None = None
    exact: bool = False

    def share(self, counts: Mapping[Any, int]) -> dict[Any, float]:
        return {k: v / self.samples for k, v in counts.items()}

    def interval(self, count: int) -> tuple[float, float]:
        return wilson(count, self.samples)

    def end_turns(self, winner: str) -> dict[str, float | int | None]:
        """The mean, median and 90th percentile of the turn of an end, over the duels sampled that end so."""
        counts = self.ends.get(winner, {})
        n = sum(counts.values())
        if not n:
            return {"mean": None, "median": None, "p90": None}
        return {"mean": sum(t * c for t, c in counts.items()) / n, "median": _quantile(counts, 0.5),
                "p90": _quantile(counts, 0.9)}

    def to_dict(self) -> dict[str, Any]:
        began = {r: max(self.left[r], default=0) for r in ("a", "b")}
        return {
            "exact": False, "samples": self.samples, "seed": self.seed, "turn_limit": self.turn_limit,
            "first": self.first, "third_unit": self.third_unit,
            "winner": self.share(self.winner),
            "intervals": {k: list(self.interval(v)) for k, v in self.winner.items()},
            "turns": {str(k): v / self.samples for k, v in sorted(self.turns.items())},
            "ends": {w: self.end_turns(w) for w in ("a", "b", "both", "any")},
            "left": {role: {str(k): v / self.samples for k, v in sorted(self.left[role].items())}
                     for role in ("a", "b")},
            "losses": {r: began[r] - sum(k * v for k, v in self.left[r].items()) / self.samples for r in ("a", "b")},
        }


def sample_duel(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str, turns: int | None = None,
                samples: int = 100_000, seed: int = 0, progress: Any = None, first: str = "a",
                third_unit: str | None = None) -> DuelEstimate:
    """``samples`` duels played with their dice rolled (numpy, from ``seed``: reproducible), to the end
    (``turns`` None) or over at most ``turns`` turns. Duels in equal battles are rolled together, one vectorised
    draw per battle and half-turn. ``progress(done, total)`` is told of each turn."""
    import numpy as np

    from rangefire.analysis.duel import (
        MAX_TURNS,
        check_duel,
        check_samples,
        check_seed,
        duel_module,
        model_of,
        setting,
    )
    from rangefire.analysis.duel_chain import PATTERNS

    check_duel(ruleset, battle, a, b, turns, first, third_unit)
    check_samples(samples)
    check_seed(seed)
    if third_unit is None and ruleset.chooses_target is not None:
        third_unit = "holds"
    played = setting(ruleset, battle, a, b, third_unit)
    key = getattr(duel_module(ruleset), "state_key", None) or ruleset.duel_key
    rng = np.random.default_rng(seed)
    pattern = PATTERNS[first]
    ids = {"a": a, "b": b}
    limit = turns if turns is not None else MAX_TURNS
    frontier: dict[Hashable, tuple[Any, int]] = {}
    winner = {"a": 0, "b": 0, "both": 0, "neither": 0}
    taken: dict[int, int] = {}
    left: dict[str, dict[int, int]] = {"a": {}, "b": {}}
    ends: dict[str, dict[int, int]] = {"a": {}, "b": {}, "both": {}, "any": {}}

    def end(who: str, turn: int, lefts: tuple[int, int], count: int) -> None:
        winner[who] += count
        taken[turn] = taken.get(turn, 0) + count
        for role, n in zip(("a", "b"), lefts, strict=True):
            left[role][n] = left[role].get(n, 0) + count
        if who != "neither":
            for k in (who, "any"):
                ends[k][turn] = ends[k].get(turn, 0) + count

    model = model_of(ruleset, played)
    sample = getattr(model, "sample", None)

    if sample is not None:
        first_state = model.start(ids[pattern[0]])
        frontier = {first_state: (first_state, samples)}
    else:
        start = ruleset.duel_begin(played, ids[pattern[0]])
        frontier = {key(start): (start, samples)}
    phase = 0
    turn = 0
    while frontier and turn < limit:
        turn += 1
        for _half in range(2):
            role = pattern[phase]
            phase = (phase + 1) % len(pattern)
            shooter, target, then = ids[role], ids["b" if role == "a" else "a"], ids[pattern[phase]]
            attack = Attack(shooter, target)
            after_half: dict[Hashable, tuple[Any, int]] = {}
            for state, count in frontier.values():
                if sample is not None:  # the game's own states, the dice rolled (never weighed)
                    for n, after in (f for s in range(0, count, BLOCK)
                                     for f in sample(state, shooter, target, then, min(BLOCK, count - s), rng)):
                        la, lb = model.left(after, a), model.left(after, b)
                        if la == 0 or lb == 0:
                            end("both" if la == lb == 0 else "a" if lb == 0 else "b", turn, (la, lb), n)
                        else:
                            seen = after_half.get(after)
                            after_half[after] = (after, n) if seen is None else (after, seen[1] + n)
                    continue
                found = [f for s in range(0, count, BLOCK)
                         for f in ruleset.sampled_exchanges(state, attack, min(BLOCK, count - s), rng)]
                for n, after in found:
                    if not n:
                        continue
                    la, lb = ruleset.duel_left(after, a), ruleset.duel_left(after, b)
                    if la == 0 or lb == 0:
                        end("both" if la == lb == 0 else "a" if lb == 0 else "b", turn, (la, lb), n)
                        continue
                    if then == shooter:  # the turn passes round to the unit that fired last
                        after = ruleset.duel_pass(after, target)
                    after = ruleset.duel_pass(after, then)
                    k = key(after)
                    seen = after_half.get(k)
                    after_half[k] = (after, n) if seen is None else (seen[0], seen[1] + n)
            frontier = after_half
        if progress is not None:
            progress(turn, limit)
    for state, count in frontier.values():  # the turn limit: neither is destroyed
        lefts = ((model.left(state, a), model.left(state, b)) if sample is not None
                 else (ruleset.duel_left(state, a), ruleset.duel_left(state, b)))
        end("neither", limit, lefts, count)
    return DuelEstimate(ruleset=ruleset.key, a=a, b=b, turn_limit=turns, left_name=ruleset.duel_left_name,
                        samples=samples, seed=seed, winner=winner, turns=dict(sorted(taken.items())),
                        left={r: dict(sorted(d.items())) for r, d in left.items()},
                        ends={k: dict(sorted(d.items())) for k, d in ends.items()}, first=first,
                        third_unit=third_unit)
