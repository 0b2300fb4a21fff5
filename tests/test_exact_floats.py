"""Every exact value of every command's JSON has its float beside it (issue 23): ``"mean": "4/3"`` and
``"mean_float": 1.3333333333333333``, a mapping of probabilities and its mapping of floats, in the same shape. The
exact values are found by the JSON Schema alone (a string of the Probability or Rational pattern, or an object of
them), not by the code that adds the floats; each float must be ``float(Fraction(exact))``. Through the command
line (every command on every game's example, as a user runs them) and the library (every attack of every example
battle, and every analysis on each), and the models refuse an output without one."""

from __future__ import annotations

import copy
import json
import re
import sys
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from rangefire.analysis.advise import advise
from rangefire.analysis.compare import Variant, compare
from rangefire.analysis.duel import duel
from rangefire.analysis.odds_table import Axis, odds_table
from rangefire.analysis.targets import targets
from rangefire.cli.schema import OUTPUT_NAMES, error_kinds
from rangefire.core import RangefireError
from rangefire.core.exact_floats import float_pairs
from rangefire.core.options import house_rules, option_rows
from rangefire.core.outputs import check_output, odds_output, refused_odds_output
from rangefire.core.schemas import COMMAND_OUTPUTS, Probability, Rational, error_output, output_schema
from rangefire.rulesets import load_battle
from tests.test_schema_outputs import outputs  # noqa: F401  # every command's real output, on every game

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "src" / "rangefire" / "examples").glob("*.yaml"))
EXACT_PATTERNS = {TypeAdapter(kind).json_schema()["pattern"] for kind in (Probability, Rational)}


@pytest.fixture(autouse=True)
def _long_fractions() -> Iterator[None]:
    """A duel's fractions run to thousands of digits: read them whole to check their floats."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    yield
    sys.set_int_max_str_digits(limit)


# -- the oracle: the exact values an output holds, read off its JSON Schema --------------------------------------
class Walk:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.defs = schema.get("$defs", {})
        self.schema = schema

    def resolve(self, node: dict[str, Any], value: Any) -> dict[str, Any] | None:
        """The schema that applies to ``value``: a reference followed, of a union the branch of its type."""
        while "$ref" in node:
            node = self.defs[node["$ref"].rsplit("/", 1)[1]]
        if "anyOf" in node:
            for branch in node["anyOf"]:
                found = self.resolve(branch, value)
                if found is not None and _fits(found, value):
                    return found
            return None
        return node

    def exact(self, node: dict[str, Any] | None, value: Any) -> bool:
        """Whether ``value`` is exact by its schema: a Probability or Rational string, or an object of them only
        (a mapping of them, empty or not); a null where one may stand counts (its float is null too)."""
        if node is None:
            return False
        if value is None:
            return self._may_be_exact(node)
        node = self.resolve(node, value)
        if node is None:
            return False
        if node.get("type") == "string":
            return node.get("pattern") in EXACT_PATTERNS
        if node.get("type") == "object" and isinstance(value, dict):
            if not value:
                return self.exact(self.child(node, "0"), "0")
            return all(self.exact(self.child(node, key), item) for key, item in value.items())
        return False

    def child(self, node: dict[str, Any], key: str) -> dict[str, Any] | None:
        if key in node.get("properties", {}):
            return node["properties"][key]  # type: ignore[no-any-return]
        for pattern, sub in node.get("patternProperties", {}).items():
            if re.search(pattern, key):
                return sub  # type: ignore[no-any-return]
        extra = node.get("additionalProperties")
        return extra if isinstance(extra, dict) else None

    def pairs(self, data: Any, node: dict[str, Any] | None = None, where: str = "") -> Iterator[tuple[str, Any,
                                                                                                      Any]]:
        """Every exact value of ``data`` with its sibling's value (KeyError-free: a missing one is ``MISSING``)."""
        node = self.schema if node is None else self.resolve(node, data)
        if node is None:
            return
        if isinstance(data, list):
            for i, item in enumerate(data):
                yield from self.pairs(item, node.get("items") or {}, f"{where}[{i}]")
        if not isinstance(data, dict):
            return
        for key, value in data.items():
            sub = self.child(node, key)
            if key.endswith("_float") and key[:-6] in data:
                continue  # checked from its exact value
            if self.exact(sub, value):
                yield f"{where}.{key}", value, data.get(key + "_float", MISSING)
            elif sub is not None:
                yield from self.pairs(value, sub, f"{where}.{key}")

    def _may_be_exact(self, node: dict[str, Any]) -> bool:
        """A null where an exact value may stand (a candidate's mean): its float is null beside it."""
        while "$ref" in node:
            node = self.defs[node["$ref"].rsplit("/", 1)[1]]
        return any(b.get("type") == "string" and b.get("pattern") in EXACT_PATTERNS for b in node.get("anyOf", []))


