"""Results as data: refusals, modifiers, log lines, plans, odds and resolutions.

Every value is immutable. The command line and any embedding program only render them; ``to_dict`` gives
the JSON shape fixed by the design (probabilities as exact fraction strings, each with its float beside it under
``KEY_float``, for drawing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from fractions import Fraction
from typing import Any, Generic, Protocol

from typing_extensions import TypeVar

from rangefire.core.errors import ChoiceError
from rangefire.core.numbers import with_float

#: The version of every JSON output's shape (the ``format`` key): raised when a key changes meaning or goes away,
#: not when one is added.
FORMAT = 1


class Distribution(Protocol):
    """The exact distribution of an integer-valued outcome, as a result holds it (``rangefire.dice.Dist`` of
    whole numbers is one): each value's probability, the mean and the tail, exactly, and the JSON shape."""

    def outcomes(self) -> list[int]:
        """The values the outcome can take, in order."""
        ...

    def probability(self, outcome: int) -> Fraction:
        """The exact probability of exactly this value (0 for a value it cannot take)."""
        ...

    def probabilities(self) -> dict[int, Fraction]:
        """Every value's exact probability, in order; they sum to 1."""
        ...

    def at_least(self, threshold: int) -> Fraction:
        """The exact probability of this value or more."""
        ...

    def mean(self) -> Fraction:
        """The expected value, exactly."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract: ``{"distribution": {"0": "16/81", ...}, "mean": "4/3", ...}``."""
        ...


@dataclass(frozen=True)
class Refusal:
    """Why an attack may not be made, with the clause that forbids it.

    >>> Refusal("DC-2.4", "target is 21 in away; beyond 20 in nobody fires")
    Refusal('DC-2.4', 'target is 21 in away; beyond 20 in nobody fires')
    """

    clause: str
    reason: str

    def __repr__(self) -> str:
        return f"Refusal({self.clause!r}, {self.reason!r})"

    def __str__(self) -> str:
        return f"{self.reason} [{self.clause}]"

    def to_dict(self) -> dict[str, str]:
        return {"clause": self.clause, "reason": self.reason}


@dataclass(frozen=True)
class Modifier:
    """A change to a roll, with its clause: ``Modifier("DC-3.3", -1, "firer is disordered")``.

    >>> str(Modifier("DC-3.3", -1, "firer is disordered"))
    '-1 firer is disordered [DC-3.3]'
    """

    clause: str
    delta: int
    reason: str

    def __repr__(self) -> str:
        return f"Modifier({self.clause!r}, {self.delta!r}, {self.reason!r})"

    def __str__(self) -> str:
        return f"{self.delta:+d} {self.reason} [{self.clause}]"

    def to_dict(self) -> dict[str, Any]:
        return {"clause": self.clause, "delta": self.delta, "reason": self.reason}


@dataclass(frozen=True)
class LogLine:
    """One step of a resolution, with the clause it applies."""

    clause: str
    text: str

    def __repr__(self) -> str:
        return f"LogLine({self.clause!r}, {self.text!r})"

    def __str__(self) -> str:
        return f"[{self.clause}] {self.text}"

    def to_dict(self) -> dict[str, str]:
        return {"clause": self.clause, "text": self.text}


#: The kinds of player choice: one of fixed values (``enum``), a side of a unit's base (``side``), a unit of the
#: battle (``unit``), a line of play: actions in order, each ``player:action`` (``actions``).
CHOICE_KINDS = ("enum", "side", "unit", "actions")

#: A line of play holds at most this many actions (a played-out combat needs a few dozen at the most).
MAX_ACTIONS = 1000


