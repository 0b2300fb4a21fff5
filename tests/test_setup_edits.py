"""Set-up edits (DC-10.4, AL-10.3, BU-9.3, SW-9.2): before the first turn units and terrain (swerve's cards) are
placed, changed and removed freely, each edit checked as a scenario file is; once a turn is recorded, refused."""

from __future__ import annotations

from typing import Any

import pytest

from rangefire.core import Edit, IllegalMoveError, RangefireError, ScenarioError
from rangefire.demo import example_path
from rangefire.rulesets import battle_from_mapping, load_battle
from rangefire.rulesets.setup import check_edit, edit, in_setup
from tests.conftest import unit

EXAMPLES = {"DC-10.4": "wheatfield.yaml", "AL-10.3": "ford.yaml", "BU-9.3": "temple.yaml", "SW-9.2": "sawblade.yaml"}


def dc(*units: dict[str, Any], **top: Any) -> Any:
    return battle_from_mapping({"ruleset": "dress-on-the-colors", "units": list(units), **top})


def test_place_change_and_remove_a_unit_in_set_up_dc_10_4():
    """DC-10.4: in set-up a unit is placed, changed and removed; each gives a new battle and a log line with the
    clause; the battle before is untouched."""
    ruleset, battle = dc(unit("b1", "blue", (0, 0)))
    assert in_setup(ruleset, battle)
    placed, log = edit(ruleset, battle, Edit("place", "units", "g1", unit("g1", "grey", (0, 12), 180)))
    assert ruleset.unit_ids(placed) == ["b1", "g1"] and ruleset.unit_ids(battle) == ["b1"]
    assert [str(x) for x in log] == ["[DC-10.4] set-up: g1 placed (units)"]
    changed, log = edit(ruleset, placed, Edit("change", "units", "g1", {"stands": 2, "facing": 90}))
    assert (changed.unit("g1").stands, changed.unit("g1").facing) == (2, 90)
    assert changed.unit("b1") == placed.unit("b1")  # no other unit changes
    assert str(log[0]) == "[DC-10.4] set-up: g1 changed: facing, stands (units)"
    removed, _ = edit(ruleset, changed, Edit("remove", "units", "b1"))
    assert ruleset.unit_ids(removed) == ["g1"]


def test_the_order_of_the_sides_follows_the_set_up_dc_10_4_dc_9_4():
    """DC-10.4 with DC-9.4: a side first named by a unit placed in set-up takes its place after the sides recorded;
    a side whose units are all removed keeps its place (its player places again), as do sides named before any
    unit (a battle created empty for two sides)."""
    ruleset, battle = dc(unit("b1", "blue", (0, 0)))
    assert battle.turn.order == ("blue",)
    placed, _ = edit(ruleset, battle, Edit("place", "units", "g1", unit("g1", "grey", (0, 12), 180)))
    assert placed.turn.order == ("blue", "grey")
    gone, _ = edit(ruleset, placed, Edit("remove", "units", "b1"))
    assert gone.turn.order == ("blue", "grey") and ruleset.unit_ids(gone) == ["g1"]
    _, named = dc(unit("g1", "grey", (0, 12), 180), turn={"order": ["blue", "grey"]})
    first, _ = edit(ruleset, named, Edit("place", "units", "b1", unit("b1", "blue", (0, 0))))
    assert first.turn.order == ("blue", "grey")
    empty, _ = edit(ruleset, first, Edit("remove", "units", "g1"))
    assert ruleset.unit_ids(empty) == ["b1"] and empty.turn.order == ("blue", "grey")


def test_terrain_is_placed_and_removed_in_set_up_dc_10_4():
    ruleset, battle = dc(unit("b1", "blue", (0, 0)))
    wall = {"kind": "heavy", "polygon": [[0, 5], [4, 5], [4, 6], [0, 6]]}
    placed, log = edit(ruleset, battle, Edit("place", "terrain", "wall", wall))
    assert [t.id for t in placed.terrain] == ["wall"] and "wall placed (terrain)" in log[0].text
    assert edit(ruleset, placed, Edit("remove", "terrain", "wall"))[0].terrain == ()


