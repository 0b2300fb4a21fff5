"""A unit's move this turn kept, in Arcane Legions and Bushido as in Dress on the Colors: where it stood at the start
of the turn is written by its first move (``start_position``, and ``start_facing`` where units face), cleared when
the turn ends (AL-9.1 for the side whose turn it was, BU-8.2 for every model) or when a move puts it back there."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from rangefire.core.moves import Move
from tests.test_draw import dump_with

F = Fraction


def ford(**changes: Any) -> tuple[Any, Any]:
    """The ford on the legion's turn."""
    return dump_with("ford.yaml", turn={"number": 1, "side": "legion"}, **changes)


def temple() -> tuple[Any, Any]:
    """The temple yard, the prefecture activating (as the example records)."""
    return dump_with("temple.yaml")


def moved(ruleset: Any, battle: Any, *moves: Move) -> Any:
    for move in moves:
        battle, _ = ruleset.move(battle, move)
    return battle


# -- Arcane Legions: kept, cleared [AL-10.1, AL-9.1] -----------------------------------------------------------
def test_an_arcane_legions_move_keeps_where_the_unit_began_its_turn_al_10_1():
    """AL-10.1: the first move writes where the unit stood and faced; a second keeps it; a move back where it began,
    facing as it began, leaves none written (the unit as it was); an unmoved unit writes none in its file."""
    ruleset, battle = ford()
    once = moved(ruleset, battle, Move("spearmen", by=(F(2), F(-1))))
    spear = once.unit("spearmen")
    assert (spear.start_position, spear.start_facing, spear.position) == ((5, 0), 0, (7, -1))
    twice = moved(ruleset, once, Move("spearmen", by=(F(1), F(0)), turn=F(90)))
    assert (twice.unit("spearmen").start_position, twice.unit("spearmen").start_facing) == ((5, 0), 0)
    back = moved(ruleset, twice, Move("spearmen", to=(F(5), F(0)), facing=F(0)))
    assert back.unit("spearmen") == battle.unit("spearmen")
    turned = moved(ruleset, battle, Move("archers", turn=F(30)))
    assert (turned.unit("archers").start_position, turned.unit("archers").start_facing) == ((0, 0), 0)
    units = {u["id"]: u for u in ruleset.dump(once)["units"]}
    assert units["spearmen"]["start_position"] == [5, 0] and units["spearmen"]["start_facing"] == 0
    assert not {"start_position", "start_facing"} & set(units["archers"])


def test_the_end_of_a_side_s_turn_clears_where_its_units_began_al_9_1():
    """AL-9.1: ending the turn clears the start of turn of the side whose turn ends, logged; a unit of the other side
    (moved before any turn was recorded) keeps its own until its side's turn ends."""
    ruleset, battle = dump_with("ford.yaml")  # no turn recorded: any side's unit moves [AL-10.3]
    battle = moved(ruleset, battle, Move("spearmen", by=(F(2), F(-1))), Move("orc-band", by=(F(0), F(1))))
    ended, log = ruleset.end_turn(battle)
    assert ended.unit("spearmen").start_position is None and ended.unit("spearmen").start_facing is None
    assert ended.unit("orc-band").start_position == (F(1, 2), 5)  # the horde's turn has not ended
    assert "[AL-9.1] spearmen: its move this turn is over; where it stood at the start of the turn is no longer " \
           "kept" in [str(line) for line in log]
    again, log = ruleset.end_turn(ended)
    assert again.unit("orc-band").start_position is None and again.unit("orc-band").start_facing is None
    assert not any("spearmen" in str(line) and "no longer kept" in str(line) for line in log)


# -- Bushido: kept, cleared [BU-9.1, BU-8.2] -------------------------------------------------------------------
def test_a_bushido_move_keeps_where_the_model_began_the_turn_bu_9_1():
    """BU-9.1: the first move (or run) writes where the model stood; a second keeps it; a move back leaves none."""
    ruleset, battle = temple()
    once = moved(ruleset, battle, Move("yoichi", by=(F(1), F(4))))
    assert (once.unit("yoichi").start_position, once.unit("yoichi").position) == ((0, 0), (1, 4))
    twice = moved(ruleset, once, Move("yoichi", by=(F(1), F(0)), run=True))
    assert twice.unit("yoichi").start_position == (0, 0)
    back = moved(ruleset, twice, Move("yoichi", to=(F(0), F(0))))
    assert back.unit("yoichi").start_position is None and back.unit("yoichi").position == (0, 0)
    assert "start_position" not in next(u for u in ruleset.dump(battle)["units"] if u["id"] == "kenji")


def test_the_end_of_the_turn_clears_where_models_began_not_the_end_of_an_activation_bu_8_2():
    """BU-8.2: the start stays through the end of an activation (the model is still marked moved) and goes, logged,
    when the turn ends, with moved and ran."""
    ruleset, battle = temple()
    battle = moved(ruleset, battle, Move("yoichi", by=(F(1), F(4))))
    passed, _ = ruleset.end_activation(battle)
    assert passed.unit("yoichi").start_position == (0, 0) and passed.unit("yoichi").has("moved")
    ended, log = ruleset.end_turn(passed)
    assert ended.unit("yoichi").start_position is None and not ended.unit("yoichi").has("moved")
    assert "[BU-8.2] yoichi: aimed, moved, where it stood at the start of the turn cleared" in [str(x) for x in log]


# -- undone ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "uid", "by"), [("ford.yaml", "spearmen", "2,-1"), ("temple.yaml", "yoichi", "1,4")])
def test_a_move_then_its_undo_gives_the_battle_back_exactly(tmp_path, name, uid, by):
    """The start the move wrote goes with the undo: the battle written after it is the example's, key for key."""
    from rangefire.demo import example_path
    from rangefire.rulesets import load_battle
    from tests.commands import run

    log, after, back = tmp_path / "game.jsonl", tmp_path / "after.yaml", tmp_path / "back.yaml"
    run("move", str(example_path(name)), uid, "--by", by, "--log", str(log), "--out", str(after))
    ruleset, moved_battle = load_battle(after)
    assert next(u for u in ruleset.dump(moved_battle)["units"] if u["id"] == uid)["start_position"]
    run("undo", str(example_path(name)), "--log", str(log), "--out", str(back))
    ruleset, restored = load_battle(back)
    assert ruleset.dump(restored) == ruleset.dump(load_battle(example_path(name))[1])
