"""Bushido's moves and states a player sets [BU-9.1, BU-9.2]: a model of the active side given a new position,
marked ``moved`` or ``ran`` [BU-5.3]; ``will_move``, ``aimed`` and ``prone`` set and cleared by its player. A model's
first move of a turn keeps where it stood before it (``start_position``) until the turn ends with its ``moved`` and
``ran`` [BU-8.2], or until a move puts it back there, for its trail to be drawn; no rule reads it.

Verdicts are exact: a base may touch another base (edge distance 0, BU-2.3) or the edge of solid terrain but not
share area with either, and a base that touches the table's edge is still on it. The distance moved (base centre
to base centre) is compared with ``max_move`` squared, exactly; the distance reported is exact where it is
rational and otherwise rounded to 10^-12 in (``DISTANCE_PLACES`` of :mod:`rangefire.core.moves`; up for a move
refused as too long): it is only shown.
"""

from __future__ import annotations

from fractions import Fraction

from rangefire.core import LogLine, RangefireError, Refusal
from rangefire.core.moves import Mark, Move, MoveCheck, square_root
from rangefire.core.numbers import MAX_MAGNITUDE, dump_exact, parse_exact
from rangefire.core.options import house_note
from rangefire.geometry import Point, Polygon
from rangefire.geometry.discs import Disc
from rangefire.geometry.exact import Where, closest_on_segment
from rangefire.rulesets.bushido.scenario import Battle, Unit

#: Decimal places of a distance reported where it is irrational (a verdict never uses it).

#: What each state a player sets stands for, with the clause that gives it its effect [BU-5.3, BU-5.4].
MARK_EFFECTS = {
    "will_move": "it will move this activation: the attacker's moved modifier [BU-5.3]",
    "aimed": "the attacker's aimed modifier [BU-5.3]",
    "prone": "the defender's prone modifier [BU-5.4]",
}


def check_move(battle: Battle, move: Move) -> MoveCheck:
    """A move of a model [BU-9.1, BU-9.2]: the battle after it, or the refusals. A move that names no new
    position, or a facing, a formation or a mission (Bushido's models have none), or a position a battle file
    cannot hold, is bad input (:class:`RangefireError`), not a refusal by the rules."""
    unit = battle.unit(move.unit)
    _only_a_position(move)
    start = unit.position
    to = _new_position(start, move)
    refusals = _side_refusals(battle, unit, "move")
    if to == start:
        refusals.append(Refusal("BU-9.1", f"{unit.id} stands at {_at(start)} already: a move gives it a new position"))
    disc = Disc.base(to, unit.base)
    refusals += _table_refusals(battle, unit, disc)
    refusals += [Refusal("BU-9.2", f"at {_at(to)} {unit.id}'s base would overlap the base of {other.id}; bases may "
                                   "touch but not overlap [BU-2.3]")
                 for other in battle.units if other.id != unit.id and disc.overlaps(other.disc)]
    refusals += [Refusal("BU-9.2", f"at {_at(to)} {unit.id}'s base would stand inside solid {piece.id}")
                 for piece in battle.terrain if piece.kind == "solid" and overlaps_polygon(disc, piece.polygon)]
    moved2 = (to[0] - start[0]) ** 2 + (to[1] - start[1]) ** 2
    allowance = battle.options.max_move
    too_far = allowance != "none" and moved2 > allowance * allowance
    distance = square_root(moved2, up=too_far)
    if allowance != "none" and too_far:
        refusals.append(Refusal("BU-9.2", f"{unit.id} would move {_beyond(distance, allowance)}, more than "
                                          f"max_move {_in(allowance)} {house_note(_in(allowance), 'no allowance')}"))
    if refusals:
        return MoveCheck(unit.id, refusals=tuple(refusals), distance=distance)
    state = "ran" if move.run else "moved"
    already = unit.has(state)
    states = unit.states if already else (*unit.states, state)
    log = _no_side_note(battle, unit)
    marked = f"already marked {state}" if already else f"marked {state}"
    log.append(LogLine("BU-9.1", f"{unit.id} {'ran' if move.run else 'moved'} {_in2(distance)} from {_at(start)} to "
                                 f"{_at(to)}: {marked} [BU-5.3]"))
    # its first move of the turn keeps where it stood, until the turn ends [BU-8.2] or a move puts it back there: its
    # trail is drawn from there
    began = unit.start_position if unit.start_position is not None else start
    kept = None if to == began else began
    after = _with_unit(battle, unit.model_copy(update={"position": to, "states": states, "start_position": kept}))
    return MoveCheck(unit.id, after=after, log=tuple(log), distance=distance)


def check_mark(battle: Battle, mark: Mark) -> MoveCheck:
    """A state set or cleared by the model's player during its activation [BU-9.1]: ``will_move`` only before the
    model's attack; setting a state the model has (or clearing one it has not) changes nothing and says so."""
    unit = battle.unit(mark.unit)
    verb = "set" if mark.on else "clear"
    refusals = _side_refusals(battle, unit, f"{verb} {mark.state} on")
    if mark.state == "will_move" and unit.attacked:
        refusals.append(Refusal("BU-9.1", f"{unit.id} has made its ranged attack this turn: will_move is declared "
                                          "before the attack"))
    if refusals:
        return MoveCheck(unit.id, refusals=tuple(refusals))
    log = _no_side_note(battle, unit)
    if unit.has(mark.state) == mark.on:
        log.append(LogLine("BU-9.1", f"{unit.id} is {'already' if mark.on else 'not'} {mark.state}: nothing changes"))
        return MoveCheck(unit.id, after=battle, log=tuple(log))
    if mark.on:
        states = (*unit.states, mark.state)
        said = f"{unit.id} {'declares' if mark.state == 'will_move' else 'is marked'} {mark.state}"
    else:
        states = tuple(s for s in unit.states if s != mark.state)
        said = f"{unit.id}'s {mark.state} is cleared"
    log.append(LogLine("BU-9.1", f"{said} ({MARK_EFFECTS[mark.state]})"))
    return MoveCheck(unit.id, after=_with_unit(battle, unit.model_copy(update={"states": states})), log=tuple(log))


