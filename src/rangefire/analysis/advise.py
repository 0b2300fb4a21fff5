"""What a side should shoot: every legal attack of its units ranked by the expected value of one outcome.

The outcome is the game's main one (``Ruleset.main_outcome``: Dress on the Colors ``stands_lost``, Arcane
Legions ``hits``, Bushido ``wounds``, swerve ``damage``) unless another is asked for; an event's expected value
is its probability (``attacker_wins``, ``critical``...). Each ranked attack carries the mean of every outcome
and the probability of every event, exact as the game computes them.

**The player's choices.** One row per attacker and target: where the attacker's player has choices beyond the
pair, the best choice is picked and named in the row (its ``choices``), so that the attack can be made as
advised. What counts as whose choice is read from the game's declaration (``Ruleset.choices``):

- a choice of fixed values (kind ``enum``: Arcane Legions' ``order`` [AL-8.1]; kind ``side``: its
  ``from_side`` and ``to_side`` [AL-3.1]) is the attacker's: every legal combination is weighed. The ``enum``
  values are checked first with the sides left open; only a legal one has its sides tried one by one, since
  the engine, left to choose, considers every side [AL-3.4]: an attack refused so is refused with every side;
- a nomination of another model (kind ``unit``: Bushido's ``redirect_to`` [BU-4.2]) is the target's player's:
  the opponent is taken to answer as an app's opponent would, nominating the model (or keeping the declared
  one) that gives the least of the outcome; the row names the answer (``response``);
- a line of play (kind ``actions``: swerve [SW-3.1]) is already played best by both sides in the game's odds.

**Order.** Highest expected value first. Ties, and only ties, keep a fixed order: the attacker's place in the
battle file, then the target's, then the order in which the game declares its choices' values (Arcane Legions:
``ranged`` before ``close``, sides front, right, back, left, as the engine's own tie-break [AL-3.5]); a choice
is replaced only by a strictly better one, and the opponent's answer likewise prefers keeping the target.

A legal attack whose odds the game will not compute (a search beyond its limit) is listed apart
(``not_computed``), never ranked; an estimate (a game's Monte Carlo fallback) is ranked by its estimate and
marked not exact. Refused pairs are listed apart with their clauses (those of the attack with every choice
left to the engine, as ``check`` gives them).

>>> from rangefire.demo import example_path
>>> from rangefire.rulesets import load_battle
>>> ruleset, battle = load_battle(example_path("temple.yaml"))
>>> found = advise(ruleset, battle, "prefecture")
>>> [(a.attacker, a.target, str(a.value)) for a in found.ranked]
[('yoichi', 'oni', '10625/2916'), ('yoichi', 'yojimbo', '530177/279936'), ('yoichi', 'takeda', '48869/69984')]
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from rangefire.analysis.targets import MAX_PAIRS, attackers_of
from rangefire.core import Attack, Check, LimitError, Odds, Plan, RangefireError, Refusal, Ruleset
from rangefire.core.numbers import with_float

#: At most this many checks of candidate attacks in one ask: a pair with choices is weighed once for each
#: legal combination (Arcane Legions: the two orders, then sixteen side pairs of a legal one), each a check and
#: perhaps its odds, a few milliseconds. Past it the ask is refused before the work, naming the bound.
MAX_CHECKS = 18 * MAX_PAIRS

#: The attacker's choices of one candidate attack, by name, in the order declared.
Chosen = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Advice:
    """One attack the side may make, with the value it is ranked by and the odds of everything else.

    ``choices`` are the attacker's choices to make it as ranked, by the game's choice names (empty where the
    game has none); ``response`` the opponent's answer assumed (Bushido's nomination [BU-4.2]) as
    ``(choice, value, clause)``, None where there is none; ``target`` the target declared and ``fired_at`` the
    one the dice are rolled against (another where the opponent nominates one). ``value`` is the expected
    value of ``outcome`` (for an event, its probability); ``means`` every outcome's mean and ``events`` every
    event's probability, all of the attack as ranked. ``exact`` is False when they are a Monte Carlo estimate.
    """

    rank: int
    attacker: str
    side: str
    target: str
    target_side: str
    fired_at: str
    choices: tuple[tuple[str, str], ...]
    response: tuple[str, str, str] | None
    dice: str
    outcome: str
    value: Fraction
    means: Mapping[str, Fraction]
    events: Mapping[str, Fraction]
    exact: bool = True

    def choice_text(self) -> str:
        """The choices and the answer in a few words (``order ranged, from_side front``), "" where none."""
        said = [f"{name} {value}" for name, value in self.choices]
        if self.response is not None:
            said.append(f"opponent: {self.response[0]} {self.response[1]} [{self.response[2]}]")
        return ", ".join(said)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: probabilities and means as exact fraction strings, each with its float beside it."""
        return {
            "rank": self.rank, "attacker": self.attacker, "side": self.side, "target": self.target,
            "target_side": self.target_side, "fired_at": self.fired_at, "choices": dict(self.choices),
            "response": None if self.response is None else
            {"choice": self.response[0], "value": self.response[1], "clause": self.response[2]},
            "dice": self.dice, "outcome": self.outcome, **with_float("value", self.value),
            **with_float("means", self.means), **with_float("events", self.events), "exact": self.exact,
        }


