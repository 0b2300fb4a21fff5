"""The shapes of every command's JSON output (``check``, ``odds``, ``resolve``, ``targets``, ``advise``,
``compare``, ``table``, ``duel``, ``replay`` and the error) as pydantic models: the contract of design section 5
in a form a program can check, and whose JSON Schema ``rangefire schema --output`` prints.

:mod:`rangefire.core.outputs` and the analyses build the outputs themselves. The models are strict: a key they do
not name, or a value of the wrong type, fails validation. What is common to every game is typed here. What a
game adds to its plan is typed by the game's own plan model: the models that hold a plan are generic in it
(``OddsOutput[PlanOut]``, any game's plan, is the default; :mod:`rangefire.rulesets.outputs` gives each game's,
``rangefire schema GAME --output odds`` prints it), and :func:`game_output` makes one game's model of an output;
a resolution's outcome is typed by the game's outcome type (:func:`resolve_model`). The scenario written back
under ``battle`` is the game's scenario (its JSON Schema is ``rangefire schema GAME``).

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
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, ClassVar, Generic, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, create_model, model_validator
from typing_extensions import TypeVar

from rangefire.core.exact_floats import as_float, check_floats, float_pairs
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
    #: Each exact field of the model and its float beside it (:mod:`rangefire.core.exact_floats`).
    __exact_floats__: ClassVar[tuple[tuple[str, str], ...]] = ()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls.__exact_floats__ = float_pairs(cls, __name__, {"WinnerOut": "WinnerFloatOut"})

    @model_validator(mode="after")
    def _floats_beside(self) -> Self:
        check_floats(self, self.__exact_floats__, self.model_fields_set)
        return self


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


class PlanBase(_Out):
    """The keys of every game's plan: the attacker and target, every modifier and every note with its clause. A
    game's plan model adds its own details to these (:mod:`rangefire.rulesets.outputs`)."""

    attacker: str
    target: str
    modifiers: list[ModifierOut]
    notes: list[LogLineOut]


class PlanOut(PlanBase):
    """Any game's plan: the keys every game's has, and besides them the game's own details (JSON values, typed by
    the game's plan model)."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)
    __pydantic_extra__: dict[str, JsonValue] = Field(init=False)


#: The plan a model of an output holds: a game's plan model, or by default :class:`PlanOut` (any game's).
PlanM = TypeVar("PlanM", bound=PlanBase, default=PlanOut)


class DistributionOut(_Out):
    """An integer-valued outcome: the exact probability of each value, and the mean; beside them its spread and
    its tails."""

    distribution: dict[WholeKey, Probability]
    distribution_float: dict[WholeKey, float] = as_float(each=True)
    mean: Rational
    mean_float: float = as_float(number=True)
    variance: Rational = Field(description="exact: the mean square distance from the mean")
    variance_float: float = as_float(number=True)
    sd: float = Field(description="the standard deviation: the square root of the variance, not exact")
    median: Rational = Field(description="the least value with at least half the probability at or below it")
    median_float: float = as_float(number=True)
    percentile_90: Rational = Field(description="the least value with at least 9/10 of the probability at or "
                                                "below it")
    percentile_90_float: float = as_float(number=True)
    at_least: dict[WholeKey, Probability] = Field(description="for each value, the probability of it or more")
    at_least_float: dict[WholeKey, float] = as_float(each=True)
    at_most: dict[WholeKey, Probability] = Field(description="for each value, the probability of it or less")
    at_most_float: dict[WholeKey, float] = as_float(each=True)


class _Sampled(_Out):
    method: Literal["monte carlo"]
    samples: int
    seed: int
    confidence: float
    why: str = Field(description="why the odds are estimated rather than worked out")


class MeanEstimateOut(_Out):
    """A sampled mean, rounded, and its 95% interval (rounded outwards)."""

    mean: float
    ci95: Annotated[list[float], Field(min_length=2, max_length=2)]


class EventEstimateOut(_Out):
    """A sampled probability, rounded, and its 95% interval (rounded outwards)."""

    estimate: float
    ci95: Annotated[list[float], Field(min_length=2, max_length=2)]


class EstimateOut(_Sampled):
    """How odds that are a labelled Monte Carlo estimate were sampled, and each outcome's mean and each
    event's probability with its 95% interval."""

    outcomes: dict[str, MeanEstimateOut]
    events: dict[str, EventEstimateOut]


