"""The command line's contract for programs (issue 11): ``--version``, a ``format`` in every JSON output, errors
as JSON under ``--json`` (the library's :func:`rangefire.core.error_data`) with the same exit codes."""

from __future__ import annotations

import json
import re

import pytest

import rangefire
from rangefire.core import (
    FORMAT,
    ChoiceError,
    DiceError,
    IllegalAttackError,
    LimitError,
    RangefireError,
    Refusal,
    ScenarioError,
    UnknownRulesetError,
    UnknownUnitError,
    error_data,
)
from rangefire.demo import example_path
from tests.commands import run

WHEATFIELD = str(example_path("wheatfield.yaml"))


def test_version():
    proc = run("--version")
    assert proc.stdout.strip() == f"rangefire {rangefire.__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+", rangefire.__version__)


# -- every JSON output carries its format ---------------------------------------------------------
@pytest.mark.parametrize("args", [
    ("rulesets",),
    ("check", WHEATFIELD, "-a", "15th-alabama"),
    ("check", WHEATFIELD, "-a", "20th-maine", "-t", "4th-texas"),  # refused: exit 1, still a result
    ("odds", WHEATFIELD, "-a", "15th-alabama"),
    ("resolve", WHEATFIELD, "-a", "15th-alabama", "--seed", "3"),
    ("targets", WHEATFIELD),
    ("demo",),
])
def test_every_json_output_carries_the_format(args):
    proc = run(*args, "--json", ok=None)
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(proc.stdout)
    assert data["format"] == FORMAT == 1
    assert next(iter(data)) == "format"


def test_end_turn_and_replay_json_carry_the_format(tmp_path):
    log = tmp_path / "turn.jsonl"
    data = json.loads(run("end-turn", WHEATFIELD, "--out", str(tmp_path / "after.yaml"), "--log", str(log),
                          "--json").stdout)
    assert data["format"] == FORMAT
    assert json.loads(run("replay", WHEATFIELD, str(log), "--json").stdout)["format"] == FORMAT


# -- errors as JSON ------------------------------------------------------------------------------
def _json_error(*args: str, code: int) -> dict[str, object]:
    proc = run(*args, "--json", ok=code)
    assert proc.stderr == ""
    data = json.loads(proc.stdout)
    assert set(data) == {"format", "error"} and data["format"] == FORMAT
    error = data["error"]
    assert {"kind", "message", "path", "clause"} <= set(error)
    return error


def test_an_unknown_unit_is_a_json_error_with_exit_2():
    error = _json_error("check", WHEATFIELD, "-a", "nobody", code=2)
    assert error["kind"] == "unknown_unit"
    assert "'nobody' is not in this battle" in error["message"]
    assert error["path"] is None and error["clause"] is None


def test_a_scenario_error_names_the_path_and_lists_every_problem(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: dress-on-the-colors\nunits:\n  - {id: a, side: b, stands: -3}\n")
    error = _json_error("odds", str(bad), "-a", "a", code=2)
    assert error["kind"] == "invalid_scenario"
    assert error["path"] == "units[0].stands"
    assert error["source"] == str(bad)
    problems = {p["path"]: p["message"] for p in error["problems"]}
    assert problems["units[0].stands"] == "must be a whole number >= 1, got -3"
    assert problems["units[0].weapon"] == "is required"


def test_a_refused_attack_is_a_json_error_with_exit_1_and_its_clause():
    error = _json_error("resolve", WHEATFIELD, "-a", "20th-maine", "-t", "4th-texas", "--seed", "1", code=1)
    assert error["kind"] == "illegal_attack"
    assert error["clause"] == "DC-2.1"
    assert error["refusals"] == [{"clause": "DC-2.1", "reason": "4th-texas is outside 20th-maine's 45° forward arc"}]


def test_a_bad_option_value_of_ours_is_a_json_error():
    error = _json_error("resolve", WHEATFIELD, "-a", "15th-alabama", "--seed", "x", code=2)
    assert error["kind"] == "invalid_input" and "--seed" in error["message"]


@pytest.mark.parametrize(("args", "option"), [
    (("check", WHEATFIELD), "--attacker"),             # a missing option
    (("nosuch",), None),                               # an unknown command
    (("check", WHEATFIELD, "-a", "x", "--bogus"), None),  # an unknown option
])
def test_usage_errors_are_json_too(args, option):
    error = _json_error(*args, code=2)
    assert error["kind"] == "usage"
    assert error["parameter"] == option
    assert error["message"]


def test_without_json_errors_stay_one_line_on_stderr():
    proc = run("check", WHEATFIELD, "-a", "nobody", ok=2)
    assert proc.stdout == "" and proc.stderr.startswith("rangefire: attacker 'nobody'")


def test_json_after_a_double_dash_is_not_the_option():
    """``--`` ends the options: a file named ``--json`` after it is a file, and errors stay for people."""
    proc = run("check", "-a", "x", "--", "--json", ok=2)
    assert proc.stdout == "" and "rangefire:" in proc.stderr


# -- the library's mapping -----------------------------------------------------------------------
def test_every_error_class_has_its_own_stable_kind():
    errors = [RangefireError("x"), ScenarioError(["x"]), UnknownRulesetError("x"), UnknownUnitError("x"),
              IllegalAttackError([Refusal("DC-2.1", "x")]), DiceError("x"), LimitError("x"), ChoiceError("order", "x")]
    kinds = [error_data(e)["error"]["kind"] for e in errors]
    assert len(set(kinds)) == len(kinds)
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", k) for k in kinds)
    assert error_data(ChoiceError("order", "x"))["error"]["choice"] == "order"


@pytest.mark.parametrize(("problem", "path", "message"), [
    ("units[2].stands: must be >= 1", "units[2].stands", "must be >= 1"),
    ('players["Mr. X"].deck: must be a list', 'players["Mr. X"].deck', "must be a list"),
    ('terrain[0]["a: b"]: unknown key', 'terrain[0]["a: b"]', "unknown key"),
    ("(top level): must be a mapping of keys", "", "must be a mapping of keys"),
    ("line 3: not valid JSON", None, "line 3: not valid JSON"),
    ("cannot read: permission denied", None, "cannot read: permission denied"),
])
def test_a_problem_is_split_into_its_path_and_message(problem, path, message):
    data = error_data(ScenarioError([problem], source="s.yaml"))["error"]
    assert data["problems"] == [{"path": path, "message": message}]
    assert data["path"] == path


def test_an_illegal_attack_without_refusals_has_no_clause():
    assert error_data(IllegalAttackError([]))["error"]["clause"] is None


def test_error_data_is_json_ready():
    data = error_data(IllegalAttackError([Refusal("DC-2.4", "too far")]))
    assert json.loads(json.dumps(data)) == data


def test_the_help_lists_every_command_and_each_command_runs_alone():
    """A process builds only the command it runs; the help without one lists them all."""
    listed = run("--help").stdout
    for name in ("rulesets", "check", "odds", "resolve", "targets", "show", "end-turn", "replay", "schema", "demo"):
        assert name in listed, name
    assert "end-turn" in run("end-turn", "--help").stdout
    assert "No such command" in run("nosuch", ok=2).stderr
