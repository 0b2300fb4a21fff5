"""Every command's real ``--json`` output against the JSON Schema ``rangefire schema --output`` prints for it:
check, odds, resolve, targets, advise, compare, table, duel, replay and the error, on every game's examples;
each game's own model (its plan and outcome typed) as well as the one common to every game (issue 23)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from rangefire.cli.schema import OUTPUT_NAMES, error_kinds, output_document
from rangefire.core.schemas import COMMAND_OUTPUTS, error_output
from rangefire.demo import example_path
from rangefire.rulesets import RULESETS, find_ruleset
from rangefire.rulesets.outputs import PLANS, game_models
from tests.commands import run, run_here

ROOT = Path(__file__).resolve().parents[1]
DOC, AL, BU, SW = (str(example_path(name)) for name in ("wheatfield.yaml", "ford.yaml", "temple.yaml",
                                                          "ambush.yaml"))
# (command, arguments, exit codes allowed): each game's attack legal and refused, its targets, advice,
# comparison, table, duel and a replayed log; the log and battle files are written in the test's folder.
ATTACKS = {
    "dress-on-the-colors": (DOC, "15th-alabama", None, ("20th-maine", "4th-texas"), "union"),
    "arcane-legions": (AL, "archers", "orc-band", ("spearmen", "orc-band"), "legion"),
    "bushido": (BU, "yoichi", "takeda", None, "prefecture"),
    "swerve": (SW, "rail-gun", "dune-buggy", None, "jason"),
}
VARIANTS = {"dress-on-the-colors": "cover3:options.cover_save.heavy=3",
            "arcane-legions": "near:units.archers.position=[10,10]",
            "bushido": "armour:units.takeda.armour=2",
            "swerve": "slow:options.target_swerve_speed=2"}
VARY = {"dress-on-the-colors": "units.15th-alabama.stands=4,6", "arcane-legions": "options.phantom=0,1",
        "bushido": "units.takeda.armour=0,1", "swerve": "options.empty_deck_bonus=0,5"}


def commands(key: str, folder: Path) -> list[tuple[str, list[str], tuple[int, ...]]]:
    scenario, attacker, target, refused, side = ATTACKS[key]
    aimed = ["-a", attacker] + (["-t", target] if target else [])
    log, after = str(folder / f"{key}.jsonl"), str(folder / f"{key}.yaml")
    found = [("check", [scenario, "-a", attacker], (0, 1)),
             ("check", [scenario, *aimed], (0,)),
             ("odds", [scenario, *aimed], (0,)),
             ("resolve", [scenario, *aimed, "--seed", "3", "--log", log, "--out", after], (0,)),
             ("targets", [scenario], (0,)),
             ("advise", [scenario, "--side", side, "--all"], (0, 1)),
             ("compare", [scenario, *aimed, "--variant", VARIANTS[key]], (0,)),
             ("table", [scenario, *aimed, "--vary", VARY[key]], (0,))]
    if refused is not None:
        found += [("check", [scenario, "-a", refused[0], "-t", refused[1]], (1,)),
                  ("odds", [scenario, "-a", refused[0], "-t", refused[1]], (1,))]
    return found


def _run(command: str, args: list[str], codes: tuple[int, ...]) -> dict[str, Any]:
    proc = run_here(command, *args, "--json", ok=None)
    assert proc.returncode in codes and proc.stdout.startswith("{"), (command, args, proc.stdout, proc.stderr)
    return json.loads(proc.stdout)


#: Every command's outputs, run once in a process for every module that reads them (this one, test_exact_floats).
_OUTPUTS: dict[str, list[dict[str, Any]]] = {}


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, list[dict[str, Any]]]:
    """The real outputs of every command on each game's example, run as a user runs them: the entry point with its
    arguments (in this process; a command's own process is tested in test_cli and test_startup)."""
    if _OUTPUTS:
        return _OUTPUTS
    folder = tmp_path_factory.mktemp("outputs")
    jobs = [job for key in ATTACKS for job in commands(key, folder)]
    jobs += [("duel", [DOC, "15th-alabama", "20th-maine", "--turns", "2"], (0,)),
             ("duel", [BU, "yoichi", "takeda", "--turns", "2", "--samples", "300", "--seed", "1"], (0,)),
             ("error", ["check", DOC, "-a", "nobody"], (2,)),
             ("error", ["resolve", DOC, "-a", "20th-maine", "-t", "4th-texas", "--seed", "1"], (1,)),
             ("error", ["odds", DOC, "-a", "15th-alabama", "--set", "units.15th-alabama.stands=-3"], (2,)),
             ("error", ["resolve", DOC, "-a", "15th-alabama", "--dice", "hit=6"], (2,)),
             ("error", ["odds", AL, "-a", "archers", "-t", "orc-band", "--order", "clse"], (2,)),
             ("error", ["odds", DOC], (2,))]
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in OUTPUT_NAMES}
    for command, args, codes in jobs:
        data = _run(*((command, args, codes) if command != "error" else (args[0], args[1:], codes)))
        found["error" if "error" in data else command].append(data)
    for key in ATTACKS:  # the logs the resolutions wrote, replayed
        log = folder / f"{key}.jsonl"
        found["replay"].append(_run("replay", [ATTACKS[key][0], str(log)], (0,)))
    _OUTPUTS.update(found)
    return _OUTPUTS