class CandidateEstimateOut(_Sampled, MeanEstimateOut):
    """A target's mean that is a Monte Carlo estimate: how it was sampled, the mean and its 95% interval, and
    each event's probability with its interval."""

    events: dict[str, EventEstimateOut]


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
    mean_float: float | None = as_float(number=True)
    exact: bool | None
    estimate: CandidateEstimateOut | None = Field(description="where the mean is a Monte Carlo estimate: how it "
                                                            "was made and the mean's 95% interval")
    limit: str | None = Field(description="why the odds were not worked out (a search beyond its limit)")
    chosen: bool = Field(description="whether the rules choose this target (where they choose one)")
    chosen_by: str | None = Field(description="the clause under which they choose it")


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


class CheckOutput(_Attack, Generic[PlanM]):
    """``check --json``: the plan, or the refusals with their clauses (and without a target named where the
    rules choose none, every candidate)."""

    legal: bool
    refusals: list[RefusalOut]
    plan: PlanM | None
    candidates: list[CandidateOut] | None = None
    hidden: HiddenOut | None = Field(None, description="what is kept from the side it was worked out for")


class LineOut(_Out):
    """One line of play (a game decided by the players' actions) and what it leads to."""

    actions: list[str]
    attacker_wins: Probability
    attacker_wins_float: float = as_float()
    damage: DistributionOut


class NominationOut(_Out, Generic[PlanM]):
    """The odds if the target's player nominates another model as the target (a game that lets them)."""

    plan: PlanM
    outcomes: dict[str, DistributionOut]
    events: dict[str, Probability]
    events_float: dict[str, float] = as_float(each=True)


class OddsOutput(CheckOutput[PlanM], Generic[PlanM]):
    """``odds --json``: the exact distribution of every named outcome and the probability of every named event
    (``exact`` false only for a labelled Monte Carlo estimate, described under ``estimate``)."""

    outcomes: dict[str, DistributionOut]
    events: dict[str, Probability]
    events_float: dict[str, float] = as_float(each=True)
    exact: bool
    estimate: EstimateOut | None = None
    nominations: dict[str, NominationOut[PlanM]] | None = Field(
        None, description="the odds of each model the target's player may nominate instead")
    best_line: list[str] | None = Field(None, description="the line of play under best play by both sides")
    value_before_actions: Probability | None = Field(None, description="the attacker's chance before the actions")
    value_before_actions_float: float | None = as_float(None)
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


# -- the other commands ------------------------------------------------------------------------------------------
class TargetsOutput(_Out):
    """``targets --json``: every attacker of the side (or the one named) against every enemy, legal or not."""

    format: Literal[1]
    targets: list[CandidateOut]


class ResponseOut(_Out):
    """The opponent's answer an advice assumes (a nomination), with its clause."""

    choice: str
    value: str
    clause: Clause


class AdviceOut(_Out):
    """One attack the side may make, ranked by ``value``: the expected value of the outcome ranked by (an event's
    probability), beside every outcome's mean and every event's probability."""

    rank: int
    attacker: str
    side: str
    target: str = Field(description="the target declared")
    target_side: str
    fired_at: str = Field(description="the model the dice are rolled against (another where one is nominated)")
    choices: dict[str, str] = Field(description="the attacker's choices to make the attack as ranked")
    response: ResponseOut | None
    dice: str
    outcome: str
    value: Rational
    value_float: float = as_float(number=True)
    means: dict[str, Rational]
    means_float: dict[str, float] = as_float(number=True, each=True)
    events: dict[str, Probability]
    events_float: dict[str, float] = as_float(each=True)
    exact: bool


class RefusedPairOut(_Out):
    """An attacker and enemy the rules keep apart whatever the choices, with the clauses that do."""

    attacker: str
    target: str
    refusals: list[RefusalOut]


class NotComputedOut(_Out):
    """A legal attack whose odds the game does not work out (``limit`` says why): listed, not ranked."""

    attacker: str
    target: str
    choices: dict[str, str]
    limit: str