MISSING = object()


def _fits(node: dict[str, Any], value: Any) -> bool:
    kind = node.get("type")
    return {"null": value is None, "string": isinstance(value, str), "object": isinstance(value, dict),
            "array": isinstance(value, list), "integer": isinstance(value, int), "number": isinstance(value, float),
            "boolean": isinstance(value, bool)}.get(kind, True) if kind else True


def same(exact: Any, floated: Any, where: str) -> None:
    """``floated`` is ``exact`` as floats, in its shape: the same keys in the same order, None for None."""
    if exact is None:
        assert floated is None, where
    elif isinstance(exact, dict):
        assert isinstance(floated, dict) and list(floated) == list(exact), where
        for key in exact:
            same(exact[key], floated[key], f"{where}.{key}")
    else:
        assert type(floated) is float and floated == float(Fraction(exact)), (where, exact, floated)


def checked(command: str, data: dict[str, Any]) -> list[str]:
    """Every exact value of one output has its float, equal to it; the places checked."""
    places = []
    for where, exact, floated in Walk(output_schema(command)).pairs(data):
        assert floated is not MISSING, f"{command}: no float beside {where}"
        same(exact, floated, f"{command}{where}")
        places.append(where)
    strays = [w for w in _float_keys(data) if w not in {p + "_float" for p in places}]
    assert not strays, f"{command}: floats beside no exact value {strays}"
    return places


def _float_keys(data: Any, where: str = "") -> Iterator[str]:
    if isinstance(data, dict):
        for key, value in data.items():
            if key.endswith("_float"):
                yield f"{where}.{key}"
            yield from _float_keys(value, f"{where}.{key}")
    elif isinstance(data, list):
        for i, item in enumerate(data):
            yield from _float_keys(item, f"{where}[{i}]")


def model_of(command: str) -> type[BaseModel]:
    return error_output(error_kinds()) if command == "error" else COMMAND_OUTPUTS[command]


# -- through the command line -------------------------------------------------------------------------------------
def test_every_commands_json_has_each_exact_value_as_a_float_beside_it(outputs):  # noqa: F811
    found: dict[str, set[str]] = {command: set() for command in OUTPUT_NAMES}
    for command in OUTPUT_NAMES:
        for data in outputs[command]:
            found[command] |= {_general(w) for w in checked(command, data)}
    # the oracle found the exact values the contract names (not nothing): each command's and each kind's
    assert {".outcomes.*.distribution", ".outcomes.*.mean", ".outcomes.*.at_least", ".events",
            ".nominations.*.events", ".value_before_actions", ".lines[].attacker_wins",
            ".lines[].damage.mean"} <= found["odds"]
    assert {".targets[].mean"} <= found["targets"]
    assert {".ranked[].value", ".ranked[].means", ".ranked[].events"} <= found["advise"]
    assert {".variants[].events", ".variants[].outcomes.*.median", ".outcomes.*.mean.values",
            ".outcomes.*.rows[].at_most.differences", ".events.*.values"} <= found["compare"]
    assert {".rows[].outcomes.*.percentile_90", ".rows[].outcomes.*.variance", ".rows[].events"} <= found["table"]
    assert {".winner", ".undecided", ".turns.distribution", ".turns.after", ".ends.*.probability",
            ".left.*.losses"} <= found["duel"]
    assert not found["resolve"] and not found["replay"] and not found["error"]  # nothing exact in them


def _general(where: str) -> str:
    """A place with its indices and names of outcomes, ends, variants and units left out."""
    where = re.sub(r"\[\d+\]", "[]", where)
    return re.sub(r"\.(outcomes|nominations|ends|left|events)\.[^.\[]+(?=[.\[])", r".\1.*", where)


def test_the_models_refuse_an_output_without_a_float_or_with_another(outputs):  # noqa: F811
    """Each kind of exact value of each command's output: its float taken away, or another float, or a
    float of another shape, and the command's model refuses the output."""
    for command in OUTPUT_NAMES:
        model, seen = model_of(command), set()
        for data in outputs[command]:
            model.model_validate_json(json.dumps(data), strict=True)
            for where, exact, _ in Walk(output_schema(command)).pairs(data):
                if _general(where) in seen or exact is None:
                    continue
                seen.add(_general(where))
                for broken in _broken(data, where + "_float"):
                    with pytest.raises(ValidationError):
                        model.model_validate_json(json.dumps(broken), strict=True)
        assert seen or command in ("resolve", "replay", "error"), command


