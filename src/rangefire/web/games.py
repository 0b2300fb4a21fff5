"""The games a server plays and its built-in example battles, as ``GET /api/rulesets`` and ``GET /api/examples``
list them."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from rangefire.core import Ruleset
from rangefire.core.options import option_rows
from rangefire.rulesets import battle_from_mapping
from rangefire.scenario import parse_scenario


@dataclass(frozen=True)
class Example:
    name: str
    ruleset: str
    title: str
    text: str


@cache
def examples() -> tuple[Example, ...]:
    """The built-in example battles, by file name without its suffix."""
    found = []
    folder = resources.files("rangefire") / "examples"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".yaml"):
            continue
        text = entry.read_text(encoding="utf-8")
        name = entry.name.removesuffix(".yaml")
        ruleset, battle = battle_from_mapping(parse_scenario(text, "yaml", name), name)
        found.append(Example(name, ruleset.key, str(getattr(battle, "name", None) or name), text))
    return tuple(found)


def ruleset_info(ruleset: Ruleset[Any, Any]) -> dict[str, Any]:
    """A game as ``GET /api/rulesets`` lists it: its options and defaults, its dice stages, its choices as the
    game declares them (``Ruleset.choices``)."""
    return {"key": ruleset.key, "name": ruleset.title, "aliases": list(ruleset.aliases),
            "options": ruleset.default_options(), "stages": list(ruleset.stages),
            "option_list": [row.to_dict() for row in option_rows(ruleset.options_model)],
            "outcomes": list(ruleset.outcome_names), "events": list(ruleset.event_names),
            "choices": [choice.to_dict() for choice in ruleset.choices],
            "has_activations": ruleset.has_activations, "chooses_target": ruleset.chooses_target}


__all__ = ["Example", "examples", "ruleset_info"]
