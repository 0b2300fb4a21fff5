"""The registry of games: ``RULESETS`` and :func:`find_ruleset`, and loading a scenario into its game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from rangefire.core import Ruleset, ScenarioError, UnknownRulesetError
from rangefire.rulesets.arcane_legions import ArcaneLegions
from rangefire.rulesets.bushido import Bushido
from rangefire.rulesets.dress_on_the_colors import DressOnTheColors
from rangefire.rulesets.swerve import Swerve
from rangefire.scenario import read_scenario, validate
from rangefire.scenario.files import source_name

#: Every built-in game, one instance each.
RULESETS: tuple[Ruleset[Any, Any], ...] = (DressOnTheColors(), ArcaneLegions(), Bushido(), Swerve())


def find_ruleset(name: str) -> Ruleset[Any, Any]:
    """The ruleset whose key or alias is ``name``.

    >>> find_ruleset("dress-on-the-colors")
    DressOnTheColors()
    >>> find_ruleset("chess")
    Traceback (most recent call last):
    ...
    rangefire.core.errors.UnknownRulesetError: unknown ruleset 'chess'; known: dress-on-the-colors (doc, dress), ...
    """
    for ruleset in RULESETS:
        if name == ruleset.key or name in ruleset.aliases:
            return ruleset
    known = ", ".join(f"{r.key} ({', '.join(r.aliases)})" if r.aliases else r.key for r in RULESETS)
    raise UnknownRulesetError(f"unknown ruleset {name!r}; known: {known}")


def battle_from_mapping(data: dict[str, Any], source: str = "scenario") -> tuple[Ruleset[Any, Any], BaseModel]:
    """Validate a scenario mapping: its ``ruleset`` key picks the game, whose model checks the rest."""
    key = data.get("ruleset")
    if not isinstance(key, str):
        raise ScenarioError([f"ruleset: is required, one of {', '.join(r.key for r in RULESETS)}"], source=source)
    try:
        ruleset = find_ruleset(key)
    except UnknownRulesetError as exc:
        raise ScenarioError([f"ruleset: {exc}"], source=source) from None
    try:
        raw = ruleset.raw_problems(data)
        crash: Exception | None = None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        # A check on the raw mapping that trips over a value of the wrong kind: the field validation below
        # names that value; only when it finds nothing is this a fault of ours, and raised as such.
        raw, crash = [], exc
    battle = validate(ruleset.battle_model, {**data, "ruleset": ruleset.key}, source=source, extra_problems=raw)
    if crash is not None:
        raise crash
    return ruleset, battle


def load_battle(path: str | Path) -> tuple[Ruleset[Any, Any], BaseModel]:
    """Read and validate a scenario file (YAML, TOML or JSON; ``-`` reads standard input, JSON or YAML) into its
    game and battle."""
    return battle_from_mapping(read_scenario(path), source=source_name(path))


__all__ = ["RULESETS", "ArcaneLegions", "Bushido", "DressOnTheColors", "Swerve", "battle_from_mapping", "find_ruleset",
           "load_battle"]
