"""Dress on the Colors moves: a unit given a new position, facing and/or formation, checked and logged
[DC-10.1 to DC-10.4].

A move is checked on the unit's stands where the move leaves them, with the same exact footprints as lines of
fire use (``table.footprint``): stands of two units may touch but not overlap [DC-10.2]; the table's edge, where
the scenario gives the table, is a closed boundary (a stand on the edge is on the table). The distance moved is
the farthest any corner of the unit's stands travelled in a straight line [DC-10.3], compared squared.

A move marks the unit ``moved`` (its next volley places no gunsmoke, DC-7.1) and removes its gunsmoke marker;
its start-of-turn position and facing (DC-6.1) are kept as they were until its turn ends (DC-9.3). It changes no
other unit, and returns a new battle: the old one is untouched.
"""

from __future__ import annotations

import typing
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
from rangefire.core.options import house_note
from rangefire.geometry import Point
from rangefire.rulesets.dress_on_the_colors.scenario import Battle, Formation, Unit
from rangefire.rulesets.dress_on_the_colors.table import Footprint, footprint

FORMATIONS: tuple[str, ...] = typing.get_args(Formation)


# -- for people -----------------------------------------------------------------------------------------
def shown_xy(p: XY | Point) -> str:
    """A point as a scenario writes it: ``(4, 10.5)``."""
    return f"({dump_exact(p[0])}, {dump_exact(p[1])})"


def shown_inches(distance: Fraction) -> str:
    return f"{float(distance):.2f} in"


# -- the move asked for --------------------------------------------------------------------------------
def wanted(unit: Unit, move: Move) -> dict[str, object]:
    """The unit's new values the move asks for (position, facing, formation), its numbers checked as a
    scenario's; :class:`RangefireError` for what no Dress on the Colors move gives."""
    if move.run:
        raise RangefireError("run: a Dress on the Colors move has no run (a unit moves to a position, facing and/or "
                             "formation) [DC-10.1]")
    if move.mission is not None:
        raise RangefireError("mission: a Dress on the Colors move has no mission [DC-10.1]")
    update = placed(move, unit.position, unit.facing)
    if move.formation is not None:
        if move.formation not in FORMATIONS:
            raise RangefireError(f"formation: must be {', '.join(FORMATIONS[:-1])} or {FORMATIONS[-1]}, got "
                                 f"{move.formation!r}")
        update["formation"] = move.formation
    if not update:
        raise RangefireError("a move gives the unit a new position (to or by), facing (facing or turn) and/or "
                             "formation; this one gives none [DC-10.1]")
    return update


# -- the rules ----------------------------------------------------------------------------------------
def overlapped(battle: Battle, unit: Unit, placed: Footprint) -> list[str]:
    """The other units any of whose stands the placed stands overlap (interiors sharing area: touching is not)
    [DC-10.2], in file order."""
    box = placed.box
    out = []
    for other in battle.units:
        if other.id == unit.id:
            continue
        theirs = footprint(other)
        if theirs.box.gap2(box) > 0:
            continue
        if any(stand.overlaps(mine) for stand in theirs.stands for mine in placed.stands):
            out.append(other.id)
    return out


def off_table(battle: Battle, placed: Footprint) -> bool:
    """Whether a stand lies beyond the table's edge, where the scenario gives the table [DC-10.2]: stands are
    convex, so a stand is on the table when its corners are (on the edge counts as on it)."""
    table = battle.table
    if table is None:
        return False
    return not all(0 <= p.x <= table.width and 0 <= p.y <= table.depth for p in placed.corners())


def travelled2(before: Footprint, after: Footprint) -> Fraction:
    """The squared distance the farthest-travelled corner of the unit's stands moved in a straight line
    [DC-10.3]: each corner of each stand from where it stood to where it stands, stand by stand in the
    footprint's order (a formation change takes the stands in that order: left to right in line and skirmish,
    front to back in march column).

    Exact for the corners as the geometry places them; at a facing that is not a multiple of 90 degrees those
    corners lie within ``geometry.BEARING_TOLERANCE_DEGREES`` of the true ones (a bearing's direction is made
    rational there), so the distance is exact for them and within that tolerance of the true one.
    """
    best = Fraction(0)
    for old, new in zip(before.stands, after.stands, strict=True):
        for p, q in zip(old.vertices, new.vertices, strict=True):
            best = max(best, (q - p).norm2())
    return best


def in_terrain(battle: Battle, placed: Footprint) -> list[str]:
    """The terrain pieces the placed stands overlap: said, never refused (terrain does not stop a move)
    [DC-10.2]."""
    return [t.id for t in battle.terrain if t.kind != "gunsmoke"
            and any(t.polygon.overlaps(stand) for stand in placed.stands)]


