"""Duels: two units exchange fire turn by turn until one is destroyed, or until a turn limit.

The exact answer is an absorbing Markov chain over the distinct states of the two units
(:mod:`rangefire.analysis.duel_chain`): every state the rules cannot tell apart is one state, whatever turn reaches
it, and each is worked out once. Without a turn limit the chain is solved to its end (the probability of each
end exactly, the undecided remainder exactly 0 unless neither unit can ever destroy the other), and its exact
distribution is stepped turn by turn far enough to tell the median and the 90th percentile of the turn of each
end; with a limit it is stepped to that turn, the duels still undecided there reported exactly.

The model's assumptions are options, the rules' reading by default, and are written in the answer: who fires first
(``first``: unit a in every turn, unit b, or each in turn); in a game whose rules choose the target, a firer whose
target is a third unit holds its fire (``third_unit="holds"``) or the other units are taken off the table
(``"ignored"``).

The Monte Carlo (:func:`sample_duel`, in :mod:`rangefire.analysis.duel_sample`) plays the same turns with every
die rolled; it never reads the exact transitions, so the two agreeing checks both.

>>> from rangefire.rulesets import battle_from_mapping
>>> ruleset, battle = battle_from_mapping({"ruleset": "dress-on-the-colors", "units": [
...     {"id": "N", "side": "north", "stands": 1, "weapon": "rifled-musket", "formation": "line",
...      "position": [0, 0], "facing": 0},
...     {"id": "S", "side": "south", "stands": 1, "weapon": "rifled-musket", "formation": "line",
...      "position": [0, 8], "facing": 180}]})
>>> result = duel(ruleset, battle, "N", "S", turns=1)
>>> result.winner["a"], result.winner["b"], result.winner["neither"]
(Fraction(0, 1), Fraction(0, 1), Fraction(1, 1))
>>> ended = duel(ruleset, battle, "N", "S")  # to the end: one stand loses to two unsaved hits [DC-4.3]
>>> ended.winner["a"] + ended.winner["b"] == 1, ended.winner["a"] > ended.winner["b"]
(True, True)
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rangefire.analysis.duel_ahead import Ahead, beside
from rangefire.analysis.duel_beside import ByTurn, Stepping
from rangefire.analysis.duel_chain import (
    PATTERNS,
    BattleModel,
    DuelModel,
    End,
    Graph,
    Stepped,
    WorkLimit,
    build,
    collector_paused,
    step,
)
from rangefire.analysis.duel_solve import Solved, solve
from rangefire.analysis.duel_work import MAX_NODES, estimate_duel, refuse_too_large
from rangefire.core import LimitError, LogLine, RangefireError, Refusal, Ruleset, UnknownUnitError, fraction_str
from rangefire.core.numbers import total, with_float
from rangefire.core.types import FORMAT

#: Told of the work done as it goes: ``progress(done, total)``, ``total`` None where it is not known beforehand (the
#: turns a duel to its end is stepped for: until enough of each end is reached). One with a ``phase(name)`` method
#: is also told as each phase of the work begins, its count starting again: "states", "parts solved", "turns
#: stepped".
Progress = Callable[[int, int | None], None]


def _phase(progress: Progress | None, name: str) -> None:
    named = getattr(progress, "phase", None)
    if named is not None:
        named(name)

#: The most turns a duel is played for (a limit asked for, or the stepping of a duel to its end).
MAX_TURNS = 1_000
#: The most work the exact stepping does (weights moved, by their size in machine words): a duel over more turns
#: than that is refused before the stepping (fewer turns, or to its end); the stepping of a duel to its end stops
#: there, its quantiles then said to lie beyond the turns stepped. Some 6 s (the Wheatfield's two regiments over
#: 200 turns).
MAX_STEP_WORK = 400_000_000
#: The most duels the Monte Carlo plays.
MAX_SAMPLES = 1_000_000
#: Who fires first: unit a in every turn, unit b, or each in turn (a, b; b, a; ...).
FIRSTS = tuple(PATTERNS)
#: A firer whose target the rules choose to be a third unit: holds its fire (the rules' reading), or every other
#: unit is taken off the table (``ignored``).
THIRD_UNITS = ("holds", "ignored")

ROLES = ("a", "b")
WINNERS = ("a", "b", "both", "neither")


class DuelError(RangefireError):
    """A duel that cannot be set up: an unknown unit, a unit against itself or its own side, a bad turn limit."""

    kind = "invalid_duel"


@dataclass(frozen=True)
class EndTurns:
    """When the duels with one end end: its ``probability``, the ``mean`` turn (exact), the ``median`` and the
    ``p90`` (the first turn by which half, and nine tenths, of them have ended; None where that lies beyond the
    turns stepped)."""

    probability: Fraction
    mean: Fraction | None
    median: int | None
    p90: int | None

    def to_dict(self) -> dict[str, Any]:
        return {**with_float("probability", self.probability, fraction_str),
                **with_float("mean", self.mean, fraction_str), "median": self.median, "p90": self.p90}


@dataclass(frozen=True)
class DuelResult:
    """The exact duel of units ``a`` and ``b``.

    ``winner`` by role: "a", "b" (the other destroyed), "both" (destroyed together), "neither" (no unit destroyed
    within ``turn_limit``, or, where there is none, never: neither can destroy the other). ``turns`` the turn of
    the end: with a limit, every turn to it (the undecided counted at the limit, as they stop there); to the end,
    each turn stepped, ``turns_after`` the probability of an end after them. ``ends`` the turns of each end
    ("a", "b", "both", and "any": every duel that ends). ``left`` for each role what is left of it at the end
    (:attr:`left_name`: 0 is destroyed), ``losses`` its expected losses. ``refusals`` why each could not fire at
    the start; ``notes`` what the model makes of that; ``assumptions`` the model's, each option as taken.
    """

    ruleset: str
    a: str
    b: str
    turn_limit: int | None
    left_name: str
    winner: Mapping[str, Fraction]
    turns: Mapping[int, Fraction]
    left: Mapping[str, Mapping[int, Fraction]]
    refusals: Mapping[str, tuple[Refusal, ...]] = field(default_factory=dict)
    notes: Mapping[str, tuple[LogLine, ...]] = field(default_factory=dict)
    states: int = 0
    exact: bool = True
    first: str = "a"
    third_unit: str | None = None
    turns_after: Fraction = Fraction(0)
    ends: Mapping[str, EndTurns] = field(default_factory=dict)
    losses: Mapping[str, Fraction] = field(default_factory=dict)
    assumptions: tuple[LogLine, ...] = ()
    turns_stepped: int = 0
    #: For each turn stepped, the probability of each winner's end in it ("a", "b", "both").
    by_turn: Mapping[int, Mapping[str, Fraction]] = field(default_factory=dict)
    #: What is left of each role on average, where worked out with the rest (else summed from ``left``).
    left_means: Mapping[str, Fraction] = field(default_factory=dict)

    @property
    def mean_turns(self) -> Fraction:
        """The mean turn of the end: with a limit, over every duel (the undecided at the limit); to the end, over
        the duels that end."""
        if self.turn_limit is None:
            mean = self.ends["any"].mean if "any" in self.ends else None
            return mean if mean is not None else Fraction(0)
        return total(n * p for n, p in self.turns.items())

    def ended_by_winner(self, turn: int) -> dict[str, Fraction]:
        """The probability of each winner's end in turn ``turn`` (from 1, at most :attr:`turns_stepped`)."""
        return dict(self.by_turn.get(turn, {}))

    def mean_left(self, role: str) -> Fraction:
        found = self.left_means.get(role)
        return total(n * p for n, p in self.left[role].items()) if found is None else found

    def unit(self, role: str) -> str:
        return self.a if role == "a" else self.b

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data: probabilities as exact fraction strings, each with its float beside it
        (``KEY_float``)."""

        def exact(key: str, value: Fraction | Mapping[Any, Fraction]) -> dict[str, Any]:
            return with_float(key, value, fraction_str)

        def dist(d: Mapping[int, Fraction]) -> dict[str, Any]:
            return exact("distribution", dict(sorted(d.items())))

        return {
            "format": FORMAT, "ruleset": self.ruleset, "a": self.a, "b": self.b, "turn_limit": self.turn_limit,
            "first": self.first, "third_unit": self.third_unit, "exact": self.exact, "states": self.states,
            "assumptions": [n.to_dict() for n in self.assumptions],
            **exact("winner", dict(self.winner)),
            **exact("undecided", self.winner["neither"]),
            "turns": {**dist(self.turns), **exact("mean", self.mean_turns),
                      "stepped": self.turns_stepped, **exact("after", self.turns_after)},
            "ends": {k: v.to_dict() for k, v in self.ends.items()},
            "left_measure": self.left_name,
            "left": {role: {"unit": self.unit(role), **dist(self.left[role]), **exact("mean", self.mean_left(role)),
                            **exact("losses", self.losses.get(role, Fraction(0)))} for role in ROLES},
            "refusals": {role: [{"clause": r.clause, "reason": r.reason} for r in self.refusals.get(role, ())]
                         for role in ROLES},
            "notes": {role: [n.to_dict() for n in self.notes.get(role, ())] for role in ROLES},
        }


# -- checks ---------------------------------------------------------------------------------------------------
def check_duel(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str, turns: int | None,
               first: str = "a", third_unit: str | None = None) -> None:
    """Refuse a duel that cannot be set up, before any work, with a sentence naming the value."""
    ids = list(ruleset.unit_ids(battle))
    for uid in (a, b):
        if uid not in ids:
            raise UnknownUnitError(f"unit {uid!r} is not in this battle (units: {', '.join(ids) or 'none'})")
    if a == b:
        raise DuelError(f"a duel needs two units: {a!r} was named twice")
    if ruleset.side_of(battle, a) == ruleset.side_of(battle, b):
        raise DuelError(f"{a} and {b} are both on {ruleset.side_of(battle, a)}'s side: a duel is between enemies")
    if turns is not None and not 1 <= turns <= MAX_TURNS:
        raise DuelError(f"turns must be between 1 and {MAX_TURNS:,}, got {turns:,}")
    if first not in FIRSTS:
        raise DuelError(f"who fires first must be one of {', '.join(FIRSTS)}, got {first!r}")
    if third_unit is not None:
        if third_unit not in THIRD_UNITS:
            raise DuelError(f"a third unit must be one of {', '.join(THIRD_UNITS)}, got {third_unit!r}")
        if ruleset.chooses_target is None:
            raise DuelError(f"{ruleset.key} does not choose a firer's target: a third unit never takes its place "
                            "(the option is for a game whose rules choose the target, Dress on the Colors)")


def check_samples(samples: int) -> None:
    """Refuse a number of duels to sample that is not between 1 and :data:`MAX_SAMPLES`."""
    if not 1 <= samples <= MAX_SAMPLES:
        raise DuelError(f"samples must be between 1 and {MAX_SAMPLES:,}, got {samples:,}")


def check_seed(seed: int) -> None:
    """Refuse a seed the dice cannot be rolled from (numpy's generator takes 0 or more)."""
    if seed < 0:
        raise DuelError(f"the seed of sampled duels must be 0 or more, got {seed}")


# -- the model's assumptions ----------------------------------------------------------------------------------
def duel_module(ruleset: Ruleset[Any, Any, Any]) -> Any:
    """The module that plays the game's duels (the game's own ``NoDuelError`` where it has none)."""
    if ruleset.duel_module is None:
        ruleset.exchanges(None, None)  # type: ignore[arg-type]  # raises the game's NoDuelError
    return importlib.import_module(str(ruleset.duel_module))


def setting(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str, third_unit: str | None) -> Any:
    """The battle the duel is played in: as it is, or with the third units taken off the table (``ignored``)."""
    if third_unit != "ignored":
        return battle
    return duel_module(ruleset).alone(battle, a, b)


def assumptions(ruleset: Ruleset[Any, Any, Any], a: str, b: str, first: str,
                third_unit: str | None) -> tuple[LogLine, ...]:
    """The model's assumptions as the answer writes them, each option as taken."""
    order = {"a": f"{a} fires first in every turn, then {b}",
             "b": f"{b} fires first in every turn, then {a}",
             "alternate": f"{a} fires first in the first turn, {b} in the second, and so on"}[first]
    out = [LogLine("duel", f"{order} (--first {first}); only the two fire, nothing moves or rallies, an attack the "
                           "rules refuse does nothing")]
    clause = ruleset.chooses_target
    if clause is not None:
        taken = third_unit or "holds"
        text = ("a unit whose target the rules choose to be a third unit holds its fire; the third unit takes no "
                "part" if taken == "holds" else "every other unit is taken off the table, so that each fires at "
                "the other where the rules allow it (an assumption: the rules choose the closest enemy)")
        out.append(LogLine(clause, f"{text} (--third-unit {taken})"))
    return tuple(out)


def model_of(ruleset: Ruleset[Any, Any, Any], battle: Any) -> DuelModel:
    """The game's states in a duel: its duel module's ``chain_model``, else its battles by ``state_key``."""
    module = duel_module(ruleset)
    if hasattr(module, "chain_model"):
        return module.chain_model(ruleset, battle)  # type: ignore[no-any-return]
    key = getattr(module, "state_key", None) or ruleset.duel_key
    return BattleModel(ruleset, battle, key)


def _refusals(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str,
              first: str) -> dict[str, tuple[Refusal, ...]]:
    """Why each unit cannot fire as the duel begins (the first to fire with the turn its own, the other with the
    turn passed to it)."""
    one = a if PATTERNS[first][0] == "a" else b
    two = b if one == a else a
    start = ruleset.duel_begin(battle, one)
    first_refused = ruleset.check(start, ruleset.attack(one, two)).refusals
    second_refused = ruleset.check(ruleset.duel_pass(start, two), ruleset.attack(two, one)).refusals
    found = {one: tuple(first_refused), two: tuple(second_refused)}
    return {"a": found[a], "b": found[b]}


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


# -- the exact duel -------------------------------------------------------------------------------------------
def _quantile(cumulative: list[Fraction], total: Fraction, share: Fraction) -> int | None:
    """The first turn (from 1) by which ``share`` of ``total`` has ended, None if not within the turns given (whole
    numbers compared: ``total``'s denominator may run to tens of thousands of bits, and no fraction is reduced)."""
    need, over = share.numerator * total.numerator, share.denominator * total.denominator
    for t, c in enumerate(cumulative, start=1):
        if c.numerator * over >= need * c.denominator:
            return t
    return None


def _by_turn(stepped: ByTurn) -> dict[str, list[Fraction]]:
    """For each winner and for "any", the probability ended by each turn stepped (cumulative)."""
    out: dict[str, list[Fraction]] = {w: [] for w in (*WINNERS[:3], "any")}
    running = dict.fromkeys(out, Fraction(0))
    for t in range(1, stepped.turns + 1):
        sums = dict.fromkeys(out, 0)
        for winner, weight in stepped.ended[t - 1].items():
            sums[winner] += weight
            sums["any"] += weight
        for k in out:
            if sums[k]:
                running[k] += Fraction(sums[k], stepped.denominators[t - 1])
            out[k].append(running[k])
    return out


def _winners_by_turn(stepped: ByTurn) -> dict[int, dict[str, Fraction]]:
    return {t: {w: Fraction(v, stepped.denominators[t - 1]) for w, v in stepped.ended[t - 1].items() if v}
            for t in range(1, stepped.turns + 1)}


def _end_turns(probability: Fraction, mean: Fraction | None, cumulative: list[Fraction]) -> EndTurns:
    half, most = Fraction(1, 2), Fraction(9, 10)
    if not probability:
        return EndTurns(probability, None, None, None)
    return EndTurns(probability, mean, _quantile(cumulative, probability, half),
                    _quantile(cumulative, probability, most))


@collector_paused()
def duel(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str, turns: int | None = None,
         first: str = "a", third_unit: str | None = None, max_nodes: int = MAX_NODES,
         max_work: int = MAX_STEP_WORK, progress: Progress | None = None,
         reach: Fraction = Fraction(9, 10), cores: int | None = None) -> DuelResult:
    """The exact duel of ``a`` and ``b``: to its end (``turns`` None), or over at most ``turns`` turns.

    Raises :class:`DuelError` for a duel that cannot be set up; :class:`~rangefire.analysis.duel_work.DuelTooLarge`
    before any work where the game's bounds say the chain would pass ``max_nodes`` states;
    :class:`~rangefire.core.LimitError` when the chain passes them all the same, or when ``turns`` turns would
    pass ``max_work``. ``progress(done, total)`` is told of the states worked out, of the chain's parts solved (to
    the end), then of the turns stepped (each a phase: :data:`Progress`). To
    the end, the exact distribution is stepped until ``reach`` of every end has been reached (at least nine
    tenths: its median and 90th percentile are then known; a chart asks for more), on a second core while the
    chain is solved where one can be had (``cores``: see :class:`~rangefire.analysis.duel_beside.Stepping`; the
    answer is the same either way)."""
    check_duel(ruleset, battle, a, b, turns, first, third_unit)
    if third_unit is None and ruleset.chooses_target is not None:
        third_unit = "holds"
    played = setting(ruleset, battle, a, b, third_unit)
    work = estimate_duel(ruleset, played, a, b, first)
    refuse_too_large(work, a, b, max_nodes)
    expected = work.nodes if work is not None else max_nodes
    model = model_of(ruleset, played)
    _phase(progress, "states")
    try:
        with Ahead(model, beside(cores, expected)) as ahead:
            graph = build(model, a, b, first, max_nodes,
                          None if progress is None else lambda done: progress(min(done, expected), expected),
                          ahead.found if ahead.pid else None)
    except WorkLimit:
        raise LimitError(f"the duel of {a} and {b} reaches more than {max_nodes:,} distinct states: too large to "
                         "answer exactly (smaller units), or a Monte Carlo of it, its dice rolled") from None
    refusals = _refusals(ruleset, played, a, b, first)
    common = {"ruleset": ruleset.key, "a": a, "b": b, "turn_limit": turns, "left_name": ruleset.duel_left_name,
              "refusals": refusals, "notes": _notes(ruleset, played, a, b, refusals) if third_unit != "ignored"
              else {}, "states": graph.size, "first": first, "third_unit": third_unit,
              "assumptions": assumptions(ruleset, a, b, first, third_unit)}
    if turns is not None:
        return _capped(graph, turns, max_work, common, progress)
    return _to_the_end(graph, max_work, common, progress, max(reach, Fraction(9, 10)), cores)


def _told(progress: Progress | None, total: int) -> Callable[[Stepped, dict[str, int]], bool] | None:
    if progress is None:
        return None

    def tell(stepped: Stepped, _: dict[str, int]) -> bool:
        progress(stepped.turns, total)
        return False

    return tell


def stepping_work(graph: Graph, turns: int) -> int:
    """The work of stepping ``turns`` turns, foreseen from the graph (as :func:`~rangefire.analysis.duel_chain.step`
    counts it: the weights moved, by their size in machine words, which grows with each turn by the bits of the
    turn's common denominators)."""
    halves = len(graph.pattern)
    lcms = [1] * halves
    for i, (_, phase) in enumerate(graph.keys):
        lcms[phase] = math.lcm(lcms[phase], graph.den[i])
    bits = sum(d.bit_length() for d in lcms) * 2 // halves  # per turn
    per_turn = graph.weighed * 2 // halves
    return sum(per_turn * ((t * bits) // 64 + 1) * 2 for t in range(turns))


def _capped(graph: Graph, turns: int, max_work: int, common: dict[str, Any], progress: Progress | None) -> DuelResult:
    a, b = graph.ids
    if stepping_work(graph, turns) > max_work:  # refused before the stepping
        within = next((t for t in range(turns, 0, -1) if stepping_work(graph, t) <= max_work), 0)
        raise LimitError(f"the duel of {a} and {b} over {turns:,} turns is too long to step exactly (its numbers "
                         f"grow with every turn): {within:,} turns or fewer, or the duel to its end (no turn "
                         "limit), or a Monte Carlo of it, its dice rolled")
    try:
        _phase(progress, "turns stepped")
        stepped = step(graph, turns, _told(progress, turns), max_work)
    except WorkLimit:
        raise LimitError(f"the duel of {a} and {b} over {turns:,} turns is too long to step exactly (its numbers "
                         "grow with every turn): fewer turns, or the duel to its end (no turn limit), or a Monte "
                         "Carlo of it, its dice rolled") from None
    winner = dict.fromkeys(WINNERS, Fraction(0))
    taken: dict[int, Fraction] = {}
    left: dict[str, dict[int, Fraction]] = {"a": {}, "b": {}}

    def add(end: End, turn: int, p: Fraction) -> None:
        who, la, lb = end
        winner[who] += p
        taken[turn] = taken.get(turn, Fraction(0)) + p
        left["a"][la] = left["a"].get(la, Fraction(0)) + p
        left["b"][lb] = left["b"].get(lb, Fraction(0)) + p

    for t in range(1, stepped.turns + 1):
        for end, p in stepped.ended_in(t).items():
            add(end, t, p)
    for node, weight in stepped.undecided.items():  # the turn limit: neither is destroyed
        la, lb = graph.lefts[node]
        add(("neither", la, lb), turns, Fraction(weight, stepped.denominator))
    by_turn = ByTurn.of(stepped)
    cumulative = _by_turn(by_turn)
    ends = {}
    for w in (*WINNERS[:3], "any"):
        p = cumulative[w][-1] if cumulative[w] else Fraction(0)
        mean = None
        if p:
            ended = [cumulative[w][0], *(cumulative[w][t] - cumulative[w][t - 1] for t in range(1, stepped.turns))]
            mean = sum((Fraction(t) * q for t, q in enumerate(ended, start=1)), Fraction(0)) / p
        ends[w] = _end_turns(p, mean, cumulative[w])
    return DuelResult(winner=winner, turns=dict(sorted(taken.items())),
                      left={r: dict(sorted(d.items())) for r, d in left.items()},
                      ends=ends, losses=_losses(graph, left), turns_stepped=stepped.turns,
                      by_turn=_winners_by_turn(by_turn), **common)


def _losses(graph: Graph, left: Mapping[str, Mapping[int, Fraction]]) -> dict[str, Fraction]:
    """Each unit's expected losses: what it began with less what is left of it at the end."""
    began = graph.lefts[0]
    return {role: began[i] - sum((n * p for n, p in left[role].items()), Fraction(0))
            for i, role in enumerate(ROLES)}


def _to_the_end(graph: Graph, max_work: int, common: dict[str, Any], progress: Progress | None,
                reach: Fraction, cores: int | None) -> DuelResult:
    with Stepping(graph, MAX_TURNS, max_work, cores, reach) as stepping:
        _phase(progress, "parts solved")
        solved = solve(graph, progress)
        _phase(progress, "turns stepped")
        return _ended(graph, solved, stepping, common, progress, reach)


def _ended(graph: Graph, solved: Solved, stepping: Stepping, common: dict[str, Any], progress: Progress | None,
           reach: Fraction) -> DuelResult:
    by_winner: dict[str, int] = {w: 0 for w in WINNERS}
    sums: dict[str, int] = {w: 0 for w in WINNERS[:3]}
    lefts: dict[str, dict[int, int]] = {"a": {}, "b": {}}
    for (who, la, lb), w in solved.ends.items():
        by_winner[who] += w
        lefts["a"][la] = lefts["a"].get(la, 0) + w
        lefts["b"][lb] = lefts["b"].get(lb, 0) + w
    for (who, _, _), w in solved.turn_sums.items():
        if who in sums:
            sums[who] += w
    winner = {w: solved.probability(v) for w, v in by_winner.items()}
    left = {r: {n: solved.probability(v) for n, v in sorted(d.items())} for r, d in lefts.items()}
    ending = solved.probability(by_winner["a"] + by_winner["b"] + by_winner["both"])
    # each mean is E[turn; end] / P(end), both integers over the same denominator: one fraction of the two
    means: dict[str, Fraction | None] = {w: solved.mean(v, by_winner[w]) if by_winner[w] else None
                                         for w, v in sums.items()}
    ended = sum(by_winner[w] for w in WINNERS[:3])
    means["any"] = solved.mean(sum(sums.values()), ended) if ended else None
    totals = {**{w: winner[w] for w in WINNERS[:3]}, "any": ending}

    shares = {w: (p.numerator, p.denominator) for w, p in totals.items()}
    share_n, share_d = reach.numerator, reach.denominator

    def enough(stepped: ByTurn, ended: dict[str, int]) -> bool:
        """Whether ``reach`` of every end has been reached (its quantiles are then known): whole numbers
        compared, no fraction reduced."""
        if progress is not None:
            progress(stepped.turns, None)  # how many turns are enough is known only when they are
        d = stepped.denominator
        reached = {**ended, "any": sum(ended.values())}
        return all(share_d * reached[w] * q >= share_n * p * d for w, (p, q) in shares.items())

    stepped = stepping.collect(enough)
    cumulative = _by_turn(stepped)
    ends = {w: _end_turns(totals[w], means[w], cumulative[w]) for w in totals}
    turns = {t: Fraction(sum(stepped.ended[t - 1].values()), stepped.denominators[t - 1])
             for t in range(1, stepped.turns + 1)}
    # an end after the turns stepped (never ending is not one: that is "neither")
    after = total((1, -(cumulative["any"][-1] if cumulative["any"] else Fraction(0)), -winner["neither"]))
    # what is left on average: one fraction of the integer sums, not a sum of fractions
    means_left = {role: solved.probability(sum(n * w for n, w in lefts[role].items())) for role in ROLES}
    return DuelResult(winner=winner, turns=turns, left=left, ends=ends, turns_after=after,
                      losses={role: graph.lefts[0][i] - means_left[role] for i, role in enumerate(ROLES)},
                      left_means=means_left,
                      turns_stepped=stepped.turns, by_turn=_winners_by_turn(stepped),
                      **common)


def sample_duel(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str, turns: int | None = None,
                samples: int = 100_000, seed: int = 0, progress: Progress | None = None, first: str = "a",
                third_unit: str | None = None, work: Any = None) -> Any:
    """``samples`` duels played with their dice rolled (:func:`rangefire.analysis.duel_sample.sample_duel`; ``work``
    its work weighed before, :func:`~rangefire.analysis.duel_sample.sample_work`)."""
    from rangefire.analysis.duel_sample import sample_duel as sampled

    return sampled(ruleset, battle, a, b, turns, samples, seed, progress, first, third_unit, work)