@dataclass(frozen=True)
class Refused:
    """An attacker and enemy the rules keep apart whatever the choices, with the clauses that do."""

    attacker: str
    target: str
    refusals: tuple[Refusal, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"attacker": self.attacker, "target": self.target, "refusals": [r.to_dict() for r in self.refusals]}


@dataclass(frozen=True)
class NotComputed:
    """A legal attack whose odds the game does not compute (``limit`` says why): listed, not ranked."""

    attacker: str
    target: str
    choices: tuple[tuple[str, str], ...]
    limit: str

    def to_dict(self) -> dict[str, Any]:
        return {"attacker": self.attacker, "target": self.target, "choices": dict(self.choices),
                "limit": self.limit}


@dataclass(frozen=True)
class Advised:
    """The whole answer: the ranked attacks, best first, and the pairs left out with why."""

    ruleset: str
    side: str
    outcome: str
    is_event: bool
    ranked: tuple[Advice, ...]
    refused: tuple[Refused, ...] = ()
    not_computed: tuple[NotComputed, ...] = ()
    pairs: int = 0
    checks: int = field(default=0, compare=False)
    #: Where the game's outcomes hold only given an event, the words saying so, by outcome (Bushido:
    #: ``success_level`` "given a hit" [BU-6.3]); a mean of one is a mean given that event.
    conditions: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self, refused: bool = True) -> dict[str, Any]:
        """JSON-ready; ``refused`` False leaves the refused pairs out (their count stays)."""
        return {
            "ruleset": self.ruleset, "side": self.side, "outcome": self.outcome,
            "value_is": "probability" if self.is_event else "mean", "pairs": self.pairs,
            "conditions": dict(self.conditions),
            "ranked": [a.to_dict() for a in self.ranked],
            "not_computed": [n.to_dict() for n in self.not_computed],
            "refused_count": len(self.refused),
            **({"refused": [r.to_dict() for r in self.refused]} if refused else {}),
        }


def outcome_of(ruleset: Ruleset[Any, Any], outcome: str | None) -> tuple[str, bool]:
    """The outcome to rank by and whether it is an event: the game's main one when none is named; a name the
    game does not report is bad input, the allowed ones named."""
    if outcome is None:
        return ruleset.main_outcome, False
    if outcome in ruleset.outcome_names:
        return outcome, False
    if outcome in ruleset.event_names:
        return outcome, True
    raise RangefireError(f"{ruleset.key} has no outcome {outcome!r} to rank by: its outcomes are "
                         f"{', '.join(ruleset.outcome_names)}; its events {', '.join(ruleset.event_names)}")


