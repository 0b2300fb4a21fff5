"""The table page labels a swerve action it has not been told a label for (a line of play the odds list) as the
engine labels the answers it asks for: static/cards.js's actionLabel, run in Node on the battle as the page gets
it, against ``Combat.label`` for every action legal in every position reached, in the examples and in crowded
random positions."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from rangefire.core import Attack
from rangefire.demo import example_path
from rangefire.rulesets import battle_from_mapping, load_battle
from rangefire.rulesets.swerve.combat import Combat
from tests.swerve.test_action_labels import reachable
from tests.swerve.test_best_play import SW, mixed_positions

CARDS_JS = Path(__file__).resolve().parents[2] / "src" / "rangefire" / "web" / "static" / "cards.js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js runs the page's modules here; it is not on this machine")

_PROGRAM = """
import { actionLabel } from %s;
const { battle, target, actions } = JSON.parse(process.argv[2]);
console.log(JSON.stringify(actions.map((a) => actionLabel(a, { battle, target }))));
"""


def page_labels(tmp_path: Path, battle: dict[str, Any], target: str, actions: list[str]) -> list[str]:
    program = tmp_path / "labels.mjs"
    program.write_text(_PROGRAM % json.dumps(CARDS_JS.as_uri()))
    payload = json.dumps({"battle": battle, "target": target, "actions": actions})
    assert NODE is not None
    done = subprocess.run([NODE, str(program), payload], capture_output=True, text=True, timeout=60, check=True)
    labels: list[str] = json.loads(done.stdout)
    return labels


def engine_labels(combat: Combat) -> dict[str, str]:
    return {str(a): combat.label(a) for state in reachable(combat) for a in combat.legal(state)}


def test_the_examples_actions_read_alike_on_the_page(tmp_path: Path) -> None:
    for example, attacker, target in (("ambush", "rail-gun", "dune-buggy"),
                                      ("sawblade", "sawblade-launcher", "road-warrior")):
        ruleset, battle = load_battle(example_path(f"{example}.yaml"))
        combat = ruleset.plan(battle, Attack(attacker, target)).combat
        assert combat is not None
        expected = engine_labels(combat)
        dumped = json.loads(json.dumps(ruleset.dump(battle)))
        assert page_labels(tmp_path, dumped, target, list(expected)) == list(expected.values()), example


@settings(max_examples=25, deadline=None)
@given(mixed_positions())
def test_crowded_positions_read_alike_on_the_page(tmp_path_factory: pytest.TempPathFactory,
                                                  data: dict[str, Any]) -> None:
    battle = battle_from_mapping(data)[1]
    combat = SW.plan(battle, Attack("gun", "car")).combat
    assert combat is not None
    expected = engine_labels(combat)
    dumped = json.loads(json.dumps(SW.dump(battle)))
    got = page_labels(tmp_path_factory.mktemp("labels"), dumped, "car", list(expected))
    assert got == list(expected.values())
