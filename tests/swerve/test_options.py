"""swerve's house rules as data: the target's swerve (SW-3.4), the timings usable in ranged combat (SW-3.5), an empty
deck's bonus (SW-4.2), ties (SW-4.3) and the toughness of a card that prints none (SW-5.3) are options with the
rules' values as defaults; each changes exactly what its clause governs, is named beside the rules' value, is
refused with its path when bad, and is written back with the battle.

The set-up of tests/swerve/test_rules.py: Jason's launcher (accuracy 30, damage 1) against Tyler's unit (speed 20,
toughness 1 here).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from rangefire.core import Attack, SeededSource
from rangefire.core.options import house_rules, option_rows
from rangefire.rulesets import battle_from_mapping, load_battle
from rangefire.rulesets.swerve.scenario import Options
from rangefire.scenario.paths import parse_setting
from tests.commands import assert_setting_refused, run
from tests.swerve.test_rules import SW

SAWBLADE = Path(__file__).resolve().parents[2] / "src" / "rangefire" / "examples" / "sawblade.yaml"
SAWBLADE_ATTACK = ("-a", "sawblade-launcher", "-t", "road-warrior")

# -- (a) the rules' values, written out from the rules' text -----------------------------------------------
RULES: dict[str, tuple[Any, str]] = {
    "options.target_swerve_speed": (1, "SW-3.4"),  # add its speed to total speed once more (20 becomes 40)
    "options.usable_timings": (("combat", "ranged-combat"), "SW-3.5"),  # those timed Combat or Ranged Combat can
    "options.empty_deck_bonus": (0, "SW-4.2"),  # an empty deck gives bonus 0
    "options.attacker_wins_ties": (False, "SW-4.3"),  # on equal totals the defender wins
    "options.unprinted_toughness": (1, "SW-5.3"),  # a card without toughness is destroyed by 1 damage
}


def test_every_option_defaults_to_the_rules_value_with_its_clause():
    """(a) Each option's default is the value the rules give, under the clause that gives it."""
    assert {row.path: (row.default, row.clause) for row in option_rows(Options)} == RULES
    assert house_rules(Options()) == []


# -- (b) a changed option changes exactly what its clause governs -------------------------------------------
def scenario(deck: list[int], *cards: dict[str, Any], target: dict[str, Any] | None = None,
             hands: dict[str, list[str]] | None = None) -> dict[str, Any]:
    unit = {"id": "unit", "owner": "tyler", "type": "unit", "speed": 20, "toughness": 1, "mission": "canyon",
            **(target or {})}
    return {"ruleset": "swerve",
            "players": {"jason": {"deck": deck, "deck_order": "known"}, "tyler": {"deck": [0]}},
            "cards": [{"id": "launcher", "owner": "jason", "type": "weapon", "timing": "main", "mission": "canyon",
                       "ranged": {"accuracy": 30, "damage": 1, "cost": "swerve-self", "targets": ["unit"]}},
                      unit, *cards],
            "hands": hands or {}}


#: A line of play and what it comes to: whether the line is legal (with the clause refusing it), the totals
#: before the reveal, the bonus revealed, who wins and the damage, whether the target is destroyed.
def observe(data: dict[str, Any], actions: tuple[str, ...]) -> dict[str, Any]:
    _, battle = battle_from_mapping(data)
    attack = Attack("launcher", "unit", (("actions", actions),))
    checked = SW.check(battle, attack)
    if checked.plan is None:
        return {"verdict": tuple(r.clause for r in checked.refusals), "totals": None, "bonus": None,
                "wins": None, "damage": None, "destroyed": None}
    plan = checked.plan
    resolution = SW.resolve(plan, SeededSource(1))  # the deck's order is known: nothing is rolled
    out = resolution.outcome
    return {"verdict": (), "totals": plan.final, "bonus": out.bonus, "wins": out.attacker_wins,
            "damage": out.damage, "destroyed": out.destroyed}