def advise(ruleset: Ruleset[Any, Any], battle: Any, side: str, outcome: str | None = None) -> Advised:
    """Every legal attack of ``side``'s units on every enemy, ranked (see the module's text for the choices
    and the order). Raises :class:`RangefireError` for a side not in the battle or an outcome the game does not
    report, :class:`LimitError` for more pairs or checks than one ask weighs (:data:`MAX_CHECKS`,
    ``targets.MAX_PAIRS``)."""
    name, is_event = outcome_of(ruleset, outcome)
    attackers = attackers_of(ruleset, battle, side=side)
    enemies = {uid: ruleset.enemies(battle, uid) for uid in attackers}
    pairs = sum(len(found) for found in enemies.values())
    if pairs > MAX_PAIRS:
        raise LimitError(f"side {side} has {pairs} attacker and enemy pairs; advice weighs at most {MAX_PAIRS} "
                         "in one ask (each pair is a check of the game and its odds)")
    weigher = _Weigher(ruleset, battle, name, is_event)
    found: list[tuple[tuple[Any, ...], Advice]] = []
    refused: list[Refused] = []
    not_computed: list[NotComputed] = []
    place = {uid: i for i, uid in enumerate(ruleset.unit_ids(battle))}
    every = [(uid, enemy) for uid in attackers for enemy in enemies[uid]]
    for (uid, enemy), (best, refusals, limits) in zip(every, weigher.pairs(every), strict=True):
        not_computed += limits
        if best is None:
            if refusals:
                refused.append(Refused(uid, enemy, refusals))
            continue
        # ties keep the file order of attacker and target (the choices' order is settled in the pair)
        found.append(((-best.value, place[uid], place[enemy]), best))
    found.sort(key=lambda item: item[0])
    ranked = tuple(replace(a, rank=i) for i, (_, a) in enumerate(found, start=1))
    return Advised(ruleset.key, side, name, is_event, ranked, tuple(refused), tuple(not_computed), pairs,
                   weigher.checks, dict(ruleset.conditions))


@dataclass(frozen=True)
class _Grid:
    """The attacker's choices in two layers: every combination of the ``enum`` values (checked with the rest
    left to the engine), and every combination of the ``side`` values (tried under a legal one), each in the
    order declared. Choices of other kinds are the opponent's or the game's (see the module's text)."""

    first: tuple[tuple[tuple[str, str], ...], ...]
    side_names: tuple[str, ...]
    side_values: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, ruleset: Ruleset[Any, Any]) -> _Grid:
        enums = [c for c in ruleset.choices if c.kind == "enum" and c.allowed]
        sides = [c for c in ruleset.choices if c.kind == "side" and c.allowed]
        first = tuple(tuple(zip([c.name for c in enums], values, strict=True))
                      for values in itertools.product(*(c.allowed for c in enums)))
        return cls(first, tuple(c.name for c in sides),
                   tuple(itertools.product(*(c.allowed for c in sides))) if sides else ())