@pytest.mark.parametrize("clause", sorted(EXAMPLES))
def test_once_a_turn_is_recorded_set_up_edits_are_refused(clause):
    """DC-10.4, AL-10.3, BU-9.3, SW-9.2: with a side to act recorded, any edit is refused under the game's set-up
    clause (a rules refusal, not bad input); before, the same edit is taken."""
    ruleset, battle = load_battle(example_path(EXAMPLES[clause]))
    section = "cards" if clause == "SW-9.2" else "units"
    first = ruleset.unit_ids(battle)[0]
    change = Edit("remove", section, first)
    if in_setup(ruleset, battle):
        assert check_edit(ruleset, battle, change).is_legal
        data = ruleset.dump(battle)
        if "active_side" in ruleset.battle_model.model_fields:
            data["active_side"] = ruleset.sides(battle)[0]
        else:
            data["turn"] = {**data.get("turn", {}), "number": 1, "side": ruleset.sides(battle)[0]}
        _, battle = battle_from_mapping(data)
    checked = check_edit(ruleset, battle, change)
    assert not checked.is_legal and [r.clause for r in checked.refusals] == [clause]
    assert "only moves and the results of attacks change the table now" in checked.refusals[0].reason
    with pytest.raises(IllegalMoveError, match=rf"\[{clause}\]"):
        edit(ruleset, battle, change)


def test_an_edit_is_checked_as_a_scenario_file_is():
    """A placement or change that a scenario file could not hold is bad input naming the path: an id already
    taken, a missing id, a bad value, bases that overlap (BU-2.3), a section the game does not have."""
    ruleset, battle = dc(unit("b1", "blue", (0, 0)))
    with pytest.raises(RangefireError, match=r"units\[0\]\.id: 'b1' is already in the battle"):
        check_edit(ruleset, battle, Edit("place", "units", "b1", unit("b1", "blue", (5, 5))))
    with pytest.raises(RangefireError, match=r"units: no 'zz' to change \(ids: b1\)"):
        check_edit(ruleset, battle, Edit("change", "units", "zz", {"stands": 2}))
    with pytest.raises(ScenarioError, match=r"units\[0\]\.stands"):
        check_edit(ruleset, battle, Edit("change", "units", "b1", {"stands": -3}))
    with pytest.raises(RangefireError, match=r"section: dress-on-the-colors places units and terrain, not 'cards'"):
        check_edit(ruleset, battle, Edit("remove", "cards", "b1"))
    with pytest.raises(RangefireError, match=r"an id is not changed"):
        check_edit(ruleset, battle, Edit("change", "units", "b1", {"id": "b2"}))
    bushido, temple = load_battle(example_path("temple.yaml"))
    if not in_setup(bushido, temple):
        temple = temple.model_copy(update={"active_side": None})
    first = temple.units[0]
    on_top = {"side": first.side, "position": [float(first.position[0]), float(first.position[1])], "base": 30}
    with pytest.raises(ScenarioError, match=r"overlaps the base of .*\[BU-2\.3\]"):
        check_edit(bushido, temple, Edit("place", "units", "newcomer", on_top))


@pytest.mark.parametrize(("fields", "needle"), [
    ({"op": "move"}, r"op: must be one of place, change, remove"),
    ({"op": "remove", "data": {"x": 1}}, r"data: a removal takes no data"),
    ({"op": "place"}, r"data: a placement gives the whole item"),
    ({"op": "change"}, r"data: a change gives the keys it sets"),
])
def test_an_edit_that_says_nothing_sensible_is_refused_as_built(fields, needle):
    with pytest.raises(RangefireError, match=needle):
        Edit(fields["op"], "units", "b1", fields.get("data", {}))
