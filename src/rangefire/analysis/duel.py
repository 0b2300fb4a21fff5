"""Duels: two units exchange fire turn by turn until one is destroyed or a turn limit is reached.

The exact answer is an absorbing Markov chain over battles. A state is the battle itself (an immutable, hashable
value: casualties, disorder, markers, ammunition and the turn all live in it), and one step is one unit's attack:
the game's :meth:`~rangefire.core.Ruleset.exchanges` gives every battle the attack can leave behind with its exact
probability. The chain is walked breadth first, one half-turn at a time: the first unit fires, then the turn passes
by the game's own end-of-turn clauses (:meth:`~rangefire.core.Ruleset.duel_pass`) and the second unit fires back,
and so on. Equal battles reached in the same half-turn are merged. A battle is absorbing when a unit is destroyed
(:meth:`~rangefire.core.Ruleset.duel_left` is 0), or at the end of the last turn.

The Monte Carlo (:func:`sample_duel`) walks the same turns, but plays every attack with its dice rolled
(:meth:`~rangefire.core.Ruleset.sampled_exchanges`, vectorised with numpy): it never reads the exact
transitions, so the two agreeing checks both.

>>> from rangefire.rulesets import battle_from_mapping
>>> ruleset, battle = battle_from_mapping({"ruleset": "dress-on-the-colors", "units": [
...     {"id": "N", "side": "north", "stands": 1, "weapon": "rifled-musket", "formation": "line",
...      "position": [0, 0], "facing": 0},
...     {"id": "S", "side": "south", "stands": 1, "weapon": "rifled-musket", "formation": "line",
...      "position": [0, 8], "facing": 180}]})
>>> result = duel(ruleset, battle, "N", "S", turns=1)
>>> result.winner["a"], result.winner["b"], result.winner["neither"]
(Fraction(0, 1), Fraction(0, 1), Fraction(1, 1))
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rangefire.analysis.duel_work import estimate_duel, refuse_too_large
from rangefire.core import Attack, LimitError, LogLine, RangefireError, Refusal, Ruleset, UnknownUnitError, fraction_str
from rangefire.core.types import FORMAT

#: Told of the work done as it goes: ``progress(done, total)`` (half-turns walked, of all the duel's).
Progress = Callable[[int, int], None]

#: The most turns a duel is played for.
MAX_TURNS = 200
#: The most battles (states) the exact chain visits over all its half-turns: beyond it the duel is refused with a
#: message (fewer turns or smaller units), never a run of minutes.
MAX_STATES = 10_000
#: The most results of attacks (battles an attack leaves behind, ``exchanges``) the exact chain weighs: the work
#: of a duel grows with them, not with the battles alone (big units leave dozens of battles behind each attack,
#: and 10,000 battles of the example's regiments weigh 60,000 results, half a minute). The Wheatfield's two
#: regiments over the default five turns weigh between 30,000 and 36,000 (about 6 s): answered, not refused.
MAX_WEIGHED = 40_000
#: The most duels the Monte Carlo plays, and how many of them are rolled at once (bounding memory).
MAX_SAMPLES = 1_000_000
BLOCK = 1 << 16

ROLES = ("a", "b")


class DuelError(RangefireError):
    """A duel that cannot be set up: an unknown unit, a unit against itself or its own side, a bad turn limit."""

    kind = "invalid_duel"


def _add(table: dict[Any, Any], key: Any, value: Any) -> None:
    table[key] = table.get(key, 0) + value


@dataclass(frozen=True)
class DuelResult:
    """The exact distributions of a duel between units ``a`` (firing first) and ``b``.

    ``winner`` by role ("a", "b", "neither": no unit destroyed within the turn limit), ``turns`` the turns played
    until the end (a turn is both units' fire; a duel ends in the turn its loser is destroyed), ``left`` for each
    role the distribution of what is left of it at the end (:attr:`left_name`: 0 is destroyed). ``refusals``
    holds, for each role, why it could not fire at the start (empty where it could); ``notes``, for each role,
    what the duel's model makes of that, with the clause (a unit whose target the rules choose, and choose a third
    unit, does not fire).
    """

    ruleset: str
    a: str
    b: str
    turn_limit: int
    left_name: str
    winner: Mapping[str, Fraction]
    turns: Mapping[int, Fraction]
    left: Mapping[str, Mapping[int, Fraction]]
    refusals: Mapping[str, tuple[Refusal, ...]] = field(default_factory=dict)
    notes: Mapping[str, tuple[LogLine, ...]] = field(default_factory=dict)
    states: int = 0
    exact: bool = True

    @property
    def mean_turns(self) -> Fraction:
        return sum((n * p for n, p in self.turns.items()), Fraction(0))

    def mean_left(self, role: str) -> Fraction:
        return sum((n * p for n, p in self.left[role].items()), Fraction(0))

    def unit(self, role: str) -> str:
        return self.a if role == "a" else self.b

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data: probabilities as exact fraction strings."""

        def dist(d: Mapping[int, Fraction]) -> dict[str, str]:
            return {str(k): fraction_str(v) for k, v in sorted(d.items())}

        return {
            "format": FORMAT, "ruleset": self.ruleset, "a": self.a, "b": self.b, "turn_limit": self.turn_limit,
            "exact": self.exact, "states": self.states,
            "winner": {k: fraction_str(v) for k, v in self.winner.items()},
            "turns": {"distribution": dist(self.turns), "mean": fraction_str(self.mean_turns)},
            "left_measure": self.left_name,
            "left": {role: {"unit": self.unit(role), "distribution": dist(self.left[role]),
                            "mean": fraction_str(self.mean_left(role))} for role in ROLES},
            "refusals": {role: [{"clause": r.clause, "reason": r.reason} for r in self.refusals.get(role, ())]
                         for role in ROLES},
            "notes": {role: [n.to_dict() for n in self.notes.get(role, ())] for role in ROLES},
        }