def test_every_command_and_game_is_covered(outputs):
    for command in OUTPUT_NAMES:
        assert outputs[command], command
    for command in ("check", "odds", "resolve", "advise", "compare", "table", "replay"):
        assert {o["ruleset"] for o in outputs[command]} == set(RULESETS.keys()), command
    odds = outputs["odds"]
    assert any(not o["legal"] for o in odds) and any("nominations" in o for o in odds)
    assert any("lines" in o for o in odds) and any("candidates" in o for o in outputs["check"])
    assert any("monte_carlo" in o for o in outputs["duel"]) and any("refused" in o for o in outputs["advise"])
    kinds = {o["error"]["kind"] for o in outputs["error"]}
    assert kinds == {"unknown_unit", "illegal_attack", "invalid_scenario", "invalid_dice", "invalid_choice",
                     "usage"}


def _strictly(model: type[BaseModel], data: dict[str, Any]) -> None:
    model.model_validate_json(json.dumps(data), strict=True)


@pytest.mark.parametrize("command", OUTPUT_NAMES)
def test_every_real_output_holds_to_its_schema(outputs, command):
    """Each output against the model common to every game, and against its own game's."""
    model = error_output(error_kinds()) if command == "error" else COMMAND_OUTPUTS[command]
    games = game_models(command)
    for data in outputs[command]:
        _strictly(model, data)
        if "ruleset" in data and games:
            _strictly(games[data["ruleset"]], data)
            for other, game in games.items():  # told apart by ruleset: no other game's model takes it
                if other != data["ruleset"]:
                    with pytest.raises(ValidationError):
                        _strictly(game, data)