RESULT = {"wins", "damage", "destroyed"}
BRAWL = {"id": "brawl", "owner": "tyler", "type": "tactic", "timing": "close-combat", "effect": {"speed": 20}}
#: For each option: a scenario and a line of play where its clause applies, a new value, what must change.
CASES: dict[str, tuple[dict[str, Any], tuple[str, ...], Any, set[str]]] = {
    # swerving the 20-speed target: 40 by the rules (30 + 15 = 45 wins), 60 at twice its speed (45 loses)
    "options.target_swerve_speed": (scenario([15]), ("attacker:pass", "defender:swerve-target", "attacker:pass",
                                                     "defender:pass"), 2, {"totals"} | RESULT),
    # a Close Combat tactic is refused by the rules [SW-3.5]; usable when the house rule allows the timing
    "options.usable_timings": (scenario([15], BRAWL, hands={"tyler": ["brawl"]}),
                               ("attacker:pass", "defender:play:brawl", "attacker:pass", "defender:pass"),
                               ["combat", "ranged-combat", "close-combat"], {"verdict", "totals", "bonus"} | RESULT),
    # an empty deck: 30 + 0 against 20 wins; with a bonus of -15, 15 against 20 loses
    "options.empty_deck_bonus": (scenario([]), ("attacker:pass", "defender:pass"), -15, {"bonus"} | RESULT),
    # 30 + 10 against 40 (the target swerved): the defender's by the rules, the attacker's by the house rule
    "options.attacker_wins_ties": (scenario([10]), ("attacker:pass", "defender:swerve-target", "attacker:pass",
                                                    "defender:pass"), True, RESULT),
    # a target printing no toughness, hit for 1: destroyed by the rules, not when 2 damage destroys it
    "options.unprinted_toughness": (scenario([5], target={"toughness": None}), ("attacker:pass", "defender:pass"),
                                    2, {"destroyed"}),
}