@dataclass(frozen=True)
class DuelEstimate:
    """A sampled duel: the same distributions as :class:`DuelResult`, as counts out of ``samples`` (estimates)."""

    ruleset: str
    a: str
    b: str
    turn_limit: int
    left_name: str
    samples: int
    seed: int
    winner: Mapping[str, int]
    turns: Mapping[int, int]
    left: Mapping[str, Mapping[int, int]]
    exact: bool = False

    def share(self, counts: Mapping[Any, int]) -> dict[Any, float]:
        return {k: v / self.samples for k, v in counts.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "exact": False, "samples": self.samples, "seed": self.seed,
            "winner": self.share(self.winner),
            "turns": {str(k): v / self.samples for k, v in sorted(self.turns.items())},
            "left": {role: {str(k): v / self.samples for k, v in sorted(self.left[role].items())}
                     for role in ROLES},
        }


def check_duel(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str, turns: int) -> None:
    """Refuse a duel that cannot be set up, before any work, with a sentence naming the value."""
    ids = list(ruleset.unit_ids(battle))
    for uid in (a, b):
        if uid not in ids:
            raise UnknownUnitError(f"unit {uid!r} is not in this battle (units: {', '.join(ids) or 'none'})")
    if a == b:
        raise DuelError(f"a duel needs two units: {a!r} was named twice")
    if ruleset.side_of(battle, a) == ruleset.side_of(battle, b):
        raise DuelError(f"{a} and {b} are both on {ruleset.side_of(battle, a)}'s side: a duel is between enemies")
    if not 1 <= turns <= MAX_TURNS:
        raise DuelError(f"turns must be between 1 and {MAX_TURNS}, got {turns}")


def check_samples(samples: int) -> None:
    """Refuse a number of duels to sample that is not between 1 and :data:`MAX_SAMPLES`."""
    if not 1 <= samples <= MAX_SAMPLES:
        raise DuelError(f"samples must be between 1 and {MAX_SAMPLES:,}, got {samples:,}")


def check_seed(seed: int) -> None:
    """Refuse a seed the dice cannot be rolled from (numpy's generator takes 0 or more)."""
    if seed < 0:
        raise DuelError(f"the seed of sampled duels must be 0 or more, got {seed}")