def _broken(data: dict[str, Any], where: str) -> Iterator[dict[str, Any]]:
    """``data`` without the float at ``where`` (a path as :meth:`Walk.pairs` writes it), with it a hair off,
    and with a key of it left out."""
    steps = [int(s[1:-1]) if s.startswith("[") else s for s in re.findall(r"\[\d+\]|[^.\[]+", where)]
    for change in ("gone", "off", "short"):
        broken = copy.deepcopy(data)
        node: Any = broken
        for step in steps[:-1]:
            node = node[step]
        value = node[steps[-1]]
        if change == "gone":
            del node[steps[-1]]
        elif change == "off":
            node[steps[-1]] = (_off(value) if not isinstance(value, dict)
                               else {k: _off(v) for k, v in value.items()})
        elif isinstance(value, dict) and value:
            node[steps[-1]] = dict(list(value.items())[1:])
        else:
            continue
        yield broken


def _off(value: float | None) -> float | None:
    return None if value is None else value + 0.5


# -- through the library ------------------------------------------------------------------------------------------
def library_outputs() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every output the library builds on every example battle: each attack's check and odds (refused or not),
    the targets, each side's advice, a comparison, a table and a duel of a legal pair."""
    for path in EXAMPLES:
        ruleset, battle = load_battle(path)
        rules = [rule.to_dict() for rule in house_rules(battle.options)]
        legal: list[tuple[str, str]] = []
        for attacker in ruleset.unit_ids(battle):
            for target in [None, *ruleset.enemies(battle, attacker)]:
                try:
                    check = ruleset.check(battle, ruleset.attack(attacker, target))
                except RangefireError:
                    continue
                yield path.name, "check", check_output(ruleset.key, check)
                if check.plan is None:
                    if target is not None:
                        yield path.name, "odds", refused_odds_output(ruleset.key, check)
                    continue
                legal.append((attacker, check.plan.target))
                yield path.name, "odds", odds_output(ruleset.odds(check.plan))
        rows = targets(ruleset, battle)
        yield path.name, "targets", {"format": 1, "targets": [row.to_dict() for row in rows]}
        for side in sorted({row.side for row in rows} | {row.target_side for row in rows}):
            try:
                advised = advise(ruleset, battle, side)
            except RangefireError:
                continue
            yield path.name, "advise", {"format": 1, **advised.to_dict(refused=True), "house_rules": rules}
        attacker, target = legal[0]
        base = ruleset.dump(battle)
        yield path.name, "compare", {"format": 1, **compare(base, attacker, target,
                                                            [Variant("rules"), Variant("again")]).to_dict()}
        option = option_rows(ruleset.options_model)[0]
        table = odds_table(base, attacker, target, [Axis(option.path, (option.to_dict()["default"],))])
        yield path.name, "table", {"format": 1, **table.to_dict()}
        try:
            fought = duel(ruleset, battle, attacker, target, turns=1)
        except RangefireError:
            continue
        yield path.name, "duel", fought.to_dict()


@pytest.fixture(scope="module")
def library() -> list[tuple[str, str, dict[str, Any]]]:
    return list(library_outputs())


def test_every_library_output_has_each_exact_value_as_a_float_beside_it(library):
    games = {name for name, _, _ in library}
    assert games == {path.name for path in EXAMPLES}
    commands = {command for _, command, _ in library}
    assert commands == {"check", "odds", "targets", "advise", "compare", "table", "duel"}
    counted = 0
    for _, command, data in library:
        model_of(command).model_validate_json(json.dumps(data), strict=True)
        counted += len(checked(command, data))
    assert counted > 1000


def test_a_model_declaring_an_exact_value_without_its_float_is_an_error():
    class Chance(BaseModel):
        p: Probability

    class Mean(BaseModel):
        mean: Rational | None
        mean_float: float

    class Stray(BaseModel):
        p_float: float

    for model, says in ((Chance, "declare p_float: float"), (Mean, "declare mean_float: float | None"),
                        (Stray, "beside no exact value")):
        with pytest.raises(TypeError, match=says):
            float_pairs(model, __name__)


def test_the_schema_describes_each_float():
    """Each float of each command's schema says what it is: not exact, for drawing."""
    for command in OUTPUT_NAMES:
        schema = output_schema(command)
        for model in [schema, *schema.get("$defs", {}).values()]:
            for key, prop in model.get("properties", {}).items():
                if key.endswith("_float") and key[:-6] in model["properties"]:
                    assert "for drawing; not exact" in prop.get("description", ""), (command, key)
    odds = output_schema("odds")["$defs"]["DistributionOut"]
    assert {"mean_float", "distribution_float", "at_least_float"} <= set(odds["required"])
    assert list(odds["properties"]["distribution_float"]["patternProperties"].values()) == [{"type": "number"}]