def with_option(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    return {**data, "options": {path.split(".")[1]: value}}


def test_every_option_has_a_case():
    assert set(CASES) == set(RULES)


@pytest.mark.parametrize("path", list(CASES))
def test_a_changed_option_changes_exactly_what_its_clause_governs(path):
    """(b) Set to another valid value where its clause applies, the option changes what the clause governs and
    nothing else; the battle's house rules name it with its clause."""
    data, actions, value, governs = CASES[path]
    before, after = observe(data, actions), observe(with_option(data, path, value), actions)
    assert {key for key in before if before[key] != after[key]} == governs, (before, after)
    _, battle = battle_from_mapping(with_option(data, path, value))
    [rule] = house_rules(battle.options)
    assert (rule.path, rule.clause) == (path, RULES[path][1])


def test_best_play_answers_to_the_house_rules():
    """SW-6.2 under house rules: the search and the reference walk of every line agree, with the target's swerve
    worth twice its speed and ties to the attacker (the search's proof needs only that speed never helps the
    attacker)."""
    data = scenario([0, 5, 10, 15, 20], {"id": "smoke", "owner": "tyler", "type": "tactic", "timing": "combat",
                                         "effect": {"speed": 5}},
                    {"id": "boost", "owner": "jason", "type": "tactic", "timing": "combat",
                     "effect": {"accuracy": 10}}, hands={"tyler": ["smoke"], "jason": ["boost"]})
    data["players"]["jason"]["deck_order"] = "unknown"
    values = set()
    for options in ({}, {"target_swerve_speed": 2}, {"attacker_wins_ties": True},
                    {"target_swerve_speed": 0, "attacker_wins_ties": True}):
        _, battle = battle_from_mapping({**data, "options": options})
        combat = SW.check(battle, Attack("launcher", "unit")).plan.combat
        start = combat.start()
        assert combat.score(start) == combat.exhaustive_score(start), options
        values.add(combat.value(start))
    assert len(values) == 4  # each house rule changes the odds of best play


# -- (c) the explanation names the house rule beside the rules' value -------------------------------------
def explained(data: dict[str, Any], actions: tuple[str, ...]) -> str:
    _, battle = battle_from_mapping(data)
    checked = SW.check(battle, Attack("launcher", "unit", (("actions", actions),)))
    texts = [str(r) for r in checked.refusals]
    if checked.plan is not None:
        texts += [n.text for n in checked.plan.notes]
        texts += [line.text for line in SW.resolve(checked.plan, SeededSource(1)).log]
    return "\n".join(texts)


@pytest.mark.parametrize(("path", "says"), [
    ("options.target_swerve_speed", "total speed 20 + 40 (2 times its speed (house rule; the rules say 1)) = 60"),
    ("options.usable_timings", "timed Combat, Close Combat and Ranged Combat are usable (house rule; the rules say "
                               "Combat and Ranged Combat)"),
    ("options.empty_deck_bonus", "jason's deck is empty: combat bonus -15 (house rule; the rules say 0)"),
    ("options.attacker_wins_ties", "the attacker wins (equal totals) (house rule; the rules say the defender wins)"),
    ("options.unprinted_toughness", "prints no toughness: 2 damage destroys it (house rule; the rules say 1)"),
])
def test_the_explanation_names_the_house_rule_beside_the_rules_value(path, says):
    data, actions, value, _ = CASES[path]
    assert says in explained(with_option(data, path, value), actions)
    assert "house rule" not in explained(data, actions)


def test_a_refused_timing_names_the_timings_the_battle_allows():
    """SW-3.5: the refusal lists the usable timings, and names a house rule beside the rules' ones."""
    data, actions, _, _ = CASES["options.usable_timings"]
    assert "only Combat and Ranged Combat are usable here [SW-3.5]" in explained(data, actions)
    only = with_option(data, "options.usable_timings", ["combat"])
    assert "only Combat is usable here (house rule; the rules say Combat and Ranged Combat)" in explained(only, actions)


def test_timings_are_a_set_in_the_rules_order():
    assert Options.model_validate({"usable_timings": ["ranged-combat", "combat", "combat"]}) == Options()


# -- (d) bad values exit 2 naming the path --------------------------------------------------------------------
@pytest.mark.parametrize(("setting", "says"), [
    ("options.target_swerve_speed=-1", "options.target_swerve_speed"),
    ("options.target_swerve_speed=11", "options.target_swerve_speed"),
    ("options.usable_timings=[combat, dawn]", "options.usable_timings[1]"),
    ("options.empty_deck_bonus=lots", "options.empty_deck_bonus"),
    ("options.unprinted_toughness=0", "options.unprinted_toughness"),
    ("options.hand_limit=3", "options.hand_limit: no such option"),
])
def test_a_bad_value_exits_2_naming_the_path(setting, says):
    assert_setting_refused(SAWBLADE, SAWBLADE_ATTACK, setting, says)


# -- (e) options round-trip through a written battle -----------------------------------------------------------
def test_house_rules_round_trip_through_a_written_battle(tmp_path):
    after = tmp_path / "after.yaml"
    sets = ["options.target_swerve_speed=2", "options.usable_timings=[combat]", "options.empty_deck_bonus=3",
            "options.unprinted_toughness=4"]
    args = [a for s in sets for a in ("--set", s)]
    out = json.loads(run("resolve", str(SAWBLADE), *SAWBLADE_ATTACK, *args, "--out", str(after), "--json").stdout)
    assert {h["path"] for h in out["house_rules"]} == {s.split("=")[0] for s in sets}
    written = yaml.safe_load(after.read_text())
    assert written["options"]["usable_timings"] == ["combat"] and written["options"]["target_swerve_speed"] == 2
    _, reread = load_battle(after)
    _, given = load_battle(SAWBLADE, [parse_setting(s) for s in sets])
    assert reread.options == given.options and house_rules(reread.options) == house_rules(given.options)


def test_the_status_counts_damage_against_the_battles_toughness():
    data = with_option(scenario([5], target={"toughness": None}), "options.unprinted_toughness", 3)
    _, battle = battle_from_mapping(data)
    assert next(row for row in SW.status(battle) if row["id"] == "unit")["damage"] == "0/3"