def _walk(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str, turns: int,
          step: Callable[[Any, Attack, Any], Iterable[tuple[Any, Any]]], one: Any, limit: int | None,
          weigh_limit: int | None = None, progress: Progress | None = None,
          ) -> tuple[dict[str, Any], dict[int, Any], dict[str, dict[int, Any]], int]:
    """The duel's turns, breadth first: ``step(state, attack, weight)`` gives the weighted battles an attack
    leaves behind (exact probabilities or sampled counts). Returns winner, turns, left, states visited.
    Refused (:class:`~rangefire.core.LimitError`) past ``limit`` battles visited or ``weigh_limit`` results of
    attacks weighed. ``progress(done, total)`` is told of each half-turn walked."""
    winner: dict[str, Any] = {"a": 0 * one, "b": 0 * one, "neither": 0 * one}
    taken: dict[int, Any] = {}
    left: dict[str, dict[int, Any]] = {"a": {}, "b": {}}
    key = ruleset.duel_key
    start = ruleset.duel_begin(battle, a)
    # each state by its key: the battle and its weight (equal battles reached in one half-turn are merged)
    frontier: dict[Hashable, tuple[Any, Any]] = {key(start): (start, one)}
    visited = 0
    weighed = 0
    pairs = (("a", a, "b", b), ("b", b, "a", a))
    for turn in range(1, turns + 1):
        for role, shooter, other, target in pairs:
            attack = ruleset.attack(shooter, target)
            after_half: dict[Hashable, tuple[Any, Any]] = {}
            for state, weight in frontier.values():
                found = list(step(state, attack, weight))
                weighed += len(found)
                if weigh_limit is not None and weighed > weigh_limit:
                    raise LimitError(f"the duel of {a} and {b} weighs more than {weigh_limit:,} results of attacks "
                                     f"by turn {turn} of {turns}: too large to answer exactly (fewer turns or "
                                     "smaller units)")
                for w, after in found:
                    if ruleset.duel_left(after, target) == 0:  # the target is destroyed: absorbing
                        _add(winner, role, w)
                        _add(taken, turn, w)
                        _add(left[other], 0, w)
                        _add(left[role], ruleset.duel_left(after, shooter), w)
                    else:
                        _merge(after_half, key(after), after, w)
                if limit is not None and visited + len(after_half) > limit:  # refused as soon as it is known
                    _too_large(a, b, limit, turn, turns)
            if turn == turns and role == "b":
                frontier = after_half
            else:  # the turn passes to the target, which fires next; battles made equal by it are merged
                frontier = {}
                for s, w in after_half.values():
                    passed = ruleset.duel_pass(s, target)
                    _merge(frontier, key(passed), passed, w)
            visited += len(frontier)
            if limit is not None and visited > limit:
                _too_large(a, b, limit, turn, turns)
            if progress is not None:
                progress(2 * turn - (role == "a"), 2 * turns)
    for state, weight in frontier.values():  # the turn limit: neither is destroyed
        _add(winner, "neither", weight)
        _add(taken, turns, weight)
        _add(left["a"], ruleset.duel_left(state, a), weight)
        _add(left["b"], ruleset.duel_left(state, b), weight)
    return winner, taken, left, visited


def _too_large(a: str, b: str, limit: int, turn: int, turns: int) -> None:
    raise LimitError(f"the duel of {a} and {b} reaches more than {limit} battles by turn {turn} of {turns}: too "
                     "large to answer exactly (fewer turns or smaller units)")


def _merge(table: dict[Hashable, tuple[Any, Any]], k: Hashable, battle: Any, weight: Any) -> None:
    found = table.get(k)
    table[k] = (battle, weight) if found is None else (found[0], found[1] + weight)


def _refusals(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str) -> dict[str, tuple[Refusal, ...]]:
    """Why each unit cannot fire as the duel begins (a with the turn its own, b with the turn passed to it)."""
    start = ruleset.duel_begin(battle, a)
    first = ruleset.check(start, ruleset.attack(a, b)).refusals
    second = ruleset.check(ruleset.duel_pass(start, b), ruleset.attack(b, a)).refusals
    return {"a": tuple(first), "b": tuple(second)}


