"""The shapes of the JSON outputs (``check``, ``odds``, ``resolve``) as pydantic models: the contract of design
section 5 in a form a program can check, and whose JSON Schema ``rangefire schema --output`` prints.

:mod:`rangefire.core.outputs` builds the outputs themselves. The models are strict: a key they do not name,
or a value of the wrong type, fails validation. What is common to every game is typed here; what each game adds
to its plan (its own details), to a resolution's outcome, and the scenario written back under ``battle`` are
JSON values whose shape the game defines (the scenario's JSON Schema is ``rangefire schema GAME``).

>>> from rangefire.core import Check, Refusal
>>> from rangefire.core.outputs import check_output
>>> data = check_output("a-game", Check("a", "b", refusals=(Refusal("DC-2.4", "too far"),)))
>>> CheckOutput.model_validate(data).refusals[0].clause
'DC-2.4'
>>> CheckOutput.model_validate({**data, "surprise": 1})
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for CheckOutput
surprise
  Extra inputs are not permitted ...
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, create_model

from rangefire.core.types import FORMAT

#: An exact probability as the contract writes it: "0", "1" or "n/d" in lowest terms.
Probability = Annotated[str, Field(pattern=r"^(0|1|[1-9][0-9]*/[1-9][0-9]*)$", examples=["16/81"])]
#: An exact rational number (a mean): "4/3", "2", "-1/2".
Rational = Annotated[str, Field(pattern=r"^-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?$", examples=["4/3"])]
#: A whole-number value of an outcome, written as a JSON key: "0", "3", "-1".
WholeKey = Annotated[str, Field(pattern=r"^-?(0|[1-9][0-9]*)$")]
#: A clause of the rules: "DC-2.4".
Clause = Annotated[str, Field(min_length=1, examples=["DC-2.4"])]


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class RefusalOut(_Out):
    """Why an attack may not be made."""

    clause: Clause
    reason: str


class ModifierOut(_Out):
    """A change to a roll, with its clause."""

    clause: Clause
    delta: int
    reason: str


class LogLineOut(_Out):
    """A step of a plan or a resolution, with its clause."""

    clause: Clause
    text: str


class PlanOut(BaseModel):
    """Everything decided before a die is rolled; besides these keys, the game's own details (JSON values)."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)
    __pydantic_extra__: dict[str, JsonValue] = Field(init=False)

    attacker: str
    target: str
    modifiers: list[ModifierOut]
    notes: list[LogLineOut]


class DistributionOut(_Out):
    """An integer-valued outcome: the exact probability of each value, and the mean; beside them its spread and
    its tails."""

    distribution: dict[WholeKey, Probability]
    mean: Rational
    variance: Rational = Field(description="exact: the mean square distance from the mean")
    sd: float = Field(description="the standard deviation: the square root of the variance, not exact")
    median: Rational = Field(description="the least value with at least half the probability at or below it")
    percentile_90: Rational = Field(description="the least value with at least 9/10 of the probability at or "
                                                "below it")
    at_least: dict[WholeKey, Probability] = Field(description="for each value, the probability of it or more")
    at_most: dict[WholeKey, Probability] = Field(description="for each value, the probability of it or less")


class CandidateOut(_Out):
    """A possible target when ``check`` names none (the rows of ``targets``)."""

    attacker: str
    side: str | None
    target: str
    target_side: str | None
    legal: bool
    refusals: list[RefusalOut]
    dice: str | None
    outcome: str | None
    mean: Rational | None
    exact: bool | None
    estimate: dict[str, JsonValue] | None
    limit: str | None
    chosen: bool
    chosen_by: str | None


class HouseRuleOut(_Out):
    """An option the battle sets away from the rules' value (``rangefire rulesets GAME`` lists them all)."""

    path: str = Field(description="where the scenario holds it, e.g. options.cover_save.light")
    value: JsonValue
    default: JsonValue = Field(description="the rules' value")
    clause: str


class _Attack(_Out):
    format: Literal[1] = Field(description="the version of this shape (rangefire.core.FORMAT)")
    ruleset: str
    attacker: str
    target: str | None
    house_rules: list[HouseRuleOut] = Field(description="the options set away from the rules' values")


class HiddenOut(_Out):
    """What is kept from the side an answer was worked out for (``--side``, or a side's token over HTTP): each
    hand of cards it may not see, by its size [SW-1.4]."""

    hands: dict[str, int]
    note: str


