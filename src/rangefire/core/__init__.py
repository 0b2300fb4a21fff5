"""The core: the Ruleset base class, value and result types, errors and dice sources."""

from rangefire.core.errors import (
    ChoiceError,
    DiceError,
    IllegalAttackError,
    LimitError,
    RangefireError,
    ScenarioError,
    UnknownRulesetError,
    UnknownUnitError,
    error_data,
)
from rangefire.core.numbers import dump_exact, fraction_str, parse_exact
from rangefire.core.ruleset import Ruleset
from rangefire.core.source import (
    AskedSource,
    DiceSource,
    EnteredSource,
    Need,
    Question,
    ScriptedSource,
    SeededSource,
    parse_entered,
)
from rangefire.core.types import FORMAT, Attack, Check, LogLine, Modifier, Odds, Plan, Refusal, Resolution

__all__ = [
    "FORMAT",
    "AskedSource",
    "Attack",
    "Check",
    "ChoiceError",
    "DiceError",
    "DiceSource",
    "EnteredSource",
    "IllegalAttackError",
    "LimitError",
    "LogLine",
    "Modifier",
    "Need",
    "Odds",
    "Plan",
    "Question",
    "RangefireError",
    "Refusal",
    "Resolution",
    "Ruleset",
    "ScenarioError",
    "ScriptedSource",
    "SeededSource",
    "UnknownRulesetError",
    "UnknownUnitError",
    "dump_exact",
    "error_data",
    "fraction_str",
    "parse_entered",
    "parse_exact",
]
