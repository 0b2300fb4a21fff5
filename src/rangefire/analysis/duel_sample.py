"""The Monte Carlo duel: the same turns as the exact chain, every attack played with its dice rolled.

Every attack is the game's :meth:`~rangefire.core.Ruleset.sampled_exchanges` (vectorised with numpy: the duels in
equal battles are rolled together), every passing of the turn its ``duel_pass``; a game whose duel has states of
its own (``chain_model``) with a ``sample`` plays them instead, its dice rolled the same way (Dress on the Colors:
quicker than whole battles). It never reads the exact transitions, so the two agreeing checks both. A duel is
played until one unit is destroyed, or until the turn limit (to the end: at most
:data:`~rangefire.analysis.duel.MAX_TURNS` turns, the duels still undecided then counted as such). Each
probability comes with its 95% interval (Wilson's score interval).

Its work is the dice rolled and the states drawn (in each half-turn, a game's attack with its dice rolled for
all the duels in one state at once); both grow with the duels asked for, the second up to the states the two
units can take. Before the work, :func:`sample_work` plays :data:`PILOT` duels and weighs what
the duels asked for would take: a Monte Carlo passing :data:`MAX_SAMPLE_DICE` or :data:`MAX_SAMPLE_DRAWS` is
refused at once, naming the most duels that would be played (a few minutes' work, refused in a moment).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rangefire.core import Attack, LimitError, Ruleset

#: How many duels of one battle are rolled at once (bounding memory).
BLOCK = 1 << 16
#: How many duels are played to weigh a Monte Carlo's work before it (:func:`sample_work`).
PILOT = 16
#: The pilot's duels are played for this many turns at most; those still going then are taken to go on to the
#: turn limit (a bound on their work).
PILOT_TURNS = 60
#: ... or until they have rolled this many dice (a bound on the pilot's own work, whatever is asked for after it).
PILOT_DICE = 2_000_000
#: The most dice the Monte Carlo rolls: a million duels of the Wheatfield's two regiments roll some 380 million
#: (a minute and a half).
MAX_SAMPLE_DICE = 500_000_000
#: The most states it draws (each half-turn, one draw for all the duels in one state): a hundred duels of two
#: units of 60 stands 20 in apart draw some 190,000 (a minute; a million duels, some 100,000 a turn).
MAX_SAMPLE_DRAWS = 200_000
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
                third_unit: str | None = None, work: SampleWork | None = None) -> DuelEstimate:
    """``samples`` duels played with their dice rolled (numpy, from ``seed``: reproducible), to the end
    (``turns`` None) or over at most ``turns`` turns. Duels in equal battles are rolled together, one vectorised
    draw per battle and half-turn. ``progress(done, total)`` is told of each turn. Refused (:class:`SamplesTooMany`)
