"""The JSON outputs against their models (``rangefire.core.outputs``), strictly, on every game's examples; and
the JSON Schemas ``rangefire schema`` prints (issue 11)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from rangefire.core import Attack, SeededSource
from rangefire.core.outputs import check_output, odds_output, refused_odds_output, resolve_output
from rangefire.core.schemas import OUTPUTS, CheckOutput, OddsOutput, ResolveOutput, output_schema, resolve_model
from rangefire.rulesets import RULESETS, find_ruleset, load_battle
from rangefire.scenario.jsonschema import scenario_schema
from tests.commands import run

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "src" / "rangefire" / "examples").glob("*.yaml"))


def pairs(ruleset: Any, battle: Any) -> list[tuple[str, str]]:
    return [(uid, enemy) for uid in ruleset.unit_ids(battle) for enemy in ruleset.enemies(battle, uid)]


@pytest.fixture(scope="module")
def outputs() -> dict[str, list[dict[str, Any]]]:
    """Every output the library gives on the examples: every attacker against every enemy, checked; the legal
    ones' odds and a seeded resolution; the refused ones' odds."""
    found: dict[str, list[dict[str, Any]]] = {"check": [], "odds": [], "resolve": []}
    for path in EXAMPLES:
        ruleset, battle = load_battle(path)
        for seed, (attacker, target) in enumerate(pairs(ruleset, battle)):
            checked = ruleset.check(battle, Attack(attacker, target))
            found["check"].append(check_output(ruleset.key, checked))
            if checked.plan is None:
                found["odds"].append(refused_odds_output(ruleset.key, checked))
                continue
            found["odds"].append(odds_output(ruleset.odds(checked.plan)))
            resolution, after = ruleset.play(battle, Attack(attacker, target), SeededSource(seed))
            found["resolve"].append(resolve_output(resolution, seed, ruleset.dump(after)))
    return found


def test_the_examples_cover_every_game_legal_and_refused(outputs):
    games = {o["ruleset"] for o in outputs["resolve"]}
    assert games == {r.key for r in RULESETS}
    assert any(o["legal"] for o in outputs["check"]) and not all(o["legal"] for o in outputs["check"])
    assert any("nominations" in o for o in outputs["odds"]) and any("lines" in o for o in outputs["odds"])


@pytest.mark.parametrize("command", sorted(OUTPUTS))
def test_every_real_output_validates_strictly(outputs, command):
    model = OUTPUTS[command]
    assert outputs[command]
    for data in outputs[command]:
        model.model_validate_json(json.dumps(data), strict=True)


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.key)
def test_every_resolution_validates_against_its_games_own_outcome(outputs, ruleset):
    model = resolve_model(type(ruleset))
    assert model is not ResolveOutput
    mine = [o for o in outputs["resolve"] if o["ruleset"] == ruleset.key]
    assert mine
    for data in mine:
        model.model_validate_json(json.dumps(data), strict=True)
    first = mine[0]
    name = ruleset.outcome_names[0] if hasattr(ruleset, "outcome_names") else next(iter(first["outcome"]))
    for broken in (_broken(first, ["outcome", "surprise"], 1), _broken(first, ["outcome", name], "3"),
                   _broken(first, ["outcome"], {k: v for k, v in first["outcome"].items() if k != name})):
        ResolveOutput.model_validate_json(json.dumps(broken), strict=True)  # the generic model lets it through
        with pytest.raises(ValidationError):
            model.model_validate_json(json.dumps(broken), strict=True)
    printed = json.loads(run("schema", ruleset.key, "--output", "resolve").stdout)
    assert printed["properties"]["outcome"] == {"$ref": f"#/$defs/{model.model_fields['outcome'].annotation.__name__}"}


def test_the_command_line_prints_what_the_models_describe(tmp_path):
    for path in EXAMPLES:
        ruleset, battle = load_battle(path)
        attacker, target = next((a, t) for a, t in pairs(ruleset, battle)
                                if ruleset.check(battle, Attack(a, t)).is_legal)
        proc = run("check", str(path), "-a", attacker, "--json", ok=None)  # without a target: the candidates
        CheckOutput.model_validate_json(proc.stdout, strict=True)
        OddsOutput.model_validate_json(run("odds", str(path), "-a", attacker, "-t", target, "--json").stdout)
        ResolveOutput.model_validate_json(run("resolve", str(path), "-a", attacker, "-t", target, "--seed", "2",
                                              "--json").stdout)


def _broken(data: dict[str, Any], where: list[Any], value: Any) -> dict[str, Any]:
    broken = copy.deepcopy(data)
    node: Any = broken
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    return broken


@pytest.mark.parametrize(("command", "where", "value"), [
    ("odds", ["surprise"], 1),                                  # an unknown key
    ("odds", ["legal"], "yes"),                                 # a wrong type
    ("odds", ["format"], 2),                                    # another format
    ("odds", ["events", "suppression"], 0.5),                   # a float, not an exact fraction
    ("odds", ["events", "suppression"], "1/x"),                 # not a fraction
    ("odds", ["outcomes", "hits", "distribution", "0"], 1),     # a number, not a fraction string
    ("odds", ["outcomes", "hits", "skew"], "1"),                # an unknown key in a distribution
    ("odds", ["plan", "modifiers", 0, "delta"], "-1"),          # a delta as text
    ("odds", ["plan", "notes"], None),                          # the plan's common keys are typed
    ("check", ["refusals"], [{"clause": "DC-2.1"}]),            # a refusal without its reason
    ("resolve", ["dice", "hit"], ["6"]),                        # a die as text
    ("resolve", ["seed"], "5"),
    ("resolve", ["outcome", "hits"], [3]),                      # an outcome value is a number, flag or name
    ("resolve", ["log", 0, "extra"], "x"),
])
def test_an_unknown_key_or_a_wrong_type_fails(outputs, command, where, value):
    data = next(o for o in outputs[command] if o["ruleset"] == "dress-on-the-colors" and (
        command != "odds" or o["legal"]) and (command != "check" or not o["legal"]))
    OUTPUTS[command].model_validate_json(json.dumps(data), strict=True)
    with pytest.raises(ValidationError):
        OUTPUTS[command].model_validate_json(json.dumps(_broken(data, where, value)), strict=True)


# -- the schemas ------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", sorted(OUTPUTS))
def test_output_schemas(command):
    schema = output_schema(command)
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert schema["properties"]["format"]["const"] == 1
    assert schema["additionalProperties"] is False
    assert {"format", "ruleset", "attacker", "target"} <= set(schema["required"])
    printed = json.loads(run("schema", "--output", command).stdout)  # besides, each game's under oneOf
    assert {k: v for k, v in printed.items() if k not in ("oneOf", "discriminator", "$defs")} == json.loads(
        json.dumps({k: v for k, v in schema.items() if k != "$defs"}))


def _keywords(node: Any, names: bool = False) -> set[str]:
    """Every keyword used in a schema (not the names of properties)."""
    if isinstance(node, list):
        return set().union(*(_keywords(n) for n in node))
    if not isinstance(node, dict):
        return set()
    found = set() if names else set(node)
    for key, value in node.items():
        found |= _keywords(value, names=not names and key in ("properties", "$defs"))
    return found


_DESCRIBED = {"type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"}


def _open_fields(schema: dict[str, Any]) -> list[str]:
    """The fields whose schema says nothing of what they hold."""
    models = [schema, *schema.get("$defs", {}).values()]
    return [name for model in models for name, field in model.get("properties", {}).items()
            if not _DESCRIBED & set(field) or any(not _DESCRIBED & set(a) for a in field.get("anyOf", []))]


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.key)
def test_scenario_schemas(ruleset):
    schema = scenario_schema(ruleset.battle_model)
    assert schema["properties"]["ruleset"]["const"] == ruleset.key
    assert schema["additionalProperties"] is False
    assert not _keywords(schema) & {"gt", "ge", "lt", "le"}  # bounds as JSON Schema writes them
    for path in EXAMPLES:
        data = load_battle(path)[1].model_dump(mode="json", exclude_unset=True)
        if data["ruleset"] == ruleset.key:
            assert set(data) <= set(schema["properties"])
    # every field is described, none left open (the scenario's own number types included)
    assert not _open_fields(schema)
    assert json.loads(run("schema", ruleset.aliases[0] if ruleset.aliases else ruleset.key).stdout) == json.loads(
        json.dumps(schema))


def test_a_unit_position_is_a_point_of_exact_numbers():
    unit = scenario_schema(find_ruleset("dress-on-the-colors").battle_model)["$defs"]["Unit"]["properties"]
    assert unit["position"]["type"] == "array" and unit["position"]["minItems"] == unit["position"]["maxItems"] == 2
    assert unit["stand_width"]["exclusiveMinimum"] == 0
    assert {"type": "number"} in unit["facing"]["anyOf"]


@pytest.mark.parametrize(("args", "needle"), [
    ((), "name a game"),
    (("doc", "--output", "show"), "must be one of check, odds, resolve, targets"),
    (("chess",), "unknown ruleset 'chess'"),
    (("--output", "show"), "must be one of check, odds, resolve, targets"),
])
def test_schema_bad_input(args, needle):
    assert needle in run("schema", *args, ok=2).stderr