class AdviseOutput(_Out):
    """``advise --json``: every legal attack of a side ranked best first, the pairs whose odds are not worked
    out, and how many pairs the rules refuse (with ``--all``, each of them)."""

    format: Literal[1]
    ruleset: str
    side: str
    outcome: str = Field(description="the outcome (or event) the attacks are ranked by")
    value_is: Literal["mean", "probability"]
    pairs: int
    conditions: dict[str, str] = Field(description="the outcomes that hold only given an event, with the words")
    ranked: list[AdviceOut]
    not_computed: list[NotComputedOut]
    refused_count: int
    refused: list[RefusedPairOut] | None = Field(None, description="the refused pairs (with --all)")
    house_rules: list[HouseRuleOut]


class SettingOut(_Out):
    """A value set by path (``options.cover_save.heavy`` = 3)."""

    path: str
    value: JsonValue


class VariantOut(_Out, Generic[PlanM]):
    """One variant of a comparison: its settings, its check, and where the rules allow the attack its plan and
    exact odds."""

    name: str
    settings: list[SettingOut]
    legal: bool
    refusals: list[RefusalOut]
    plan: PlanM | None = None
    outcomes: dict[str, DistributionOut] | None = None
    events: dict[str, Probability] | None = None
    events_float: dict[str, float] | None = as_float(None, each=True)
    exact: bool | None = None
    house_rules: list[HouseRuleOut]


class SideBySideOut(_Out):
    """One value of every variant, and each one's difference from the baseline's (None where a variant, or the
    baseline, is refused)."""

    values: dict[str, Rational | None]
    values_float: dict[str, float | None] = as_float(number=True, each=True)
    differences: dict[str, Rational | None]
    differences_float: dict[str, float | None] = as_float(number=True, each=True)


class SideBySideFloatOut(_Out):
    """One float of every variant (a standard deviation), and each one's difference from the baseline's."""

    values: dict[str, float | None]
    differences: dict[str, float | None]


class CompareRowOut(_Out):
    """The odds of exactly ``n``, at least ``n`` and at most ``n`` under every variant."""

    n: int
    exactly: SideBySideOut
    at_least: SideBySideOut
    at_most: SideBySideOut


class CompareOutcomeOut(_Out):
    """One outcome under every variant: its mean, spread and tails, and a row per value it takes."""

    mean: SideBySideOut
    rows: list[CompareRowOut]
    variance: SideBySideOut
    sd: SideBySideFloatOut
    median: SideBySideOut
    percentile_90: SideBySideOut
    condition: str | None = Field(None, description="where the outcome holds only given an event, the words")


class CompareOutput(_Out, Generic[PlanM]):
    """``compare --json``: each variant's own odds, then per outcome and event the values side by side with the
    differences from the baseline."""

    format: Literal[1]
    ruleset: str
    attacker: str
    target: str | None
    baseline: str
    variants: list[VariantOut[PlanM]]
    outcomes: dict[str, CompareOutcomeOut]
    events: dict[str, SideBySideOut]


class AxisOut(_Out):
    """A path the table varies and its values."""

    path: str
    values: list[JsonValue]


class StatisticsOut(_Out):
    """An outcome of one row of a table: its mean, spread and tails."""

    mean: Rational
    mean_float: float = as_float(number=True)
    at_least: dict[WholeKey, Probability]
    at_least_float: dict[WholeKey, float] = as_float(each=True)
    variance: Rational
    variance_float: float = as_float(number=True)
    sd: float
    median: Rational
    median_float: float = as_float(number=True)
    percentile_90: Rational
    percentile_90_float: float = as_float(number=True)
    at_most: dict[WholeKey, Probability]
    at_most_float: dict[WholeKey, float] = as_float(each=True)


class TableRowOut(_Out):
    """One combination of the values: the attack's check, and where it is legal its exact odds."""

    settings: dict[str, JsonValue]
    legal: bool
    target: str | None
    refusals: list[RefusalOut]
    outcomes: dict[str, StatisticsOut] | None = None
    events: dict[str, Probability] | None = None
    events_float: dict[str, float] | None = as_float(None, each=True)
    exact: bool | None = None
    estimate: EstimateOut | None = None


class TableOutput(_Out):
    """``table --json``: the odds of one attack for every combination of the values varied, a row each."""

    format: Literal[1]
    ruleset: str
    attacker: str
    target: str | None
    axes: list[AxisOut]
    combinations: int
    plans_worked_out: int = Field(description="the distinct plans worked out (equal plans are worked out once)")
    rows: list[TableRowOut]
    conditions: dict[str, str] | None = None


