"""A battle's state written back once and read from its text after (:class:`rangefire.web.dumps.Dumps`): each read
equals the game's own writing of that very state (``Ruleset.dump``, worked out again here), is a mapping of its
own, and the text kept stays within its bounds; a card game's view of one side (a state made for the asking token)
is written afresh."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi")

from rangefire.rulesets import battle_from_mapping
from rangefire.scenario import parse_scenario
from rangefire.web.dumps import Dumps
from rangefire.web.service import examples


def example(name: str):
    found = next(e for e in examples() if e.name == name)
    return battle_from_mapping(parse_scenario(found.text, "yaml", found.name))


@pytest.mark.parametrize("name", ["wheatfield", "ford", "temple", "mist-bridge", "sawblade", "ambush"])
def test_a_state_read_again_equals_the_games_writing_and_is_a_mapping_of_its_own(name):
    ruleset, battle = example(name)
    dumps = Dumps()
    first, again = dumps.of(ruleset, battle), dumps.of(ruleset, battle)
    assert first == again == ruleset.dump(battle)
    assert json.dumps(again) == json.dumps(ruleset.dump(battle))  # keys in the same order
    for value in again.values():  # every list and table of the mapping read emptied
        if isinstance(value, list | dict):
            value.clear()
    again["name"] = "changed"
    assert dumps.of(ruleset, battle) == ruleset.dump(battle)
    assert len(dumps) == 1


def test_another_state_is_written_for_itself():
    ruleset, battle = example("wheatfield")
    dumps = Dumps()
    dumps.of(ruleset, battle)
    moved = battle.model_copy(update={"units": battle.units[1:]})
    assert dumps.of(ruleset, moved) == ruleset.dump(moved) != ruleset.dump(battle)
    assert dumps.of(ruleset, battle) == ruleset.dump(battle)


def test_the_latest_states_are_kept_within_the_bounds():
    ruleset, battle = example("wheatfield")
    states = [battle.model_copy(update={"name": f"battle {n}"}) for n in range(4)]
    dumps = Dumps(most=2)
    for state in states:
        dumps.of(ruleset, state)
    assert len(dumps) == 2
    assert [dumps.of(ruleset, s)["name"] for s in states] == [f"battle {n}" for n in range(4)]
    size = len(json.dumps(ruleset.dump(battle), ensure_ascii=False, separators=(",", ":")))
    small = Dumps(most_chars=size + size // 2)
    for state in states:
        assert small.of(ruleset, state) == ruleset.dump(state)
    assert len(small) == 1
    assert len(Dumps(most_chars=10).of(ruleset, battle)) and len(Dumps(most_chars=10)) == 0


def test_a_hand_kept_from_the_asking_side_is_written_afresh(client, new_battle):
    """swerve's hands: a side's state is the game's view for that side, made for the request, never kept."""
    battle = new_battle("ambush")
    dumps = client.app.state.battles._dumps
    before = len(dumps)
    for side in battle.sides:
        assert battle.get("", token=battle.sides[side]).status_code == 200
    assert len(dumps) == before
    assert battle.get("", token=battle.spectator).status_code == 200
    assert len(dumps) == before
    open_game = new_battle("wheatfield")  # nothing kept from anyone: the state itself, kept once for every reader
    for token in (open_game.spectator, *open_game.sides.values()):
        assert open_game.get("", token=token).status_code == 200
    assert len(dumps) == before + 1
