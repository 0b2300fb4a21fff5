"""Arcane Legions moves: a unit given a new position (its base centre) and/or facing, checked and logged
[AL-10.1 to AL-10.3].

A move is checked on the unit's base where the move leaves it, with the same exact rectangles as line of sight
uses (``table.base_of``): bases may touch but not overlap, and a base may not lie (in any part) inside blocking
terrain, though it may touch it; hindering terrain does not stop a move [AL-10.1]. The table's edge, where the
scenario gives the table, is a closed boundary. The distance moved is measured in steps between the base's
centres [AL-10.2]; a move neither costs nor restores order points. The unit's first move of a turn keeps where
it stood and faced before it (``start_position``, ``start_facing``) until its side's turn ends, or until a move puts
it back there, for its trail to be drawn [AL-10.1, AL-9.1]. It changes no other unit, and returns a new battle: the
old one is untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from rangefire.core import LogLine, RangefireError, Refusal
from rangefire.core.moves import (
    XY,
    Move,
    MoveCheck,
    free_note,
    placed,
    shown_beyond,
    square_root,
    turn_refusals,
)
from rangefire.core.numbers import dump_exact
from rangefire.geometry import Polygon
from rangefire.rulesets.arcane_legions.scenario import Battle, Unit
from rangefire.rulesets.arcane_legions.table import base_of


def shown_xy(p: XY) -> str:
    """A point as a scenario writes it: ``(4, 10.5)``."""
    return f"({dump_exact(p[0])}, {dump_exact(p[1])})"


def shown_steps(distance: Fraction) -> str:
    return f"{float(distance):.2f} steps"


def wanted(unit: Unit, move: Move) -> dict[str, object]:
    """The unit's new position and/or facing the move asks for, its numbers checked as a scenario's;
    :class:`RangefireError` for what no Arcane Legions move gives."""
    for name, given in (("formation", move.formation is not None), ("run", move.run),
                        ("mission", move.mission is not None)):
        if given:
            raise RangefireError(f"{name}: an Arcane Legions move gives a unit a new position and/or facing, no "
                                 f"{name} [AL-10.1]")
    update = placed(move, unit.position, unit.facing)
    if not update:
        raise RangefireError("a move gives the unit a new position (to or by) and/or facing (facing or turn); this "
                             "one gives neither [AL-10.1]")
    return update


def overlapped(battle: Battle, unit: Unit, placed: Polygon) -> tuple[list[str], list[str]]:
    """The other units' bases and the blocking terrain the placed base overlaps (interiors sharing area: touching
    is not) [AL-10.1], each in file order."""
    bases = [other.id for other in battle.units
             if other.id != unit.id and base_of(other).polygon.overlaps(placed)]
    blocking = [t.id for t in battle.terrain if t.kind == "blocking" and t.polygon.overlaps(placed)]
    return bases, blocking


def check_move(battle: Battle, move: Move) -> MoveCheck:
    """May this move be made [AL-10.1 to AL-10.3]? The battle after it with its log and the distance moved in
    steps, or every refusal with its clause (the distance is reported with them)."""
    unit = battle.unit(move.unit)
    moved = unit.model_copy(update=wanted(unit, move))
    placed = base_of(moved).polygon
    refusals = turn_refusals(battle.turn, unit.id, unit.side, "AL-10.1")
    bases, blocking = overlapped(battle, unit, placed)
    if bases:
        refusals.append(Refusal("AL-10.1", f"{unit.id}'s base would overlap the base of {', '.join(bases)} (bases "
                                           "may touch, not overlap)"))
    if blocking:
        refusals.append(Refusal("AL-10.1", f"{unit.id}'s base would lie inside blocking terrain "
                                           f"({', '.join(blocking)})"))
    table = battle.table
    if table is not None and not all(0 <= p.x <= table.width and 0 <= p.y <= table.depth for p in placed.vertices):
        refusals.append(Refusal("AL-10.1", f"{unit.id}'s base would leave the table ({dump_exact(table.width)} x "
                                           f"{dump_exact(table.depth)} steps)"))
    # between base centres [AL-10.2]: exact (the centres are the scenario's numbers; no bearing enters)
    d2 = (moved.position[0] - unit.position[0]) ** 2 + (moved.position[1] - unit.position[1]) ** 2
    limit = battle.options.max_move_steps
    too_far = limit is not None and d2 > limit * limit  # compared squared: exact [AL-10.2]
    distance = square_root(d2, up=too_far)  # the reported figure on the verdict's side of the allowance
    if limit is not None and too_far:
        refusals.append(Refusal("AL-10.2", f"{unit.id} would move {shown_beyond(distance, limit)} steps, farther than "
                                           f"max_move_steps {dump_exact(limit)} (a house rule: the rules set no "
                                           "allowance)"))
    if refusals:
        return MoveCheck(unit.id, tuple(refusals), distance=distance)
    moved = moved.model_copy(update=kept_start(unit, moved))
    after = battle.model_copy(update={"units": tuple(moved if u.id == unit.id else u for u in battle.units)})
    return MoveCheck(unit.id, after=after, log=tuple(_log(battle, unit, moved, distance)), distance=distance)


def kept_start(unit: Unit, moved: Unit) -> dict[str, object]:
    """Where a unit moving stood and faced at the start of its side's turn, as the battle keeps it: its first move
    of the turn writes where it stood before it, later ones leave that; a move that puts it back where it began,
    facing as it began, leaves none written, as before its first [AL-10.1]. Only drawn (its trail); no rule
    reads it."""
    position = unit.start_position if unit.start_position is not None else unit.position
    facing = unit.start_facing if unit.start_facing is not None else unit.facing
    if (moved.position, moved.facing) == (position, facing):
        return {"start_position": None, "start_facing": None}
    return {"start_position": position, "start_facing": facing}


def starts_cleared(units: Sequence[Unit], side: str) -> tuple[list[Unit], list[LogLine]]:
    """The units with the start of turn of ``side``'s units no longer kept, as its turn ends: their moves this turn
    are over [AL-9.1, AL-10.1]; a log line for each unit that had one."""
    out, log = [], []
    for unit in units:
        if unit.side == side and (unit.start_position is not None or unit.start_facing is not None):
            log.append(LogLine("AL-9.1", f"{unit.id}: its move this turn is over; where it stood at the start of "
                                         "the turn is no longer kept"))
            unit = unit.model_copy(update={"start_position": None, "start_facing": None})
        out.append(unit)
    return out, log


def _log(battle: Battle, unit: Unit, moved: Unit, distance: Fraction) -> list[LogLine]:
    """What changed, how far, and that the order points stay, each with its clause."""
    changes = [f"{what} {old} to {new}" for what, old, new, differs in (
        ("position", shown_xy(unit.position), shown_xy(moved.position), unit.position != moved.position),
        ("facing", f"{dump_exact(unit.facing)}°", f"{dump_exact(moved.facing)}°", unit.facing != moved.facing))
        if differs]
    limit = battle.options.max_move_steps
    player = battle.players.get(unit.side)
    points = f" ({unit.side} keeps {player.order_points})" if player is not None else ""
    return [
        *free_note(battle.turn, unit.id, unit.side, "AL-10.3"),
        LogLine("AL-10.1", f"{unit.id} moves: " + ("; ".join(changes) if changes else
                                                 "it stands where it stood, as it faced")),
        LogLine("AL-10.2", f"moved {shown_steps(distance)} between base centres"
                           + (f" (max_move_steps {dump_exact(limit)})" if limit is not None else "")),
        LogLine("AL-10.2", f"a move neither costs nor restores order points{points}"),
    ]


__all__ = ["check_move", "kept_start", "starts_cleared"]
