"""The order of the sides, fixed when a scenario is first read and recorded in the battle (``turn.order``).

DC-9.4, AL-9.3 and BU-8.4 rule the same way: the order in which the turn (or the activation) passes is taken
once, when the scenario is first read (from the order in which its units first name their sides, or where the
game has one, its ``players`` block), and written into the battle, so that a unit destroyed later never changes
it. These helpers work on the raw mapping, before the game's model validates it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import Field

#: A side's name as a battle records it.
SideName = Annotated[str, Field(min_length=1, max_length=64)]
#: The most sides an order records (one per unit at the most).
MAX_SIDES = 1_000
#: A recorded order of the sides.
Order = Annotated[tuple[SideName, ...], Field(min_length=1, max_length=MAX_SIDES)]


def as_if_unrecorded(before: dict[str, Any]) -> dict[str, Any]:
    """A battle as read (its dump), without the order its reading recorded: a battle written over its original
    file compares with this, so the order is written there even where the file left it out (a value equal in
    both would otherwise stay as the file has it, that is, unwritten)."""
    turn = before.get("turn")
    if isinstance(turn, Mapping) and "order" in turn:
        return {**before, "turn": {k: v for k, v in turn.items() if k != "order"}}
    return before


def first_named(data: Mapping[str, Any], key: str = "side") -> list[str]:
    """The sides in the order the raw battle's units first name them (values of another kind passed over)."""
    units = data.get("units")
    if not isinstance(units, list):
        return []
    return list(dict.fromkeys(u[key] for u in units if isinstance(u, dict) and isinstance(u.get(key), str)))


def with_order(data: Any, first: Sequence[str] | None = None) -> Any:
    """The raw battle with its order of the sides recorded in ``turn.order`` where it records none: ``first``
    where given (a ``players`` block), else the order in which its units first name their sides. A battle that
    records no turn gains one holding only the order (no side to act: nothing is limited until its first end of
    turn). A battle with no side at all, or a ``turn`` of another kind, is left as it is (validation names it)."""
    if not isinstance(data, Mapping):
        return data
    turn = data.get("turn")
    if turn is None:
        turn = {}
    if not isinstance(turn, Mapping) or "order" in turn:
        return data
    order = list(first) if first else first_named(data)
    for side in first_named(data):  # a side the players block does not list still takes its turn, last
        if side not in order:
            order.append(side)
    if not order:
        return data
    return {**data, "turn": {**turn, "order": order}}


def order_problems(data: Mapping[str, Any], clause: str, acting: str = "turn.side") -> list[str]:
    """A recorded order that cannot be played: a side named twice, a unit whose side it does not name, a side to
    act it does not hold (``acting`` is that key's path: ``turn.side``, or ``active_side`` in Bushido). Checked
    on the raw mapping, where the file records an order; values of another kind are left to validation."""
    turn = data.get("turn")
    order = turn.get("order") if isinstance(turn, Mapping) else None
    if not isinstance(order, list) or not all(isinstance(side, str) for side in order):
        return []
    problems = []
    seen: set[str] = set()
    for i, side in enumerate(order):
        if side in seen:
            problems.append(f"turn.order[{i}]: {side!r} is named twice; each side takes its place once [{clause}]")
        seen.add(side)
    listed = ", ".join(order) or "none"
    units = data.get("units")
    for i, unit in enumerate(units if isinstance(units, list) else []):
        side = unit.get("side") if isinstance(unit, dict) else None
        if isinstance(side, str) and side not in seen:
            problems.append(f"units[{i}].side: {side!r} is not in turn.order ({listed}): the order names every "
                            f"side [{clause}]")
    head, _, rest = acting.partition(".")
    holder = data.get(head) if rest else data
    side = holder.get(rest or head) if isinstance(holder, Mapping) else None
    if isinstance(side, str) and side not in seen:
        problems.append(f"{acting}: {side!r} is not in turn.order ({listed}) [{clause}]")
    return problems


__all__ = ["MAX_SIDES", "Order", "SideName", "as_if_unrecorded", "first_named", "order_problems", "with_order"]