def check_move(battle: Battle, move: Move) -> MoveCheck:
    """May this move be made [DC-10.1 to DC-10.4]? The battle after it with its log, and the distance moved, or
    every refusal with its clause (the distance is reported with them)."""
    unit = battle.unit(move.unit)
    update = wanted(unit, move)
    moved = unit.model_copy(update=update)
    before, placed = footprint(unit), footprint(moved)
    options = battle.options
    refusals = turn_refusals(battle.turn, unit.id, unit.side, "DC-10.1")
    if unit.engaged and not options.engaged_may_move:
        refusals.append(Refusal("DC-10.2", f"{unit.id} is engaged in melee: an engaged unit does not move "
                                           "(engaged_may_move = false)"))
    others = overlapped(battle, unit, placed)
    if others:
        refusals.append(Refusal("DC-10.2", f"{unit.id}'s stands would overlap the stands of {', '.join(others)} "
                                           "(stands may touch, not overlap)"))
    if off_table(battle, placed):
        assert battle.table is not None
        refusals.append(Refusal("DC-10.2", f"{unit.id}'s stands would leave the table ({dump_exact(battle.table.width)}"
                                           f" x {dump_exact(battle.table.depth)} in)"))
    d2 = travelled2(before, placed)
    limit = options.max_move
    too_far = limit is not None and d2 > limit * limit  # compared squared: exact [DC-10.3]
    distance = square_root(d2, up=too_far)  # the reported figure on the verdict's side of the allowance
    if limit is not None and too_far:
        refusals.append(Refusal("DC-10.3", f"{unit.id} would move {shown_beyond(distance, limit)} in, farther than "
                                           f"max_move {dump_exact(limit)} in (a house rule: the rules set no "
                                           "allowance)"))
    if refusals:
        return MoveCheck(unit.id, tuple(refusals), distance=distance)
    moved = moved.model_copy(update={
        "moved": True, "gunsmoke": False,
        # the start of turn stays where it was until the turn ends [DC-6.1, DC-9.3]; unset, it was "as now"
        "start_position": unit.start_position if unit.start_position is not None else unit.position,
        "start_facing": unit.start_facing if unit.start_facing is not None else unit.facing})
    after = battle.model_copy(update={"units": tuple(moved if u.id == unit.id else u for u in battle.units)})
    return MoveCheck(unit.id, after=after, log=tuple(_log(battle, unit, moved, placed, distance)),
                     distance=distance)


def _log(battle: Battle, unit: Unit, moved: Unit, placed: Footprint, distance: Fraction) -> list[LogLine]:
    """What changed, how far, and what the move did to the rules, each with its clause."""
    changes = [f"{what} {old} to {new}" for what, old, new, differs in (
        ("position", shown_xy(unit.position), shown_xy(moved.position), unit.position != moved.position),
        ("facing", f"{dump_exact(unit.facing)}°", f"{dump_exact(moved.facing)}°", unit.facing != moved.facing),
        ("formation", unit.formation, moved.formation, unit.formation != moved.formation)) if differs]
    log = free_note(battle.turn, unit.id, unit.side, "DC-10.4")
    log.append(LogLine("DC-10.1", f"{unit.id} moves: " + ("; ".join(changes) if changes else
                                                        "it stands where it stood, as it faced")))
    limit = battle.options.max_move
    log.append(LogLine("DC-10.3", f"moved {shown_inches(distance)}, the farthest any corner of its stands travelled"
                                  + (f" (max_move {dump_exact(limit)} in)" if limit is not None else "")))
    if unit.engaged:
        log.append(LogLine("DC-10.2", f"{unit.id} is engaged in melee and moves: engaged_may_move = true "
                                      + house_note("true", "false")))
    pieces = in_terrain(battle, placed)
    if pieces:
        log.append(LogLine("DC-10.2", f"{unit.id}'s stands stand in {', '.join(pieces)}: terrain does not stop a move"))
    log.append(LogLine("DC-7.1", f"no gunsmoke from {unit.id}'s next volley: it moved"))
    if unit.gunsmoke and not unit.moved:
        log.append(LogLine("DC-10.1", f"{unit.id}'s gunsmoke marker removed"))
    start_position, start_facing = moved.start_position, moved.start_facing
    assert start_position is not None and start_facing is not None
    log.append(LogLine("DC-10.1", f"{unit.id}'s start of turn stays at {shown_xy(start_position)}, facing "
                                  f"{dump_exact(start_facing)}°, until its turn ends (DC-6.1, DC-9.3)"))
    return log


__all__ = ["check_move", "travelled2"]