def _notes(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str,
           refusals: Mapping[str, tuple[Refusal, ...]]) -> dict[str, tuple[LogLine, ...]]:
    """For each role refused at the start in a game whose rules choose the target (``Ruleset.chooses_target``):
    where they choose a third unit, the unit does not fire in the duel (the third unit takes no part, and nothing
    moves), said with that clause. Its target is chosen again before every attack, so only what changes its own
    footprint (Dress on the Colors: stands lost) could change that."""
    notes: dict[str, tuple[LogLine, ...]] = {}
    clause = ruleset.chooses_target
    start = ruleset.duel_begin(battle, a)
    for role, shooter, other in (("a", a, b), ("b", b, a)):
        if clause is None or not any(r.clause == clause for r in refusals.get(role, ())):
            continue
        state = start if role == "a" else ruleset.duel_pass(start, b)
        plan = ruleset.check(state, ruleset.attack(shooter)).plan  # the target the rules choose
        if plan is not None and plan.target not in (shooter, other):
            notes[role] = (LogLine(clause, f"{shooter} does not fire in this duel: the rules choose its target, and "
                                           f"choose {plan.target}, not {other}; {plan.target} takes no part and "
                                           "nothing moves (only its own losses could change the rules' choice)"),)
    return notes


def duel(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str, turns: int = 10,
         max_states: int = MAX_STATES, max_weighed: int = MAX_WEIGHED, progress: Progress | None = None,
         ) -> DuelResult:
    """The exact duel of ``a`` (firing first) and ``b`` over at most ``turns`` turns (an absorbing Markov chain).

    Raises :class:`DuelError` for a duel that cannot be set up; :class:`~rangefire.analysis.duel_work.DuelTooLarge`
    before any work where the game's bounds say the chain would be too large (:mod:`~rangefire.analysis.duel_work`);
    :class:`~rangefire.core.LimitError` when the chain visits more than ``max_states`` battles or weighs more than
    ``max_weighed`` results of attacks all the same. ``progress(done, total)`` is told of each half-turn."""
    check_duel(ruleset, battle, a, b, turns)
    refuse_too_large(estimate_duel(ruleset, battle, a, b, turns), a, b)

    def step(state: Any, attack: Attack, p: Fraction) -> list[tuple[Fraction, Any]]:
        return [(p * q, after) for q, after in ruleset.exchanges(state, attack)]

    winner, taken, left, visited = _walk(ruleset, battle, a, b, turns, step, Fraction(1), max_states,
                                           max_weighed, progress)
    refusals = _refusals(ruleset, battle, a, b)
    return DuelResult(ruleset=ruleset.key, a=a, b=b, turn_limit=turns, left_name=ruleset.duel_left_name,
                      winner=winner, turns=dict(sorted(taken.items())),
                      left={r: dict(sorted(d.items())) for r, d in left.items()},
                      refusals=refusals, notes=_notes(ruleset, battle, a, b, refusals), states=visited)


def sample_duel(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str, turns: int = 10,
                samples: int = 100_000, seed: int = 0, progress: Progress | None = None) -> DuelEstimate:
    """``samples`` duels played with their dice rolled (numpy, from ``seed``: reproducible). Duels in equal
    battles are rolled together, one vectorised draw per battle and half-turn. ``progress(done, total)`` is told
    of each half-turn."""
    import numpy as np

    check_duel(ruleset, battle, a, b, turns)
    check_samples(samples)
    check_seed(seed)
    rng = np.random.default_rng(seed)

    def step(state: Any, attack: Attack, n: int) -> list[tuple[int, Any]]:
        # rolled in blocks: the dice of a block are held at once, whatever the number of duels
        return [found for start in range(0, n, BLOCK)
                for found in ruleset.sampled_exchanges(state, attack, min(BLOCK, n - start), rng)]

    winner, taken, left, _ = _walk(ruleset, battle, a, b, turns, step, samples, None, progress=progress)
    return DuelEstimate(ruleset=ruleset.key, a=a, b=b, turn_limit=turns, left_name=ruleset.duel_left_name,
                        samples=samples, seed=seed, winner=winner, turns=dict(sorted(taken.items())),
                        left={r: dict(sorted(d.items())) for r, d in left.items()})