class _Weigher:
    """Weighs the candidate attacks of every pair; counts the checks made against :data:`MAX_CHECKS`."""

    def __init__(self, ruleset: Ruleset[Any, Any], battle: Any, outcome: str, is_event: bool) -> None:
        self.ruleset, self.battle, self.outcome, self.is_event = ruleset, battle, outcome, is_event
        grid = _Grid.of(ruleset)
        self.first, self.side_names, self.side_values = grid.first, grid.side_names, grid.side_values
        self.checks = 0
        # each distribution's mean once: a game may hand the same distribution to many plans (Bushido keeps its
        # odds by the dice); kept by identity, with the distribution, so no id is reused while the memo lives
        self._means: dict[int, tuple[Any, Fraction]] = {}

    def _check_many(self, attacks: list[Attack]) -> list[Check]:
        """The game's checks of these attacks, asked together (a game shares the work of one battle's checks)."""
        self.checks += len(attacks)
        if self.checks > MAX_CHECKS:
            raise LimitError(f"advice checks at most {MAX_CHECKS} candidate attacks in one ask; this side's "
                             "units and their choices need more")
        return self.ruleset.check_many(self.battle, attacks)

    def pairs(self, pairs: list[tuple[str, str]]) -> list[tuple[Advice | None, tuple[Refusal, ...],
                                                               list[NotComputed]]]:
        """For each (attacker, enemy) pair: its best attack (None where none is legal or none has odds), the
        refusals of the attack with every choice left to the engine, and the legal choices whose odds were not
        computed. The checks are asked in three rounds, each for every pair at once: the attacks with every
        choice left to the engine; with each combination of the fixed-value choices; with each combination of
        sides under a legal one. The same checks as pair by pair, so the same answers and the same count."""
        layers = self.first or [()]
        defaults = self._check_many([Attack(a, e) for a, e in pairs])
        given_asks = [(n, given) for n in range(len(pairs)) for given in layers if given]
        given_checks = self._check_many([Attack(*pairs[n], given) for n, given in given_asks])
        checked: dict[tuple[int, Chosen], Check] = {(n, ()): defaults[n] for n in range(len(pairs))}
        checked.update(zip(given_asks, given_checks, strict=True))
        side_asks = [(n, (*given, *zip(self.side_names, values, strict=True)))
                     for n in range(len(pairs)) for given in layers if checked[(n, given)].plan is not None
                     for values in (self.side_values if self.side_names else ())]
        checked.update(zip(side_asks, self._check_many([Attack(*pairs[n], chosen) for n, chosen in side_asks]),
                           strict=True))
        return [self._pair(n, attacker, enemy, layers, checked) for n, (attacker, enemy) in enumerate(pairs)]

    def _pair(self, n: int, attacker: str, enemy: str, layers: Sequence[Chosen],
              checked: Mapping[tuple[int, Chosen], Check]) -> tuple[
                  Advice | None, tuple[Refusal, ...], list[NotComputed]]:
        """The best attack of pair ``n`` from its checks, weighed in the order declared."""
        refusals: tuple[Refusal, ...] = checked[(n, ())].refusals
        best: Advice | None = None
        limits: list[NotComputed] = []
        for given in layers:
            plan_of_given = checked[(n, given)].plan
            if plan_of_given is None:
                continue
            if not self.side_names:
                candidates = [(given, plan_of_given)]
            else:
                candidates = []
                for values in self.side_values:
                    chosen = (*given, *zip(self.side_names, values, strict=True))
                    explicit = checked[(n, chosen)]
                    if explicit.plan is not None:
                        candidates.append((chosen, explicit.plan))
            for chosen, plan in candidates:
                weighed = self._weigh(attacker, enemy, chosen, plan)
                if isinstance(weighed, NotComputed):
                    limits.append(weighed)
                elif best is None or weighed.value > best.value:  # ties keep the first in declared order
                    best = weighed
        return best, (refusals if best is None and not limits else ()), limits

    def odds(self, plan: Plan) -> Odds | str:
        """The game's odds of a plan, or the reason it gives for not computing them."""
        try:
            return self.ruleset.odds(plan)
        except LimitError as exc:
            return str(exc)

    def _weigh(self, attacker: str, enemy: str, chosen: tuple[tuple[str, str], ...],
               plan: Plan) -> Advice | NotComputed:
        odds = self.odds(plan)
        if isinstance(odds, str):
            return NotComputed(attacker, enemy, chosen, odds)
        # the target's player answers with the nomination (or none) that gives the least [BU-4.2]
        answer: tuple[str, str, str] | None = None
        shot, value = odds, self.value_of(odds)
        nominations = [c for c in self.ruleset.choices if c.kind == "unit"]
        for uid, other in odds.alternatives.items():
            other_value = self.value_of(other)
            if other_value < value:
                shot, value = other, other_value
                choice = nominations[0] if nominations else None
                answer = (choice.name if choice else "nomination", uid, choice.clause if choice else "")
        return Advice(
            rank=0, attacker=attacker, side=self.ruleset.side_of(self.battle, attacker), target=enemy,
            target_side=self.ruleset.side_of(self.battle, enemy), fired_at=shot.plan.target, choices=chosen,
            response=answer, dice=shot.plan.dice_text(), outcome=self.outcome, value=value,
            means={k: self.mean(d) for k, d in shot.outcomes.items()}, events=dict(shot.events), exact=shot.exact)

    def value_of(self, odds: Odds) -> Fraction:
        """The expected value ranked by: an outcome's mean, an event's probability."""
        if self.is_event:
            return Fraction(odds.events[self.outcome])
        return self.mean(odds.outcomes[self.outcome])

    def mean(self, dist: Any) -> Fraction:
        """A distribution's mean (as its ``to_dict`` gives it), worked out once for each distribution object."""
        kept = self._means.get(id(dist))
        if kept is None:
            kept = self._means[id(dist)] = (dist, _mean(dist))
        return kept[1]


def _mean(dist: Any) -> Fraction:
    return Fraction(dist.to_dict()["mean"])


__all__ = ["MAX_CHECKS", "Advice", "Advised", "NotComputed", "Refused", "advise", "outcome_of"]