# -- the checks -------------------------------------------------------------------------------------------------
def _side_refusals(battle: Battle, unit: Unit, what: str) -> list[Refusal]:
    """Only the active side moves its models and sets their states [BU-9.1], in its activation [BU-8.3]."""
    active = battle.active_side
    if active is None or unit.side == active:
        return []
    return [Refusal("BU-9.1", f"it is {active}'s activation [BU-8.3]; {unit.id} is on {unit.side}'s side: only the "
                              f"active side may {what} its models")]


def _no_side_note(battle: Battle, unit: Unit) -> list[LogLine]:
    """Where no active side is recorded (set-up, or a battle that keeps no activations), nothing limits whose model
    moves: set-up is free [BU-9.3], and a ranged attack is limited to one side only once one is recorded [BU-8.3]."""
    if battle.active_side is not None:
        return []
    return [LogLine("BU-9.3", "no active side is recorded: nothing limits which side's models move or change state "
                              f"({unit.id} is one of {unit.side}'s)")]


def _table_refusals(battle: Battle, unit: Unit, disc: Disc) -> list[Refusal]:
    """A base must stand wholly on the table where the battle gives its size (its edge may touch the table's)
    [BU-9.2]."""
    table = battle.table
    if table is None:
        return []
    (x, y), r = disc.centre, disc.radius
    if x - r >= 0 and y - r >= 0 and x + r <= table.width and y + r <= table.depth:
        return []
    return [Refusal("BU-9.2", f"at {_at((x, y))} {unit.id}'s base would be off the table ({_in(table.width)} by "
                              f"{_in(table.depth)}, from (0, 0))")]


def overlaps_polygon(disc: Disc, polygon: Polygon) -> bool:
    """Whether a base shares area with a polygon's interior (touching its edge is not overlapping), exactly."""
    c, r = disc.centre, disc.radius
    x0, y0, x1, y1 = polygon.box
    if c.x + r <= x0 or c.x - r >= x1 or c.y + r <= y0 or c.y - r >= y1:
        return False
    where = polygon.locate(c)
    if where is not Where.OUTSIDE:
        return where is Where.INSIDE or r > 0  # a base centred on the edge covers some of the inside
    return any((c - closest_on_segment(c, edge)).norm2() < r * r for edge in polygon.edges())


# -- input, numbers and words ---------------------------------------------------------------------------------
def _only_a_position(move: Move) -> None:
    others = [name for name, given in (("facing", move.facing), ("turn", move.turn), ("formation", move.formation),
                                       ("mission", move.mission)) if given is not None]
    if others:
        raise RangefireError(f"{others[0]}: a Bushido move gives a model a new position (to or by) and nothing else "
                             "[BU-9.1]")
    if move.to is None and move.by is None:
        raise RangefireError("a Bushido move gives the model a new position: to [x, y] or by [dx, dy] [BU-9.1]")


def _new_position(start: tuple[Fraction, Fraction], move: Move) -> tuple[Fraction, Fraction]:
    """The position the move asks for, each coordinate one a battle file holds exactly (a finite number of
    magnitude at most :data:`MAX_MAGNITUDE`, written back as it reads)."""
    name, given = ("to", move.to) if move.to is not None else ("by", move.by)
    assert given is not None
    x, y = (_coordinate(name, axis, value) for axis, value in zip("xy", given, strict=True))
    to = (x, y) if name == "to" else (start[0] + x, start[1] + y)
    for axis, value in zip("xy", to, strict=True):
        _coordinate(name, f"the new {axis}", value)
        try:
            exact = parse_exact(dump_exact(value)) == value
        except ValueError:
            exact = False
        if not exact:
            raise RangefireError(f"{name}: the new {axis} {float(value):g} cannot be written exactly in a battle file")
    return to


def _coordinate(name: str, axis: str, value: object) -> Fraction:
    """A coordinate read as a scenario number is (a Move made in code may hold a float, even NaN)."""
    if isinstance(value, Fraction):
        if abs(value) > MAX_MAGNITUDE:
            raise RangefireError(f"{name}: {axis} {float(value):g} lies beyond the magnitude a battle records "
                                 f"({MAX_MAGNITUDE})")
        return value
    try:
        return parse_exact(value)
    except ValueError as exc:
        raise RangefireError(f"{name}: {axis} {exc}") from None


def _in(value: Fraction) -> str:
    return f"{float(value):g} in"


def _in2(value: Fraction) -> str:
    return f"{float(value):.2f} in"


def _beyond(distance: Fraction, allowance: Fraction) -> str:
    """A distance beyond the allowance as a reader sees it: ``just over 3 in`` where two places would hide it."""
    shown = f"{float(distance):.2f}"
    return f"just over {_in(allowance)}" if Fraction(shown) <= allowance else f"{shown} in"


def _at(p: tuple[Fraction, Fraction] | Point) -> str:
    return f"({float(p[0]):.2f}, {float(p[1]):.2f})"


def _with_unit(battle: Battle, unit: Unit) -> Battle:
    return battle.model_copy(update={"units": tuple(unit if u.id == unit.id else u for u in battle.units)})


__all__ = ["MARK_EFFECTS", "check_mark", "check_move", "overlaps_polygon"]