class WinnerOut(_Out):
    """The probability of each end: ``a`` or ``b`` left standing, ``both`` destroyed together, ``neither``
    destroyed (within the turn limit, or ever)."""

    a: Probability
    b: Probability
    both: Probability
    neither: Probability
    #: its probabilities' floats are beside it, as a mapping's are (``winner_float``, :class:`WinnerFloatOut`)
    __floats_beside_it__: ClassVar[bool] = True


class WinnerFloatOut(_Out):
    """The floats of :class:`WinnerOut`'s probabilities, for drawing; not exact."""

    a: float
    b: float
    both: float
    neither: float


class TurnsOut(_Out):
    """The turn a duel ends in: its distribution, its mean, the turns stepped and the probability of an end
    after them."""

    distribution: dict[WholeKey, Probability]
    distribution_float: dict[WholeKey, float] = as_float(each=True)
    mean: Rational
    mean_float: float = as_float(number=True)
    stepped: int
    after: Probability
    after_float: float = as_float()


class EndOut(_Out):
    """When the duels of one end end: how likely that end is, the mean turn, the median and 90th percentile."""

    probability: Probability
    probability_float: float = as_float()
    mean: Rational | None
    mean_float: float | None = as_float(number=True)
    median: int | None
    p90: int | None


class LeftOut(_Out):
    """What is left of one unit at the end, its mean and its expected losses."""

    unit: str
    distribution: dict[WholeKey, Probability]
    distribution_float: dict[WholeKey, float] = as_float(each=True)
    mean: Rational
    mean_float: float = as_float(number=True)
    losses: Rational
    losses_float: float = as_float(number=True)


class SampledEndOut(_Out):
    """Of the sampled duels with one end: the mean turn, the median and the 90th percentile."""

    mean: float | None
    median: int | None
    p90: int | None


class DuelSampleOut(_Out):
    """A duel's Monte Carlo: shares of the duels sampled, each end's 95% interval."""

    exact: Literal[False]
    samples: int
    seed: int
    turn_limit: int | None
    first: str
    third_unit: str | None
    winner: dict[str, float]
    intervals: dict[str, Annotated[list[float], Field(min_length=2, max_length=2)]]
    turns: dict[WholeKey, float]
    ends: dict[str, SampledEndOut]
    left: dict[str, dict[WholeKey, float]]
    losses: dict[str, float]


class DuelOutput(_Out):
    """``duel --json``: the exact odds of each end of two units exchanging fire, when it comes and what each
    loses; with ``--samples`` a Monte Carlo beside them (``monte_carlo``); where the exact duel is too large,
    why (``exact_refused``) and the Monte Carlo alone."""

    format: Literal[1]
    ruleset: str
    a: str
    b: str
    turn_limit: int | None
    first: str
    third_unit: str | None
    exact: bool
    left_measure: str = Field(description="what is counted of a unit left (stands, hit points, wounds left...)")
    states: int | None = None
    assumptions: list[LogLineOut] | None = None
    winner: WinnerOut | None = None
    winner_float: WinnerFloatOut | None = as_float(None, each=True)
    undecided: Probability | None = None
    undecided_float: float | None = as_float(None)
    turns: TurnsOut | None = None
    ends: dict[str, EndOut] | None = None
    left: dict[str, LeftOut] | None = None
    refusals: dict[str, list[RefusalOut]] | None = None
    notes: dict[str, list[LogLineOut]] | None = None
    exact_refused: str | None = Field(None, description="why the duel is not worked out exactly")
    monte_carlo: DuelSampleOut | None = None
    plot: str | None = Field(None, description="the chart written")


class StepOut(_Out):
    """One action of a log replayed: its line, its kind and what it did."""

    line: int
    action: str
    summary: str


class ReplayOutput(_Out):
    """``replay --json``: every action replayed as recorded, the side to act after them and the battle rebuilt
    (a scenario, readable by every command)."""

    format: Literal[1]
    ruleset: str
    steps: list[StepOut]
    side_to_act: str | None
    battle: dict[str, JsonValue]


class ProblemOut(_Out):
    """A problem of a scenario: the place it concerns ("" the top level, None where it names none)."""

    path: str | None
    message: str


