"""The players' choices as data: each game declares them, the library checks them and names them in its errors,
the command line makes its options from them and spells them as options only when it prints an error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rangefire.cli import app
from rangefire.cli.common import declared_choices, flag
from rangefire.core import CHOICE_KINDS, Attack, Choice, ChoiceError, RangefireError, SeededSource
from rangefire.demo import example_path
from rangefire.rulesets import RULESETS, find_ruleset, load_battle
from tests.commands import run

#: What each game lets the player choose, by the rules: written out here, not read from the declarations.
EXPECTED = {
    "dress-on-the-colors": {},
    "arcane-legions": {"order": ("enum", ("ranged", "close"), "AL-8.1"),
                       "from_side": ("side", ("front", "right", "back", "left"), "AL-3.1"),
                       "to_side": ("side", ("front", "right", "back", "left"), "AL-3.1")},
    "bushido": {"redirect_to": ("unit", (), "BU-4.2")},
    "swerve": {"actions": ("actions", (), "SW-3.1")},
}

#: A battle of each game and a legal attack in it: (example, attacker, target).
LEGAL = {"dress-on-the-colors": ("wheatfield.yaml", "15th-alabama", None),
         "arcane-legions": ("ford.yaml", "archers", "orc-band"),
         "bushido": ("temple.yaml", "yoichi", "takeda"),
         "swerve": ("ambush.yaml", "rail-gun", "dune-buggy")}
CLI = CliRunner()


def battle_of(key: str) -> tuple[Any, Any, str, str | None]:
    example, attacker, target = LEGAL[key]
    ruleset, battle = load_battle(example_path(example))
    assert ruleset.key == key
    return ruleset, battle, attacker, target


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.key)
def test_each_game_declares_the_choices_its_rules_give(ruleset):
    declared = {c.name: (c.kind, c.allowed, c.clause) for c in ruleset.choices}
    assert declared == EXPECTED[ruleset.key]
    assert ruleset.choice_names == tuple(declared)
    assert all(c.help and c.kind in CHOICE_KINDS and c.clause.startswith(ruleset.clause_prefix + "-")
               for c in ruleset.choices)


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.key)
def test_every_fixed_value_declared_is_accepted_and_every_other_game_s_choice_refused(ruleset):
    _, battle, attacker, target = battle_of(ruleset.key)
    for choice in ruleset.choices:
        for value in choice.allowed:
            attack = ruleset.attack(attacker, target, {choice.name: value})
            assert attack.choice(choice.name) == value
            ruleset.check(battle, attack)  # a plan or refusals by clause: never bad input
        assert ruleset.allowed_values(battle, Attack(attacker, target), choice.name) == choice.allowed or \
            not choice.allowed
    others = {c.name for r in RULESETS for c in r.choices} - set(ruleset.choice_names)
    for name in others:
        with pytest.raises(ChoiceError) as caught:
            ruleset.attack(attacker, target, {name: "front"})
        assert caught.value.choice == name and str(caught.value).startswith(f"{name} does not apply to {ruleset.key}")
        with pytest.raises(ChoiceError):  # an Attack built by hand is checked the same way
            ruleset.check(battle, Attack(attacker, target, ((name, "front"),)))


@pytest.mark.parametrize(("key", "name", "value", "says"), [
    ("arcane-legions", "order", "clse", "order: 'clse' is not one of ranged, close"),
    ("arcane-legions", "from_side", "FRONT", "from_side: 'FRONT' is not one of front, right, back, left"),
    ("arcane-legions", "to_side", 3, "to_side: must be text, got 3"),
    ("bushido", "redirect_to", ["a"], "redirect_to: must be text, got ['a']"),
    ("swerve", "actions", 7, "actions: must be a line of play"),
    ("swerve", "actions", ["attacker:pass", None], "actions: action 2 must be text, got None"),
    ("swerve", "actions", ["attacker:pass"] * 1001, "actions: at most 1000 actions, got 1001"),
])
def test_a_bad_value_names_the_choice_never_an_option(key, name, value, says):
    ruleset = find_ruleset(key)
    with pytest.raises(ChoiceError) as caught:
        ruleset.attack("a", "b", {name: value})
    assert caught.value.choice == name and str(caught.value).startswith(says)
    assert "--" not in str(caught.value)


def test_values_that_depend_on_the_battle_are_checked_against_it_and_named_by_the_choice():
    bushido, battle, attacker, target = battle_of("bushido")
    with pytest.raises(ChoiceError) as caught:
        bushido.check(battle, bushido.attack(attacker, target, {"redirect_to": "nobody"}))
    assert caught.value.choice == "redirect_to" and "--" not in str(caught.value)
    swerve, cards, launcher, aimed = battle_of("swerve")
    with pytest.raises(ChoiceError) as caught:
        swerve.check(cards, swerve.attack(launcher, aimed, {"actions": "attacker:fly"}))
    assert caught.value.choice == "actions" and str(caught.value).startswith("actions: action 1 is not an action")


def test_the_models_that_may_be_nominated_are_those_the_check_accepts():
    """BU-4.2: the values of redirect_to in this battle are the nominees; each gives a plan aimed at it, and any
    other model of the battle is refused (by clause) or is not a model at all."""
    bushido, battle, attacker, target = battle_of("bushido")
    nominees = bushido.allowed_values(battle, Attack(attacker, target), "redirect_to")
    assert nominees == ("yojimbo",)
    for uid in bushido.unit_ids(battle):
        checked = bushido.check(battle, bushido.attack(attacker, target, {"redirect_to": uid}))
        assert (checked.plan is not None and checked.plan.target == uid) == (uid in nominees)
    assert bushido.allowed_values(battle, Attack(attacker, attacker), "redirect_to") == ()  # a refused attack


def test_the_actions_open_next_are_each_accepted_and_lead_on():
    """SW-3.1: the values of actions are the actions open to the player who acts next; each one, added to the
    line, is legal and the combat plays out."""
    swerve, battle, attacker, target = battle_of("swerve")
    line: tuple[str, ...] = ()
    for _ in range(50):
        attack = swerve.attack(attacker, target, {"actions": line})
        open_next = swerve.allowed_values(battle, attack, "actions")
        if not open_next:
            break
        for action in open_next:
            assert swerve.check(battle, swerve.attack(attacker, target, {"actions": (*line, action)})).is_legal
        line = (*line, open_next[0])
    else:
        raise AssertionError("the line of play never ended")
    plan = swerve.plan(battle, swerve.attack(attacker, target, {"actions": line}))
    assert plan.complete and swerve.resolve(plan, SeededSource(1)).log


def test_a_choice_declares_a_known_kind():
    with pytest.raises(ValueError, match="kind 'colour'"):
        Choice("colour", "colour")
    assert Choice("order", "enum", ("a",), "h", "AL-1.1").to_dict() == {
        "name": "order", "kind": "enum", "allowed": ["a"], "help": "h", "clause": "AL-1.1"}


# -- the command line ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["check", "odds", "resolve"])
def test_each_attack_command_has_an_option_per_declared_choice(command):
    help_text = CLI.invoke(app, [command, "--help"], env={"COLUMNS": "200"}).stdout
    declared = declared_choices()
    assert set(declared) == {c.name for r in RULESETS for c in r.choices}
    for name, (choice, games) in declared.items():
        assert flag(name) in help_text and choice.help in help_text
        assert all(game in help_text for game in games)
    assert {flag(n) for n in declared} == {"--order", "--from-side", "--to-side", "--redirect-to", "--actions"}


def test_the_command_line_spells_a_choice_as_its_option_when_it_prints_the_error():
    ford = str(example_path("ford.yaml"))
    proc = run("check", ford, "-a", "archers", "-t", "orc-band", "--order", "clse", ok=2)
    assert proc.stderr.strip() == "rangefire: --order: 'clse' is not one of ranged, close"
    proc = run("odds", ford, "-a", "archers", "-t", "orc-band", "--redirect-to", "spearmen", ok=2)
    assert proc.stderr.strip().startswith("rangefire: --redirect-to does not apply to arcane-legions")
    temple = str(example_path("temple.yaml"))
    proc = run("resolve", temple, "-a", "yoichi", "-t", "takeda", "--redirect-to", "nobody", "--seed", "1", ok=2)
    assert proc.stderr.startswith("rangefire: --redirect-to 'nobody' is not in this battle")


@pytest.mark.parametrize(("command", "scenario", "attack", "option"), [
    ("check", "temple.yaml", ("-a", "yoichi", "-t", "oni"), "--redirect-to"),
    ("odds", "ambush.yaml", ("-a", "rail-gun", "-t", "dune-buggy"), "--actions"),
    ("compare", "temple.yaml", ("-a", "yoichi", "-t", "oni", "--variant", "v:options.x=1"), "--redirect-to"),
    ("table", "ambush.yaml", ("-a", "rail-gun", "-t", "dune-buggy", "--vary", "options.x=1"), "--actions"),
])
def test_an_empty_choice_is_refused_not_taken_for_none_given(command, scenario, attack, option):
    """``--redirect-to ''`` and ``--actions ' '`` played the attack as if nothing was given (exit 0), while
    ``--order ''`` was refused: an option given empty is refused naming it, in words and in JSON."""
    args = (command, str(example_path(scenario)), *attack)
    proc = run(*args, option, " ", ok=2)
    assert proc.stderr.strip() == f"rangefire: {option}: an empty value; give one or leave the option out"
    data = json.loads(run(*args, option, "", "--json", ok=2).stdout)
    assert data["error"]["message"] == f"{option.removeprefix('--').replace('-', '_')}: an empty value; give one " \
        "or leave the option out" and data["error"]["kind"] == "invalid_choice"


def test_rulesets_lists_each_game_s_choices():
    data = json.loads(CLI.invoke(app, ["rulesets", "--json"]).stdout)
    for row in data["rulesets"]:
        ruleset = find_ruleset(row["key"])
        assert row["choices"] == [c.to_dict() for c in ruleset.choices]
        assert [c["name"] for c in row["choices"]] == list(EXPECTED[row["key"]])
    shown = CLI.invoke(app, ["rulesets"], env={"COLUMNS": "160"}).stdout
    assert all(flag(name) in shown for names in EXPECTED.values() for name in names)


def test_no_message_of_the_library_spells_an_option():
    """Library messages and notes name choices; only the command line spells them as options."""
    src = Path(__file__).resolve().parents[1] / "src" / "rangefire"
    flags = [flag(name) for names in EXPECTED.values() for name in names]
    for path in src.rglob("*.py"):
        if "cli" in path.parts:
            continue
        for number, text in enumerate(path.read_text().splitlines(), start=1):
            assert not any(f in text for f in flags), f"{path.name}:{number}: {text.strip()}"


def test_a_note_naming_a_choice_reads_as_its_option_at_the_command_line():
    """BU-4.2: the plan says the target's player may nominate another model; the library names the choice,
    the terminal the option that makes it."""
    from rangefire.rulesets import load_battle

    temple = str(example_path("temple.yaml"))
    ruleset, battle = load_battle(temple)
    notes = [n.text for n in ruleset.check(battle, ruleset.attack("yoichi", "takeda")).plan.notes]
    assert any("(choice redirect_to)" in n for n in notes), notes
    proc = run("check", temple, "-a", "yoichi", "-t", "takeda")
    assert "(--redirect-to)" in proc.stdout and "choice redirect_to" not in proc.stdout


def test_choices_given_as_they_were_recorded_play_the_same():
    """A line of play given as a list (as a log or a program gives it) and as the command line's text are one."""
    swerve, battle, attacker, target = battle_of("swerve")
    as_text = swerve.attack(attacker, target, {"actions": "attacker:pass,defender:pass"})
    as_list = swerve.attack(attacker, target, {"actions": ["attacker:pass", "defender:pass"]})
    assert as_text == as_list
    assert swerve.check(battle, as_text).to_dict("swerve") == swerve.check(battle, as_list).to_dict("swerve")
    with pytest.raises(RangefireError):
        swerve.attack(attacker, target, {"actions": {"attacker": "pass"}})