@pytest.mark.parametrize("command", OUTPUT_NAMES)
def test_the_printed_schema_is_the_models(command):
    printed = json.loads(run_here("schema", "--output", command).stdout)
    assert printed == json.loads(json.dumps(output_document(command)))
    assert printed["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert printed["properties"]["format"]["const"] == 1 and printed["additionalProperties"] is False
    games = game_models(command)
    if games:  # each game's under oneOf, told apart by ruleset
        assert printed["discriminator"] == {"propertyName": "ruleset", "mapping": {
            key: f"#/$defs/{model.__name__}" for key, model in games.items()}}
        for key, model in games.items():
            assert printed["$defs"][model.__name__]["properties"]["ruleset"]["const"] == key
            own = json.loads(run_here("schema", key, "--output", command).stdout)
            assert own == json.loads(json.dumps({"$schema": printed["$schema"], **model.model_json_schema()}))
    else:
        assert "oneOf" not in printed
    assert "format" not in {k for k in printed if k != "properties"}  # format is a keyword of JSON Schema


def test_the_union_tells_each_game_apart(outputs):
    """One TypeAdapter over every game's models, discriminated by ruleset, reads each odds output as its own
    game's model, with the plan as that game's plan model."""
    from typing import Annotated, Union

    from pydantic import Field

    games = game_models("odds")
    adapter: TypeAdapter[Any] = TypeAdapter(Annotated[Union[tuple(games.values())], Field(discriminator="ruleset")])  # noqa: UP007
    for data in outputs["odds"]:
        read = adapter.validate_json(json.dumps(data), strict=True)
        assert type(read) is games[data["ruleset"]]
        if read.plan is not None:
            assert type(read.plan) is PLANS[data["ruleset"]]


def test_the_design_keys_are_kept():
    """The JSON keys of design section 5 are a contract: the schemas name each of them."""
    odds = output_document("odds")
    assert {"ruleset", "attacker", "target", "legal", "refusals", "plan", "outcomes", "events", "exact"} <= set(
        odds["properties"])
    assert {"modifiers"} <= set(odds["$defs"]["PlanOut"]["properties"])
    assert {"distribution", "mean"} <= set(odds["$defs"]["DistributionOut"]["required"])
    assert {"log", "dice", "outcome", "battle"} <= set(output_document("resolve")["required"])
    for key, plan in PLANS.items():  # each game's outcomes named as the design names them, typed
        model = game_models("resolve")[key].model_fields["outcome"].annotation
        ruleset = find_ruleset(key)
        assert set(ruleset.outcome_names) | set(ruleset.event_names) <= set(model.model_fields), key
        assert {"attacker", "target", "modifiers", "notes"} <= set(plan.model_fields)


def _changed(data: dict[str, Any], where: list[Any], value: Any) -> dict[str, Any]:
    broken = copy.deepcopy(data)
    node: Any = broken
    for key in where[:-1]:
        node = node[key]
    if value is KeyError:
        del node[where[-1]]
    else:
        node[where[-1]] = value
    return broken


@pytest.mark.parametrize(("key", "where", "value"), [
    ("dress-on-the-colors", ["plan", "band"], "medium"),              # a key the plan does not write
    ("dress-on-the-colors", ["plan", "range", "band"], "far"),        # not a band of the game
    ("dress-on-the-colors", ["plan", "save"], "4"),                   # a save as text
    ("dress-on-the-colors", ["plan", "line_of_fire", 0, 0], 10.5),    # a coordinate as a float, not exact
    ("dress-on-the-colors", ["plan", "cover"], KeyError),             # a key the plan always writes
    ("arcane-legions", ["plan", "sides", "from"], 1),
    ("arcane-legions", ["plan", "cost", "push"], "no"),
    ("bushido", ["plan", "nominees", 0, "id"], None),
    ("bushido", ["nominations", "yojimbo", "plan", "line_of_sight", "clear"], "yes"),
    ("swerve", ["plan", "reveal", "known"], "5"),
    ("swerve", ["plan", "start", "luck"], 3),
])
def test_a_games_plan_is_typed(outputs, key, where, value):
    """Each game's model refuses a plan that is not the game's, where the common model lets any plan through."""
    data = next(o for o in outputs["odds"] if o["ruleset"] == key and o["legal"])
    broken = _changed(data, where, value)
    _strictly(game_models("odds")[key], data)
    if where[0] == "plan":
        _strictly(COMMAND_OUTPUTS["odds"], broken)  # the common model types only the keys every game's plan has
    with pytest.raises(ValidationError):
        _strictly(game_models("odds")[key], broken)


@pytest.mark.parametrize(("command", "where", "value"), [
    ("targets", ["targets", 0, "mean"], 0.5),
    ("advise", ["ranked", 0, "value"], 1),
    ("advise", ["value_is"], "median"),
    ("compare", ["outcomes", "hits", "rows", 0, "at_least", "values", "rules"], 0.5),
    ("compare", ["variants", 0, "plan", "surprise"], 1),
    ("table", ["rows", 0, "outcomes", "hits", "sd"], "1"),
    ("duel", ["winner", "a"], 0.5),
    ("duel", ["turns", "stepped"], "2"),
    ("replay", ["steps", 0, "line"], "1"),
    ("error", ["error", "kind"], "oops"),
    ("error", ["error", "message"], None),
])
def test_a_wrong_value_fails(outputs, command, where, value):
    data = next(o for o in outputs[command] if o.get("ruleset", "dress-on-the-colors") == "dress-on-the-colors"
                and (command != "error" or o["error"]["kind"] == "unknown_unit"))
    model = error_output(error_kinds()) if command == "error" else game_models(command).get(
        "dress-on-the-colors", COMMAND_OUTPUTS[command])
    _strictly(model, data)
    with pytest.raises(ValidationError):
        _strictly(model, _changed(data, where, value))


def test_the_error_kinds_are_every_error_classes():
    """The kinds the error's schema enumerates are read from the error classes: each ``kind = "..."`` the source
    declares (the HTTP API's aside), and ``usage``."""
    declared = set()
    for path in (ROOT / "src" / "rangefire").rglob("*.py"):
        if "web" not in path.relative_to(ROOT).parts:
            declared |= set(re.findall(r'^    kind = "([a-z_]+)"$', path.read_text(), re.M))
    assert set(error_kinds()) == declared | {"usage"}
    schema = json.loads(run("schema", "--output", "error").stdout)
    assert schema["$defs"]["ErrorOut"]["properties"]["kind"]["enum"] == list(error_kinds())


def test_an_estimate_is_typed(monkeypatch):
    """Odds beyond the exact lineup are a labelled Monte Carlo estimate: its description is typed in odds,
    targets and table alike."""
    from rangefire.analysis.odds_table import Axis, odds_table
    from rangefire.analysis.targets import targets
    from rangefire.core import Attack
    from rangefire.core.outputs import odds_output
    from rangefire.rulesets import load_battle
    from rangefire.rulesets.arcane_legions import ArcaneLegions, orders

    monkeypatch.setattr(ArcaneLegions, "_odds", lambda self, plan: orders.odds_of(plan, exact_limit=0, samples=500))
    al, battle = load_battle(AL, game="al")
    odds = odds_output(al.odds(al.plan(battle, Attack("archers", "orc-band"))))
    assert odds["exact"] is False and odds["estimate"]["method"] == "monte carlo"
    _strictly(game_models("odds")["arcane-legions"], odds)
    rows = {"format": 1, "targets": [row.to_dict() for row in targets(al, battle, attacker="archers")]}
    assert rows["targets"][0]["estimate"]["ci95"]
    _strictly(COMMAND_OUTPUTS["targets"], rows)
    table = odds_table(al.dump(battle), "archers", "orc-band", [Axis("options.phantom", (0, 1))])
    data = {"format": 1, **table.to_dict()}
    assert data["rows"][0]["estimate"]["method"] == "monte carlo"
    _strictly(game_models("table")["arcane-legions"], data)
    with pytest.raises(ValidationError):
        _strictly(COMMAND_OUTPUTS["odds"], _changed(odds, ["estimate", "samples"], "500"))


@pytest.mark.parametrize(("args", "needle"), [
    (("--output", "show"), "must be one of check, odds, resolve, targets, advise, compare, table, duel, replay, "
                           "error"),
    (("chess", "--output", "odds"), "unknown ruleset 'chess'"),
])
def test_schema_bad_input(args, needle):
    assert needle in run("schema", *args, ok=2).stderr