class ErrorOut(_Out):
    """An error as data: a stable ``kind``, the message, and where they apply the scenario place (``path``,
    every problem under ``problems``), the clause of a refusal (every refusal under ``refusals``), the choice
    or the command-line parameter at fault."""

    kind: str
    message: str
    path: str | None
    clause: str | None
    source: str | None = None
    problems: list[ProblemOut] | None = None
    refusals: list[RefusalOut] | None = None
    choice: str | None = None
    parameter: str | None = None


class ErrorOutput(_Out):
    """The error of any command with ``--json`` (on stdout, with the command's exit code)."""

    format: Literal[1]
    error: ErrorOut


def error_output(kinds: Sequence[str]) -> type[BaseModel]:
    """:class:`ErrorOutput` with ``kind`` one of ``kinds`` (the command line's are every error class's)."""
    kind: Any = Literal[tuple(kinds)]
    body: type[BaseModel] = create_model("ErrorOut", __base__=ErrorOut, kind=(kind, ...))
    model: type[BaseModel] = create_model("ErrorOutput", __base__=ErrorOutput, error=(body, ...))
    return model


#: The outputs of an attack (design section 5), by command.
OUTPUTS: dict[str, type[BaseModel]] = {"check": CheckOutput, "odds": OddsOutput, "resolve": ResolveOutput}

#: Every output ``rangefire schema --output`` knows, by command (``error``: the error of any command).
COMMAND_OUTPUTS: dict[str, type[BaseModel]] = {
    **OUTPUTS, "targets": TargetsOutput, "advise": AdviseOutput, "compare": CompareOutput, "table": TableOutput,
    "duel": DuelOutput, "replay": ReplayOutput, "error": ErrorOutput,
}

#: The outputs that hold a plan, and so are typed by the game's plan model.
WITH_PLAN = ("check", "odds", "compare")


def game_output(command: str, key: str, plan: type[PlanBase] | None = None,
                outcome: type[Any] | None = None) -> type[BaseModel]:
    """One game's model of a command's output: ``ruleset`` its key, its plans (``check``, ``odds``, ``compare``)
    of the game's plan model, a resolution's outcome of the game's outcome type.

    >>> class Volley(PlanBase):
    ...     band: str
    >>> model = game_output("odds", "a-game", Volley)
    >>> model.__name__, model.model_json_schema()["properties"]["ruleset"]["const"]
    ('AGameOddsOutput', 'a-game')
    """
    base = COMMAND_OUTPUTS[command]
    if plan is not None and command in WITH_PLAN:
        base = base[plan]  # type: ignore[index]  # the generic models take the plan model
    fields: dict[str, Any] = {}
    if "ruleset" in base.model_fields:
        fields["ruleset"] = (Literal[key], ...)
    if command == "resolve" and outcome is not None:
        fields["outcome"] = (outcome_model(outcome), ...)
    name = "".join(part.capitalize() for part in key.split("-")) + command.capitalize() + "Output"
    model: type[BaseModel] = create_model(name, __base__=base, **fields)
    return model


def output_schema(command: str, ruleset: type[Any] | None = None,
                  games: Mapping[str, type[BaseModel]] | None = None) -> dict[str, Any]:
    """The JSON Schema of a command's ``--json`` output; of one game's where its class is given (``resolve``:
    the game's own outcome). ``games``, each game's model of the output by key, are added as ``oneOf`` with the
    ``ruleset`` as discriminator: an output of any game holds to the common model and to its own game's.

    >>> output_schema("odds")["properties"]["format"]["const"]
    1
    """
    from pydantic.json_schema import models_json_schema

    model = resolve_model(ruleset) if command == "resolve" and ruleset is not None else COMMAND_OUTPUTS[command]
    if not games:
        return {"$schema": SCHEMA, **model.model_json_schema()}
    _, found = models_json_schema([(m, "validation") for m in (model, *games.values())],
                                  ref_template="#/$defs/{model}")
    defs: dict[str, Any] = found["$defs"]
    top = defs.pop(model.__name__)
    refs = {key: f"#/$defs/{game.__name__}" for key, game in games.items()}
    return {"$schema": SCHEMA, **top, "oneOf": [{"$ref": ref} for ref in refs.values()],
            "discriminator": {"propertyName": "ruleset", "mapping": refs}, "$defs": defs}


#: The JSON Schema dialect of the documents :func:`output_schema` gives.
SCHEMA = "https://json-schema.org/draft/2020-12/schema"

assert FORMAT == 1, "the output models pin format to 1: raise both together"
