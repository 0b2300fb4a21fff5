"""One conformance suite over every entry of RULESETS (design section 7).

Each registered game must have reference cases here: a built-in example scenario and an attack known to be
legal and one known to be refused. A game without them fails ``test_every_ruleset_has_reference_cases``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from rangefire.core import Attack, SeededSource
from rangefire.demo import example_path
from rangefire.rulesets import RULESETS, find_ruleset, load_battle
from rangefire.scenario import write_scenario

#: key -> (example file, a legal attack, an attack the rules refuse, the clause that refuses it)
REFERENCE: dict[str, tuple[str, Attack, Attack, str]] = {
    "dress-on-the-colors": ("wheatfield.yaml", Attack("15th-alabama", "20th-maine"),
                            Attack("83rd-pennsylvania", "15th-alabama"), "DC-2.3"),
    "arcane-legions": ("ford.yaml", Attack("archers", "orc-band"), Attack("archers", "spearmen"), "AL-2.3"),
    "bushido": ("temple.yaml", Attack("yoichi", "takeda"), Attack("yoichi", "scout"), "BU-3.2"),
    "swerve": ("ambush.yaml", Attack("rail-gun", "dune-buggy"), Attack("rail-gun", "spotter"), "SW-2.2"),
}

KEYS = [r.key for r in RULESETS]


def test_every_ruleset_has_reference_cases():
    assert sorted(REFERENCE) == sorted(KEYS)


def _case(key: str) -> tuple[Any, Any, Attack, Attack, str]:
    name, legal, refused, clause = REFERENCE[key]
    ruleset, battle = load_battle(example_path(name))
    assert ruleset is find_ruleset(key)
    return ruleset, battle, legal, refused, clause


@pytest.mark.parametrize("key", KEYS)
def test_probabilities_sum_to_one_and_names_are_present(key):
    ruleset, battle, legal, _, _ = _case(key)
    odds = ruleset.odds(ruleset.plan(battle, legal))
    assert set(ruleset.outcome_names) <= set(odds.outcomes)
    assert set(ruleset.event_names) <= set(odds.events)
    for dist in odds.outcomes.values():
        assert sum(dist.probabilities().values(), Fraction(0)) == 1
    assert all(0 <= p <= 1 for p in odds.events.values())
    assert odds.exact


@pytest.mark.parametrize("key", KEYS)
def test_same_seed_same_result(key):
    ruleset, battle, legal, _, _ = _case(key)
    plan = ruleset.plan(battle, legal)
    runs = [ruleset.resolve(plan, SeededSource(99)) for _ in range(2)]
    assert runs[0] == runs[1]


@pytest.mark.parametrize("key", KEYS)
def test_resolve_out_round_trips_through_check(key, tmp_path):
    ruleset, battle, legal, _, _ = _case(key)
    _, after = ruleset.play(battle, legal, SeededSource(4))
    path = tmp_path / "after.yaml"
    write_scenario(path, ruleset.dump(after))
    again_ruleset, again = load_battle(path)
    assert again_ruleset is ruleset and again == after
    # the battle read back gives the same verdict as the battle in memory, whatever that verdict is
    for attack in (legal, Attack(legal.attacker)):
        assert ruleset.check(again, attack).to_dict(key) == ruleset.check(after, attack).to_dict(key)


@pytest.mark.parametrize("key", KEYS)
def test_refusals_carry_clauses(key):
    ruleset, battle, _, refused, clause = _case(key)
    checked = ruleset.check(battle, refused)
    assert not checked.is_legal
    assert checked.refusals[0].clause == clause
    assert all(r.clause.startswith(ruleset.clause_prefix + "-") and r.reason for r in checked.refusals)


@pytest.mark.parametrize("key", KEYS)
def test_log_lines_carry_clauses_and_outcome_names(key):
    ruleset, battle, legal, _, _ = _case(key)
    res = ruleset.resolve(ruleset.plan(battle, legal), SeededSource(1))
    assert res.log and all(line.clause.startswith(ruleset.clause_prefix + "-") for line in res.log)
    assert set(ruleset.outcome_names) | set(ruleset.event_names) <= set(res.outcome.to_dict())
    assert set(res.dice) <= set(ruleset.stages)


@pytest.mark.parametrize("key", KEYS)
def test_sides_and_enemies(key):
    """Every game names each unit's side; sides come in the order they first appear; an attacker's enemies are
    the targetable units of every other side (the legal reference target among them)."""
    ruleset, battle, legal, _, _ = _case(key)
    ids = list(ruleset.unit_ids(battle))
    sides = ruleset.sides(battle)
    assert len(sides) >= 2 and len(set(sides)) == len(sides)
    assert {ruleset.side_of(battle, uid) for uid in ids} <= set(sides)
    enemies = ruleset.enemies(battle, legal.attacker)
    assert legal.target in enemies
    mine = ruleset.side_of(battle, legal.attacker)
    assert all(ruleset.side_of(battle, uid) != mine for uid in enemies)
    assert [uid for uid in ids if uid in enemies] == enemies  # file order