@dataclass(frozen=True)
class Choice:
    """A decision the rules leave to a player beyond attacker and target, as data: each game declares its own
    (``Ruleset.choices``), the command line makes its options from them, and a program offers the same.

    ``allowed`` holds the fixed values; it is empty where they depend on the battle (``Ruleset.allowed_values``
    gives those). ``read`` checks a value against the declaration and gives it as the game reads it.

    >>> order = Choice("order", "enum", ("ranged", "close"), "the order given", "AL-8.1")
    >>> order.read("close")
    'close'
    >>> order.read("clse")
    Traceback (most recent call last):
    ...
    rangefire.core.errors.ChoiceError: order: 'clse' is not one of ranged, close
    >>> Choice("actions", "actions").read("attacker:pass,defender:pass")
    ('attacker:pass', 'defender:pass')
    """

    name: str
    kind: str
    allowed: tuple[str, ...] = ()
    help: str = ""
    clause: str = ""

    def __post_init__(self) -> None:
        if self.kind not in CHOICE_KINDS:
            raise ValueError(f"choice {self.name}: kind {self.kind!r} is not one of {', '.join(CHOICE_KINDS)}")

    def read(self, value: object) -> str | tuple[str, ...]:
        """The value as the game reads it (a line of play as a tuple of actions; given as text, the actions are
        separated by commas); a value of the wrong type, or not one of ``allowed``, raises :class:`ChoiceError`."""
        if self.kind == "actions":
            items = [a for a in value.split(",") if a.strip()] if isinstance(value, str) else value
            if not isinstance(items, list | tuple):
                raise ChoiceError(self.name, f"{self.name}: must be a line of play (actions in order), "
                                             f"got {_brief(value)}")
            if len(items) > MAX_ACTIONS:
                raise ChoiceError(self.name, f"{self.name}: at most {MAX_ACTIONS} actions, got {len(items)}")
            for i, item in enumerate(items, start=1):
                if not isinstance(item, str):
                    raise ChoiceError(self.name, f"{self.name}: action {i} must be text, got {_brief(item)}")
            return tuple(items)
        if not isinstance(value, str):
            raise ChoiceError(self.name, f"{self.name}: must be text, got {_brief(value)}")
        if self.allowed and value not in self.allowed:
            raise ChoiceError(self.name, f"{self.name}: {_brief(value)} is not one of {', '.join(self.allowed)}")
        return value

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "allowed": list(self.allowed), "help": self.help,
                "clause": self.clause}


def _brief(value: object) -> str:
    """A value as a message shows it: its repr, cut short (a hostile value may be megabytes long)."""
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


@dataclass(frozen=True)
class NextChoice:
    """The next choice a player makes in an attack played as a sequence of choices (an action in a line of play,
    the nomination of another target): ``side`` is the side whose player makes it, as ``Ruleset.sides`` and
    ``Ruleset.side_of`` name it (so that a program can ask that player and no other); ``who`` says the same for
    people (``"blue (the target's player)"``); ``name`` is the :class:`Choice` the answer goes into, ``allowed``
    the answers open, ``clause`` the rule that gives the choice to that player; ``question`` what is asked, for
    people, as what the player does (``"take an action or pass"``); ``labels`` each answer of ``allowed`` in
    the same order as people read it (``"play Smoke Screen: +10 speed"`` for ``defender:play:smoke-screen``),
    the answers themselves where a game gives none."""

    side: str
    who: str
    name: str
    allowed: tuple[str, ...]
    clause: str
    question: str = ""
    labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.labels and len(self.labels) != len(self.allowed):
            raise ValueError(f"{len(self.labels)} labels for {len(self.allowed)} answers: one label per answer")

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "who": self.who, "side": self.side, "allowed": list(self.allowed),
                "labels": list(self.labels or self.allowed), "clause": self.clause,
                "question": self.question or f"choose {self.name.replace('_', ' ')}"}


@dataclass(frozen=True)
class Attack:
    """What the player asks for: this attacker, at this target (``None`` where the rules choose it).

    ``choices`` holds what some games let the player decide beyond that (a line of play, the sides to
    use, a redirection), by the name of the game's :class:`Choice`; ``Ruleset.attack`` builds one checked
    against the game's declaration.
    """

    attacker: str
    target: str | None = None
    choices: tuple[tuple[str, Any], ...] = ()

    def choice(self, name: str, default: Any = None) -> Any:
        return dict(self.choices).get(name, default)


@dataclass(frozen=True)
class Plan:
    """Everything decided before a die is rolled.

    Rulesets subclass it with their own fields; ``details`` returns those as JSON-ready data.
    """

    ruleset: str
    attacker: str
    target: str
    modifiers: tuple[Modifier, ...] = ()
    notes: tuple[LogLine, ...] = ()

    def details(self) -> dict[str, Any]:
        """Ruleset-specific fields, JSON-ready."""
        return {}

    def dice_text(self) -> str:
        """The dice in a few words and what they need (``8 dice, natural 5+, saves 4+``); games say their own."""
        return ""

    def summary(self) -> list[tuple[str, str]]:
        """Rows for people: (what, value). By default the scalar details."""
        return [(k.replace("_", " "), str(v)) for k, v in self.details().items()
                if not isinstance(v, dict | list | tuple) and v is not None]

    def to_dict(self) -> dict[str, Any]:
        return {
            "attacker": self.attacker,
            "target": self.target,
            "modifiers": [m.to_dict() for m in self.modifiers],
            "notes": [n.to_dict() for n in self.notes],
            **self.details(),
        }


#: The plan type of a result: a game's own (``Check[VolleyPlan]``, ``Odds[VolleyPlan]``); a result of any game is
#: one of :class:`Plan`.
PlanT = TypeVar("PlanT", bound=Plan, default=Plan, covariant=True)