class CheckOutput(_Attack):
    """``check --json``: the plan, or the refusals with their clauses (and without a target named where the
    rules choose none, every candidate)."""

    legal: bool
    refusals: list[RefusalOut]
    plan: PlanOut | None
    candidates: list[CandidateOut] | None = None
    hidden: HiddenOut | None = Field(None, description="what is kept from the side it was worked out for")


class LineOut(_Out):
    """One line of play (a game decided by the players' actions) and what it leads to."""

    actions: list[str]
    attacker_wins: Probability
    damage: DistributionOut


class NominationOut(_Out):
    """The odds if the target's player nominates another model as the target (a game that lets them)."""

    plan: PlanOut
    outcomes: dict[str, DistributionOut]
    events: dict[str, Probability]


class OddsOutput(CheckOutput):
    """``odds --json``: the exact distribution of every named outcome and the probability of every named event
    (``exact`` false only for a labelled Monte Carlo estimate, described under ``estimate``)."""

    outcomes: dict[str, DistributionOut]
    events: dict[str, Probability]
    exact: bool
    estimate: dict[str, JsonValue] | None = None
    nominations: dict[str, NominationOut] | None = Field(
        None, description="the odds of each model the target's player may nominate instead")
    best_line: list[str] | None = Field(None, description="the line of play under best play by both sides")
    value_before_actions: Probability | None = Field(None, description="the attacker's chance before the actions")
    lines: list[LineOut] | None = Field(None, description="the lines of play and their odds")
    lines_cut: bool | None = Field(None, description="whether the list of lines was cut short")


#: A value of an outcome of a resolution: a number of hits or wounds, whether an event happened, a name, names
#: (the cards a combat spent).
OutcomeValue = int | bool | str | list[str] | None


class ResolveOutput(_Attack):
    """``resolve --json``: every die by stage, every step by clause, the outcome (the names of ``odds``), the
    seed (None for entered dice) and the battle after the attack (a scenario, readable by every command)."""

    target: str
    log: list[LogLineOut]
    dice: dict[str, list[int]]
    outcome: dict[str, OutcomeValue]
    seed: int | None
    battle: dict[str, JsonValue]


def outcome_type(ruleset: type[Any]) -> type[Any] | None:
    """The outcome type a game's class resolves to (``Ruleset[Battle, Plan, DressOutcome]``), None if unknown."""
    for klass in ruleset.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            args = typing.get_args(base)
            if len(args) == 3 and isinstance(args[2], type) and dataclasses.is_dataclass(args[2]):
                return args[2]
    return None


def outcome_model(outcome: type[Any]) -> type[BaseModel]:
    """A strict model of a game's outcome as its ``to_dict`` writes it: each field with its type, a tuple as a
    list; a field that may be None is left out when it is, so it is optional.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Volley:
    ...     hits: int
    ...     fled: bool | None
    >>> sorted(outcome_model(Volley).model_json_schema()["required"])
    ['hits']
    """
    hints = typing.get_type_hints(outcome)
    fields: dict[str, Any] = {}
    for item in dataclasses.fields(outcome):
        kind = hints[item.name]
        if typing.get_origin(kind) is tuple:
            kind = list[typing.get_args(kind)[0]]  # type: ignore[misc]
        optional = type(None) in typing.get_args(kind)
        fields[item.name] = (kind, None) if optional else (kind, ...)
    model: type[BaseModel] = create_model(outcome.__name__, __config__=_Out.model_config, **fields)
    return model


def resolve_model(ruleset: type[Any]) -> type[BaseModel]:
    """``resolve --json`` of one game: :class:`ResolveOutput` with the game's own outcome in place of the
    generic one (the generic model where the game's outcome type is not known)."""
    outcome = outcome_type(ruleset)
    if outcome is None:
        return ResolveOutput
    model: type[BaseModel] = create_model(f"ResolveOutput{outcome.__name__}", __base__=ResolveOutput,
                                          outcome=(outcome_model(outcome), ...))
    return model


#: The outputs ``rangefire schema --output`` knows, by command.
OUTPUTS: dict[str, type[BaseModel]] = {"check": CheckOutput, "odds": OddsOutput, "resolve": ResolveOutput}


def output_schema(command: str, ruleset: type[Any] | None = None) -> dict[str, Any]:
    """The JSON Schema of a command's ``--json`` output; of one game's where its class is given (``resolve``:
    the game's own outcome).

    >>> output_schema("odds")["properties"]["format"]["const"]
    1
    """
    model = resolve_model(ruleset) if command == "resolve" and ruleset is not None else OUTPUTS[command]
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **model.model_json_schema()}


assert FORMAT == 1, "the output models pin format to 1: raise both together"
