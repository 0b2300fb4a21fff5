"""Values set by path (house rules and what-ifs): ``--set PATH=VALUE`` on every command, the options listed by
``rulesets GAME`` with their clauses, and the house rules named in every output."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated

import pytest
import yaml
from pydantic import BaseModel, Field

from rangefire.core import ScenarioError
from rangefire.core.options import OptionsModel, house_rules, option, option_path_problem, option_rows
from rangefire.rulesets import RULESETS, load_battle
from rangefire.scenario.paths import Setting, apply_settings, parse_setting
from tests.commands import assert_setting_refused, run

EXAMPLES = Path(__file__).resolve().parent.parent / "src" / "rangefire" / "examples"
WHEATFIELD = EXAMPLES / "wheatfield.yaml"
ATTACK = ("-a", "15th-alabama", "-t", "20th-maine")


# -- the paths ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "path", "value"), [
    ("options.cover_save.light=3", "options.cover_save.light", 3),
    ("units.A.position=[3, 4.5]", "units.A.position", [3, 4.5]),
    ("units.A.disordered=true", "units.A.disordered", True),
    ("terrain.wall.kind=heavy", "terrain.wall.kind", "heavy"),
    ("options.supporting_dice_cap = none", "options.supporting_dice_cap", "none"),
    ("units.A.name=a=b", "units.A.name", "a=b"),
])
def test_a_setting_is_read_like_a_scenario_value(text, path, value):
    assert parse_setting(text) == Setting(path, value)


@pytest.mark.parametrize(("text", "says"), [
    ("units.A.stands", "is not PATH=VALUE"),
    ("=3", "is not PATH=VALUE"),
    ("units..stands=3", "names joined by dots"),
    ("units.A.stands=", "no value after '='"),
    ("options.x={1: 1}", "a mapping's keys are names, got 1"),  # a mapping sets a whole table; its keys are names
    ("options.x=[1, 2", "cannot read the value"),
    ("a.b.c.d.e.f.g.h.i=1", "at most 8"),
    ("options.x=" + "9" * 2000, "characters; at most"),
    ("options.x=&a [*a]", "anchors and aliases"),
    ("options.x=[&a 1, *a]", "anchors and aliases"),
    ("options.x=&a heavy", "anchors and aliases"),
    # markup in a name is YAML's flow list at the start of a value: say how to set it as text
    ("units.A.name=[bold]x",
     """units.A.name: cannot read the value '[bold]x' (to set it as text, quote it: "[bold]x")"""),
    ("units.A.name=@x", """cannot read the value '@x' (to set it as text, quote it: "@x")"""),
    ("units.A.name=*x", """write the value out (to set it as text, quote it: "*x")"""),
])
def test_a_malformed_setting_is_refused_naming_it(text, says):
    with pytest.raises(ScenarioError, match=re.escape(says)):
        parse_setting(text)


def test_settings_step_into_lists_by_id_and_make_options_tables():
    doc = {"units": [{"id": "A", "stands": 4}, {"id": "B", "stands": 3}], "options": {"arc": "corners"}}
    done = apply_settings(doc, [parse_setting("units.B.stands=1"), parse_setting("options.to_hit.rifle.long=5")])
    assert done == {"units": [{"id": "A", "stands": 4}, {"id": "B", "stands": 1}],
                    "options": {"arc": "corners", "to_hit": {"rifle": {"long": 5}}}}
    assert doc["units"][1]["stands"] == 3 and "to_hit" not in doc["options"]  # the mapping given is untouched


@pytest.mark.parametrize(("text", "says"), [
    ("units.Z.stands=1", "no item with id 'Z' in units; ids: A"),
    ("units.A.stands.x=1", "units.A.stands is a single value"),
    ("units=1", None),  # replaces the list whole: the game's model says what is wrong with it
    ("units.A=1", "units is a list: name an item by its id"),
    ("terrain.wall.kind=heavy", "no terrain in this scenario"),
])
def test_a_path_that_cannot_be_followed_is_named(text, says):
    doc = {"units": [{"id": "A", "stands": 4}]}
    if says is None:
        assert apply_settings(doc, [parse_setting(text)])["units"] == 1
        return
    with pytest.raises(ScenarioError, match=says):
        apply_settings(doc, [parse_setting(text)])


def test_a_setting_is_checked_by_the_games_model_like_a_file():
    with pytest.raises(ScenarioError, match=r"with units.20th-maine.stands=-3: units\[0\].stands: must be"):
        load_battle(WHEATFIELD, [parse_setting("units.20th-maine.stands=-3")])
    with pytest.raises(ScenarioError, match=r"options\.no_such_rule: no such option \(the options there: arc, "):
        load_battle(WHEATFIELD, [parse_setting("options.no_such_rule=1")])


@pytest.mark.parametrize(("path", "says"), [
    ("options.cap", None),
    ("options.to_hit", None),  # a whole table: its model says what is wrong with the value
    ("options.to_hit.rifled-musket.long", None),
    ("options.to_hit.rifle.long", "options.to_hit.rifle: no such option (the options there: musket, rifled-musket)"),
    ("options.cap.x", "options.cap.x: options.cap is a single value; it has no 'x'"),
    ("options.to_hit.musket.long.x.y", "options.to_hit.musket.long.x.y: options.to_hit.musket.long is a single value; "
                                       "it has no 'x'"),
    ("options.to_hit.muskt", "options.to_hit.muskt: no such option; did you mean options.to_hit.musket?"),
    ("options.zzz", "options.zzz: no such option (the options there: cap, to_hit)"),
])
def test_an_options_path_is_held_to_the_games_options(path, says):
    assert option_path_problem(_Options, path) == says


@pytest.mark.parametrize(("text", "says"), [
    # a step into a single value, rather than "must be 'none' or a whole number, got {"x": 1}"
    ("options.cover_save.heavy.x=1", "with options.cover_save.heavy.x=1: options.cover_save.heavy.x: "
                                     "options.cover_save.heavy is a single value; it has no 'x'"),
    ("options.cover_save.hevy=3", "options.cover_save.hevy: no such option; did you mean options.cover_save.heavy?"),
    ("options.to_hit.rifled_musket.short=3", "did you mean options.to_hit.rifled-musket?"),
])
def test_a_setting_off_the_games_options_is_said_as_such(text, says):
    with pytest.raises(ScenarioError) as caught:
        load_battle(WHEATFIELD, [parse_setting(text)])
    assert says in str(caught.value)
    assert len(caught.value.problems) == 1
    assert says in run("check", str(WHEATFIELD), *ATTACK, "--set", text, ok=2).stderr


# -- options as data ------------------------------------------------------------------------------
class _Row(OptionsModel):
    short: int = option(1, "X-1.1", "short")
    long: int = option(1, "X-1.1", "long")


class _Table(OptionsModel):
    musket: _Row = option(_Row(short=4, long=6), "X-1.2", "to hit with a musket")
    rifle: _Row = option(_Row(short=3, long=5), "X-1.2", "to hit with a rifle", alias="rifled-musket")


class _Options(OptionsModel):
    cap: int = option(2, "X-2.1", "a cap")
    to_hit: _Table = option(_Table(), "X-1.2", "the to-hit table")


def test_option_rows_flatten_tables_with_each_rows_own_defaults_and_clauses():
    rows = {row.path: row for row in option_rows(_Options)}
    assert list(rows) == ["options.cap", "options.to_hit.musket.short", "options.to_hit.musket.long",
                          "options.to_hit.rifled-musket.short", "options.to_hit.rifled-musket.long"]
    long = rows["options.to_hit.rifled-musket.long"]
    assert (long.default, long.clause) == (5, "X-1.1")
    assert rows["options.cap"].clause == "X-2.1"


def test_a_table_given_in_part_keeps_the_rules_values_for_the_rest():
    options = _Options.model_validate({"to_hit": {"rifled-musket": {"long": 2}}})
    assert (options.to_hit.rifle.long, options.to_hit.rifle.short, options.to_hit.musket.short) == (2, 3, 4)
    assert [(h.path, h.value, h.default) for h in house_rules(options)] == [
        ("options.to_hit.rifled-musket.long", 2, 5)]
    assert house_rules(_Options()) == []


def test_every_games_options_declare_a_clause_and_a_help_line():
    for ruleset in RULESETS:
        assert issubclass(ruleset.options_model, OptionsModel), ruleset.key
        for row in option_rows(ruleset.options_model):
            assert row.clause.startswith(ruleset.clause_prefix + "-"), (ruleset.key, row.path)
            assert row.clause and row.help, (ruleset.key, row.path)
        defaults: BaseModel = ruleset.options_model()
        assert house_rules(defaults) == []


# -- the command line -----------------------------------------------------------------------------
def test_set_reaches_every_command_that_reads_a_scenario(tmp_path):
    """check, odds, resolve, targets, show and end-turn all take --set; each answers for the battle with the
    value set (one stand left: the volley has one die). replay refuses it: a log replays against the scenario
    as written (tests/test_refused_in_our_words.py)."""
    one = ("--set", "units.15th-alabama.stands=1")
    assert json.loads(run("check", str(WHEATFIELD), *ATTACK, *one, "--json").stdout)["plan"]["dice"] == 1
    odds = json.loads(run("odds", str(WHEATFIELD), *ATTACK, *one, "--json").stdout)
    assert max(map(int, odds["outcomes"]["hits"]["distribution"])) == 1
    resolved = json.loads(run("resolve", str(WHEATFIELD), *ATTACK, *one, "--seed", "3", "--json").stdout)
    assert len(resolved["dice"]["hit"]) == 1
    rows = json.loads(run("targets", str(WHEATFIELD), "-a", "15th-alabama", *one, "--json").stdout)["targets"]
    assert {row["dice"].split(",")[0] for row in rows if row["legal"]} == {"1 dice"}
    run("show", str(WHEATFIELD), "--out", str(tmp_path / "w.svg"), *one)
    ended = json.loads(run("end-turn", str(WHEATFIELD), "--out", str(tmp_path / "e.yaml"), *one, "--json").stdout)
    assert next(u for u in ended["battle"]["units"] if u["id"] == "15th-alabama")["stands"] == 1
    log = tmp_path / "empty.log"
    log.write_text("")
    refused = json.loads(run("replay", str(WHEATFIELD), str(log), *one, "--json", ok=2).stdout)
    assert refused["error"]["message"].startswith("--set with replay: a log replays against the scenario as written")


def test_house_rules_are_named_in_every_output_with_the_rules_value():
    rule = ("--set", "options.discipline_dice=3")
    for command in ("check", "odds"):
        data = json.loads(run(command, str(WHEATFIELD), *ATTACK, *rule, "--json").stdout)
        assert data["house_rules"] == [{"path": "options.discipline_dice", "value": 3, "default": 2,
                                        "clause": "DC-5.2"}], command
        assert json.loads(run(command, str(WHEATFIELD), *ATTACK, "--json").stdout)["house_rules"] == []
        shown = run(command, str(WHEATFIELD), *ATTACK, *rule).stdout
        assert "options.discipline_dice = 3 (house rule; the rules say 2)" in shown and "DC-5.2" in shown


def test_resolve_out_writes_the_battle_as_played_values_set_included(tmp_path):
    after = tmp_path / "after.yaml"
    run("resolve", str(WHEATFIELD), *ATTACK, "--seed", "5", "--set", "options.discipline_dice=3",
        "--set", "units.4th-texas.disordered=true", "--out", str(after))
    written = yaml.safe_load(after.read_text())
    assert written["options"]["discipline_dice"] == 3
    assert next(u for u in written["units"] if u["id"] == "4th-texas")["disordered"] is True


def test_a_log_is_not_kept_for_an_attack_played_with_values_set(tmp_path):
    log = tmp_path / "a.log"
    proc = run("resolve", str(WHEATFIELD), *ATTACK, "--seed", "5", "--set", "options.discipline_dice=3",
               "--log", str(log), ok=2)
    assert "--log with --set" in proc.stderr and not log.exists()


@pytest.mark.parametrize(("setting", "says"), [
    ("units.nobody.stands=2", "no item with id 'nobody' in units"),
    ("options.cover=3", "options.cover: no such option"),
    ("units.15th-alabama.stands=lots", "units[3].stands"),
    ("units.15th-alabama.stands", "is not PATH=VALUE"),
    # a YAML alias in a value: a list holding itself (a traceback), a value named ten times over seven levels
    # (ten million numbers said back in the message, seconds); a typed value never needs one
    ("options=&a [*a]", "options: anchors and aliases (&name, *name) are not read in a value set by path"),
    ("units.15th-alabama.x=[&a [1,1,1,1,1,1,1,1,1,1]" + "".join(
        f",&{n} [{','.join([f'*{p}'] * 10)}]" for p, n in zip("abcdef", "bcdefg", strict=True)) + "]",
     "units.15th-alabama.x: anchors and aliases"),
    ("ruleset=swerve", "ruleset: the game is not a setting"),
    ("ruleset.x=1", "ruleset.x: the game is not a setting"),
    # a value that is no number said as the file would write it, not in Python's words (None, True)
    ("units.15th-alabama.position=[10, null]", "units[3].position: must be a number, got null"),
    ("units.15th-alabama.position=[true, 10]", "units[3].position: must be a number, got true"),
])
def test_a_bad_setting_exits_2_naming_it(setting, says):
    assert_setting_refused(WHEATFIELD, ATTACK, setting, says)


def test_a_table_row_spelt_with_a_hyphen_is_written_back_as_the_scenario_spells_it():
    options = _Options.model_validate({"to_hit": {"rifled-musket": {"long": 2}}})
    dumped = options.model_dump(mode="json")
    assert dumped["to_hit"]["rifled-musket"]["long"] == 2 and "rifle" not in dumped["to_hit"]
    assert _Options.model_validate(dumped) == options


class _Rows(OptionsModel):
    roll_1: int = option(1, "X-3.1", "one")
    roll_2: int = option(2, "X-3.1", "two")
    roll_10: int = option(10, "X-3.1", "ten")


class _Wrapped(OptionsModel):
    maybe: _Row | None = option(None, "X-4.1", "a table, or none")
    kept: Annotated[_Row, Field(description="a table")] = option(_Row(), "X-4.1", "a table, annotated")
    named: dict[str, int] = option({}, "X-4.1", "a mapping of names the game does not declare")
    rolls: _Rows = option(_Rows(), "X-3.1", "a table of numbered rows")


@pytest.mark.parametrize(("path", "says"), [
    ("options.maybe.short", None),  # a table that may be none is stepped into
    ("options.maybe.shrt", "options.maybe.shrt: no such option; did you mean options.maybe.short?"),
    ("options.kept.long", None),
    ("options.kept.long.x", "options.kept.long is a single value"),
    ("options.named.anything", None),  # free keys: the model says what it takes
    ("options.rolls.roll_11", "options.rolls.roll_11: no such option (the options there: roll_1, roll_2, roll_10)"),
    ("options.rolls.roll_0", "(the options there: roll_1, roll_2, roll_10)"),
    ("options.rolls.rol_1", "did you mean options.rolls.roll_1?"),
])
def test_an_options_path_goes_into_tables_however_they_are_annotated(path, says):
    found = option_path_problem(_Wrapped, path)
    assert found == says if says is None else says in (found or "")