@dataclass(frozen=True)
class Check(Generic[PlanT]):
    """The answer to "may this attack be made?": a plan, or the refusals (never both, never neither). ``plan`` is
    of the game's own plan type (``Ruleset.check`` of a game whose plans are ``VolleyPlan`` gives a
    ``Check[VolleyPlan]``)."""

    attacker: str
    target: str | None
    plan: PlanT | None = None
    refusals: tuple[Refusal, ...] = ()

    def __post_init__(self) -> None:
        if (self.plan is None) == (not self.refusals):
            raise ValueError("a Check holds either a plan or refusals")

    @property
    def is_legal(self) -> bool:
        return self.plan is not None

    def to_dict(self, ruleset: str) -> dict[str, Any]:
        return {
            "ruleset": ruleset,
            "attacker": self.attacker,
            "target": self.target,
            "legal": self.is_legal,
            "refusals": [r.to_dict() for r in self.refusals],
            "plan": self.plan.to_dict() if self.plan else None,
        }


@dataclass(frozen=True)
class LineOfPlay:
    """One line of play and what it comes to: the chance the attacker wins and the damage dealt."""

    actions: tuple[str, ...]
    attacker_wins: Fraction
    damage: Distribution

    def to_dict(self) -> dict[str, Any]:
        return {"actions": list(self.actions), **with_float("attacker_wins", self.attacker_wins),
                "damage": self.damage.to_dict()}


@dataclass(frozen=True)
class LinesOfPlay:
    """For a game played as a sequence of actions: the best line (each side maximising its own chance), the
    attacker's chance before any action, and the lines open to the players (``cut`` when only the first are
    listed)."""

    best_line: tuple[str, ...]
    value_before_actions: Fraction
    lines: tuple[LineOfPlay, ...]
    cut: bool

    def to_dict(self) -> dict[str, Any]:
        return {"best_line": list(self.best_line), **with_float("value_before_actions", self.value_before_actions),
                "lines": [line.to_dict() for line in self.lines], "lines_cut": self.cut}


@dataclass(frozen=True)
class Odds(Generic[PlanT]):
    """Exact distributions of the named outcomes and probabilities of the named events, with the game's own plan
    (``Ruleset.odds`` of a game whose plans are ``VolleyPlan`` gives an ``Odds[VolleyPlan]``).

    ``exact`` is False only when the numbers are a Monte Carlo estimate, which ``estimate`` then describes.
    ``alternatives`` holds the odds were the attack aimed at another target the rules let the defender choose
    (the defender's nominations, by the unit's id; JSON key ``nominations``); ``lines`` the lines of play of a game
    played as a sequence of actions.
    """

    plan: PlanT
    outcomes: Mapping[str, Distribution]
    events: Mapping[str, Fraction]
    exact: bool = True
    estimate: Mapping[str, Any] | None = None
    alternatives: Mapping[str, Odds[PlanT]] = field(default_factory=dict)
    lines: LinesOfPlay | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ruleset": self.plan.ruleset,
            "attacker": self.plan.attacker,
            "target": self.plan.target,
            "legal": True,
            "refusals": [],
            "plan": self.plan.to_dict(),
            **self._distributions(),
            "exact": self.exact,
        }
        if self.estimate is not None:
            out["estimate"] = dict(self.estimate)
        if self.alternatives:
            out["nominations"] = {uid: {"plan": alt.plan.to_dict(), **alt._distributions()}
                                  for uid, alt in self.alternatives.items()}
        if self.lines is not None:
            out.update(self.lines.to_dict())
        return out

    def _distributions(self) -> dict[str, Any]:
        return {"outcomes": {name: dist.to_dict() for name, dist in self.outcomes.items()},
                **with_float("events", self.events)}


@dataclass(frozen=True)
class Outcome:
    """What one attack came to. Each game subclasses it (frozen) with the fields its resolution reports, named as
    its outcomes and events (design section 5) plus what applying it needs.

    ``to_dict`` gives the fields in their order, JSON-ready; a field that is None is one the game reports only in
    some attacks, and is left out.
    """

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if value is not None:
                out[item.name] = list(value) if isinstance(value, tuple) else value
        return out


OutcomeT = TypeVar("OutcomeT", bound=Outcome, default=Outcome)


@dataclass(frozen=True)
class Resolution(Generic[OutcomeT, PlanT]):
    """One attack played out: the dice by stage, every step logged by clause, and the game's typed outcome and
    plan (``Resolution[DressOutcome, VolleyPlan]``; ``Resolution[DressOutcome]`` where the plan's type does not
    matter)."""

    plan: PlanT
    log: tuple[LogLine, ...]
    dice: Mapping[str, tuple[int, ...]]
    outcome: OutcomeT

    def to_dict(self) -> dict[str, Any]:
        return {
            "ruleset": self.plan.ruleset,
            "attacker": self.plan.attacker,
            "target": self.plan.target,
            "log": [line.to_dict() for line in self.log],
            "dice": {stage: list(values) for stage, values in self.dice.items()},
            "outcome": self.outcome.to_dict(),
        }
