"""Set-up edits (DC-10.4, AL-10.3, BU-9.3, SW-9.2): before the first turn, units and terrain (swerve's cards) are
placed, changed and removed freely; once a turn is recorded only moves and the results of attacks change the table.

An edit is checked as a file is: the battle with the edit made is validated whole, so a placement is held to every
rule a scenario is (ids used once, bases that do not overlap, sides under the players block), and an error names
the item's path. The order of the sides is still being written in set-up: the sides it records keep their places,
and a side a placed unit names first comes after them (DC-9.4, AL-9.3, BU-8.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, get_args

from pydantic import BaseModel

from rangefire.core import LogLine, RangefireError, Refusal, Ruleset
from rangefire.core.moves import Edit, MoveCheck
from rangefire.rulesets import battle_from_mapping
from rangefire.scenario.order import with_order

#: The sections a set-up edit may change, by game: its pieces and its terrain.
SECTIONS = {"dress-on-the-colors": ("units", "terrain"), "arcane-legions": ("units", "terrain"),
            "bushido": ("units", "terrain"), "swerve": ("cards",)}


def in_setup(ruleset: Ruleset[Any, Any], battle: Any) -> bool:
    """Whether the battle is still being set up: it records no side to act yet (its first turn not begun)."""
    return ruleset.side_to_act(battle) is None


def check_edit(ruleset: Ruleset[Any, Any], battle: Any, edit: Edit) -> MoveCheck:
    """The battle with the edit made and its log line, or the refusal with its clause (a turn is recorded). Bad
    input (a section the game does not have, an id missing or taken, an item that does not validate) is raised
    as :class:`RangefireError` naming the path."""
    clause = ruleset.setup_clause
    sections = SECTIONS.get(ruleset.key, ())
    if clause is None or not sections:
        raise RangefireError(f"{ruleset.key} has no set-up edits")
    if edit.section not in sections:
        raise RangefireError(f"section: {ruleset.key} places {' and '.join(sections)}, not {edit.section!r}")
    if not in_setup(ruleset, battle):
        return MoveCheck(edit.id, refusals=(Refusal(clause, (
            f"the battle is under way (turn recorded, {ruleset.side_to_act(battle)} to act): only moves and the "
            "results of attacks change the table now")),))
    data = ruleset.dump(battle)
    items: list[dict[str, Any]] = list(data.get(edit.section, []))
    where = next((i for i, item in enumerate(items) if item.get("id") == edit.id), None)
    if edit.op == "place":
        if where is not None:
            raise RangefireError(f"{edit.section}[{where}].id: {edit.id!r} is already in the battle; change it or "
                                 "give the new one another id")
        if edit.data.get("id", edit.id) != edit.id:
            raise RangefireError(f"data.id: {edit.data.get('id')!r} is not the id placed ({edit.id!r})")
        items.append({**edit.data, "id": edit.id})
        done = f"{edit.id} placed"
    elif where is None:
        known = ", ".join(str(item.get("id")) for item in items) or "none"
        raise RangefireError(f"{edit.section}: no {edit.id!r} to {edit.op} (ids: {known})")
    elif edit.op == "change":
        if "id" in edit.data and edit.data["id"] != edit.id:
            raise RangefireError("data.id: an id is not changed; remove the item and place it anew")
        items[where] = {**items[where], **edit.data}
        done = f"{edit.id} changed: {', '.join(sorted(edit.data))}"
    else:
        del items[where]
        done = f"{edit.id} removed"
    data[edit.section] = items
    turn = data.get("turn")
    if isinstance(turn, dict) and isinstance(turn.get("order"), list):
        # still being written: the sides it records keep their places (a side whose units are all removed in
        # set-up too), a side first named by a unit placed now comes after them [DC-9.4, AL-9.3, BU-8.4]
        recorded = [str(side) for side in turn["order"]]
        data = with_order({**data, "turn": {k: v for k, v in turn.items() if k != "order"}}, recorded)
    _, after = battle_from_mapping(data, source=f"set-up ({edit.op} {edit.section} {edit.id})")
    return MoveCheck(edit.id, after=after, log=(LogLine(clause, f"set-up: {done} ({edit.section})"),))


def edit(ruleset: Ruleset[Any, Any], battle: Any, change: Edit) -> tuple[Any, list[LogLine]]:
    """The battle after a set-up edit and its log; :class:`~rangefire.core.IllegalMoveError` when the battle is
    under way."""
    from rangefire.core import IllegalMoveError

    checked = check_edit(ruleset, battle, change)
    if not checked.is_legal:
        raise IllegalMoveError(checked.refusals)
    return checked.after, list(checked.log)


__all__ = ["SECTIONS", "check_edit", "edit", "in_setup"]


def _turn_keys(ruleset: Ruleset[Any, Any]) -> set[str]:
    """The keys the game's recorded turn has (``number``, ``side``, ``order``), none where it records no turn."""
    field = ruleset.battle_model.model_fields.get("turn")
    annotation = field.annotation if field is not None else None
    for kind in (*get_args(annotation), annotation):
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            return set(kind.model_fields)
    return set()


def start(ruleset: Ruleset[Any, Any], battle: Any, order: Sequence[str]) -> tuple[Any, list[LogLine]]:
    """The battle started, every side ready: turn 1 of the first side of ``order``, the order of the sides
    recorded (DC-9.4, AL-9.3, BU-8.4), and its log line under the set-up clause. Refused
    (:class:`~rangefire.core.IllegalMoveError`, the set-up clause) once a side to act is recorded, and while a side
    of the order has placed nothing; a unit of a side the order does not name is bad input."""
    from rangefire.core import IllegalMoveError

    clause = ruleset.setup_clause
    if clause is None:
        raise RangefireError(f"{ruleset.key} has no set-up to end")
    if not order:
        raise RangefireError("order: a battle starts with at least one side")
    if not in_setup(ruleset, battle):
        raise IllegalMoveError([Refusal(clause, f"the battle has started already ({ruleset.side_to_act(battle)} "
                                                "to act)")])
    placed = {ruleset.side_of(battle, uid) for uid in ruleset.unit_ids(battle)}
    strangers = sorted(placed - set(order))
    if strangers:
        raise RangefireError(f"order: {strangers[0]!r} has units on the table but is not a side of the battle "
                             f"({', '.join(order)})")
    empty = [side for side in order if side not in placed]
    if empty:
        raise IllegalMoveError([Refusal(clause, f"{empty[0]} has placed nothing: every side places at least one "
                                                "unit before the battle starts")])
    first = order[0]
    data = ruleset.dump(battle)
    keys = _turn_keys(ruleset)
    recorded = data.get("turn")
    turn: dict[str, Any] = {**(recorded if isinstance(recorded, dict) else {}), "number": 1}
    if "order" in keys:
        turn["order"] = list(order)
    if "active_side" in ruleset.battle_model.model_fields:  # a game of activations names the side to act apart
        data["active_side"] = first
    elif "side" in keys:
        turn["side"] = first
    else:
        raise RangefireError(f"{ruleset.key} records no side to act: its battles need no start")
    if keys:
        data["turn"] = turn
    _, after = battle_from_mapping(data, source="the start of the battle")
    return after, [LogLine(clause, f"set-up ends, every side ready: turn 1 begins, {first} to act (the order of the "
                                   f"sides: {', '.join(order)})")]
