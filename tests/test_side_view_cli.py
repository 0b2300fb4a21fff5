"""One side's view at the command line [SW-1.4]: the command line reads the whole battle (every hand of cards)
and says so; ``--side S`` works a check or the odds out on what S sees, another player's hand unknown."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from rangefire.core.schemas import OddsOutput
from tests.commands import run

HANDS = {
    "ruleset": "swerve", "name": "hands",
    "players": {"jason": {"deck": [5, 10, 0, 15], "deck_order": "known"},
                "tyler": {"deck": [10, 0], "deck_order": "known"}},
    "cards": [
        {"id": "launcher", "owner": "jason", "type": "weapon", "name": "Sawblade Launcher", "mission": "canyon",
         "timing": "main", "ranged": {"accuracy": 30, "damage": 1, "cost": "swerve-self", "targets": ["unit"]}},
        {"id": "warrior", "owner": "tyler", "type": "unit", "name": "Road Warrior", "speed": 30, "swerved": True,
         "toughness": 2, "mission": "canyon"},
        {"id": "smoke", "owner": "tyler", "type": "tactic", "name": "Smoke Screen", "timing": "combat",
         "effect": {"speed": 10}},
    ],
    "hands": {"tyler": ["smoke"]},
}


def write(tmp_path: Path, data: dict[str, object], name: str = "hands.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def test_odds_as_one_side_see_only_its_hand_sw_1_4(tmp_path):
    whole = json.loads(run("odds", str(write(tmp_path, HANDS)), "-a", "launcher", "-t", "warrior", "--json").stdout)
    seen = json.loads(run("odds", str(write(tmp_path, HANDS)), "-a", "launcher", "-t", "warrior", "--side", "jason",
                          "--json").stdout)
    blind = {**HANDS, "cards": HANDS["cards"][:2], "hands": {"tyler": []}}  # type: ignore[index]
    without = json.loads(run("odds", str(write(tmp_path, blind, "blind.yaml")), "-a", "launcher", "-t", "warrior",
                             "--json").stdout)
    assert whole["events"] == {"attacker_wins": "0"}  # tyler plays his smoke screen
    assert seen["events"] == without["events"] == {"attacker_wins": "1"}
    assert "smoke" not in json.dumps({k: v for k, v in seen.items() if k != "hidden"})
    assert seen["hidden"]["hands"] == {"tyler": 1} and "unknown to you" in seen["hidden"]["note"]
    OddsOutput.model_validate(seen)  # the key is in the output's schema
    assert "hidden" not in whole
    tyler = json.loads(run("odds", str(write(tmp_path, HANDS)), "-a", "launcher", "-t", "warrior", "--side", "tyler",
                           "--json").stdout)
    assert tyler["events"] == whole["events"] and "hidden" not in tyler  # jason holds nothing: tyler sees all


def test_the_whole_view_is_said_and_a_side_not_in_the_battle_is_refused(tmp_path):
    scenario = str(write(tmp_path, HANDS))
    said = run("check", scenario, "-a", "launcher", "-t", "warrior").stdout
    assert "the whole battle, every hand of cards counted (--side S" in said
    seen = run("check", scenario, "-a", "launcher", "-t", "warrior", "--side", "jason").stdout
    assert "unknown to you" in " ".join(seen.split())
    refused = run("odds", scenario, "-a", "launcher", "-t", "warrior", "--side", "bob", ok=2)
    assert "--side 'bob': not a side of this battle (its sides: jason, tyler)" in refused.stderr
    data = json.loads(run("check", scenario, "-a", "launcher", "-t", "warrior", "--side", "bob", "--json",
                          ok=2).stdout)
    assert "not a side" in data["error"]["message"]