where its work, weighed before (``work``, or :func:`sample_work`), would pass the limits."""
    import numpy as np

    if work is None:
        work = sample_work(ruleset, battle, a, b, turns, samples, seed, first, third_unit)
    work.refuse()
    return _play(_Duels(ruleset, battle, a, b, turns, first, third_unit), samples, seed,
                 np.random.default_rng(seed), progress)


@dataclass
class _Duels:
    """The duel the Monte Carlo plays: checked, its setting made (a third unit holds where the game chooses
    targets and nothing is said)."""

    ruleset: Ruleset[Any, Any, Any]
    battle: Any
    a: str
    b: str
    turns: int | None
    first: str
    third_unit: str | None

    def __post_init__(self) -> None:
        from rangefire.analysis.duel import check_duel, setting

        check_duel(self.ruleset, self.battle, self.a, self.b, self.turns, self.first, self.third_unit)
        if self.third_unit is None and self.ruleset.chooses_target is not None:
            self.third_unit = "holds"
        self.played = setting(self.ruleset, self.battle, self.a, self.b, self.third_unit)


@dataclass
class _Meter:
    """What a Monte Carlo did in each half-turn: the states drawn that rolled dice (``rolling``; a state rolling
    none is one in which nothing can change, drawn at no cost), how many of those held one duel alone
    (``alone``), and the dice rolled (``dice``); ``cut`` once the dice passed ``max_dice`` or the half-turns
    ``max_halves`` (it stops there)."""

    max_dice: int
    max_halves: int
    rolling: list[int] = field(default_factory=list)
    alone: list[int] = field(default_factory=list)
    dice: list[int] = field(default_factory=list)
    cut: bool = False
    _count: int = 0
    _rolled: bool = False

    def begin(self) -> None:
        """A half-turn begins."""
        self.rolling.append(0)
        self.alone.append(0)
        self.dice.append(0)

    def draw(self, count: int) -> None:
        """A state of ``count`` duels is drawn."""
        self._count, self._rolled = count, False

    def rolled(self, dice: int) -> None:
        self.dice[-1] += dice
        if dice and not self._rolled:
            self._rolled = True
            self.rolling[-1] += 1
            self.alone[-1] += self._count == 1

    @property
    def passed(self) -> bool:
        return sum(self.dice) > self.max_dice or len(self.dice) >= self.max_halves


class _Counted:
    """A generator of random numbers that tells the meter of the numbers drawn, by whichever of its methods a game
    draws them (the games roll with ``integers``; another method is counted the same)."""

    def __init__(self, rng: Any, meter: _Meter) -> None:
        self._rng, self._meter = rng, meter

    def __getattr__(self, name: str) -> Any:
        import numpy as np

        method = getattr(self._rng, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            drawn = method(*args, **kwargs)
            self._meter.rolled(int(np.size(drawn)))
            return drawn

        return counted


@dataclass(frozen=True)
class SampleWork:
    """A Monte Carlo's work, weighed before it from :data:`PILOT` duels played: ``dice`` rolled, ``draws``
    (states drawn that roll dice, for all the duels in one state at once); ``fit``, the most duels within both
    limits."""

    a: str
    b: str
    samples: int
    dice: int
    draws: int
    fit: int

    @property
    def fits(self) -> bool:
        return self.dice <= MAX_SAMPLE_DICE and self.draws <= MAX_SAMPLE_DRAWS

    def refuse(self) -> None:
        if self.fits:
            return
        raise SamplesTooMany(
            f"--samples {self.samples:,}: a Monte Carlo of so many duels of {self.a} and {self.b} would roll some "
            f"{self.dice:,} dice over some {self.draws:,} states drawn (at most {MAX_SAMPLE_DICE:,} and "
            f"{MAX_SAMPLE_DRAWS:,}, some minutes' work): too much to play here; {self.fit:,} duels or fewer "
            "would be played", self)


class SamplesTooMany(LimitError):
    """A Monte Carlo whose work, weighed before it, passes the limits."""

    def __init__(self, message: str, work: SampleWork) -> None:
        super().__init__(message)
        self.work = work


def sample_work(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str, turns: int | None, samples: int,
                seed: int = 0, first: str = "a", third_unit: str | None = None) -> SampleWork:
    """The work of ``samples`` duels, weighed before it from :data:`PILOT` duels played (their own dice, from
    ``seed``):

    - the dice: the pilot's, times the duels asked for over the pilot's (each duel rolls its own dice);
    - the states drawn in each half-turn that roll dice (one that rolls none is one in which nothing can change,
      drawn at no cost): the pilot's, and beyond them, for every further duel, the chance that it is in a state
      the pilot did not see (the pilot's states holding one duel alone, over its duels: Good and Turing's
      estimate), at most the states the two units can take in that place of the order of fire (the exact chain's
      bound, where the game gives one).

    A pilot passing :data:`PILOT_DICE` dice, or :data:`PILOT_TURNS` turns, stops: its last half-turn is then taken
    to go on to the turn limit (a bound: its duels all still going). The pilot is the same whatever is asked for,
    so the duels found to fit do."""
    import numpy as np

    from rangefire.analysis.duel import check_samples, check_seed
    from rangefire.analysis.duel_chain import PATTERNS
    from rangefire.analysis.duel_work import estimate_duel

    duels = _Duels(ruleset, battle, a, b, turns, first, third_unit)
    check_samples(samples)
    check_seed(seed)
    if samples <= PILOT:
        return SampleWork(a, b, samples, 0, 0, samples)
    meter = _Meter(max_dice=PILOT_DICE, max_halves=2 * PILOT_TURNS)
    _play(duels, PILOT, seed, _Counted(np.random.default_rng([seed, PILOT]), meter), None, meter)
    halves = list(zip(meter.rolling, meter.alone, meter.dice, strict=True))
    if meter.cut:
        halves += [halves[-1]] * (2 * _limit(turns) - len(halves))
    bounds = estimate_duel(ruleset, duels.played, a, b, first)
    most = bounds.nodes // len(PATTERNS[first]) if bounds is not None else None
    dice_each = sum(d for _, _, d in halves)

    def weigh(n: int) -> tuple[int, int]:
        draws = 0
        for rolling, alone, _ in halves:
            seen = min(rolling + -(-alone * (n - PILOT) // PILOT), n)
            draws += min(seen, most) if most is not None else seen
        return -(-dice_each * n // PILOT), draws

    dice, draws = weigh(samples)
    low, high = 1, samples  # the most duels within both limits: the work grows with the duels
    while low < high:
        mid = (low + high + 1) // 2
        d, s = weigh(mid)
        if d <= MAX_SAMPLE_DICE and s <= MAX_SAMPLE_DRAWS:
            low = mid
        else:
            high = mid - 1
    return SampleWork(a, b, samples, dice, draws, low)


def _limit(turns: int | None) -> int:
    from rangefire.analysis.duel import MAX_TURNS

    return turns if turns is not None else MAX_TURNS


def _play(duels: _Duels, samples: int, seed: int, rng: Any, progress: Any,
          meter: _Meter | None = None) -> DuelEstimate:
    """``samples`` of the duels played, their dice rolled from ``rng``; what was done told to ``meter``."""
    from rangefire.analysis.duel import duel_module, model_of
    from rangefire.analysis.duel_chain import PATTERNS

    ruleset, a, b, first, turns, third_unit = (duels.ruleset, duels.a, duels.b, duels.first, duels.turns,
                                               duels.third_unit)
    played = duels.played
    key = getattr(duel_module(ruleset), "state_key", None) or ruleset.duel_key
    pattern = PATTERNS[first]
    ids = {"a": a, "b": b}
    limit = _limit(turns)
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
            if meter is not None:
                meter.begin()
            for state, count in frontier.values():
                if meter is not None:
                    meter.draw(count)
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
        if meter is not None and frontier and meter.passed:
            meter.cut = True
            break
    for state, count in frontier.values():  # the turn limit: neither is destroyed
        lefts = ((model.left(state, a), model.left(state, b)) if sample is not None
                 else (ruleset.duel_left(state, a), ruleset.duel_left(state, b)))
        end("neither", limit, lefts, count)
    return DuelEstimate(ruleset=ruleset.key, a=a, b=b, turn_limit=turns, left_name=ruleset.duel_left_name,
                        samples=samples, seed=seed, winner=winner, turns=dict(sorted(taken.items())),
                        left={r: dict(sorted(d.items())) for r, d in left.items()},
                        ends={k: dict(sorted(d.items())) for k, d in ends.items()}, first=first,
                        third_unit=third_unit)
