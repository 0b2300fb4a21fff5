"""Moves as data (DC-10, AL-10, BU-9, SW-9): what a player does to the table between attacks.

A :class:`Move` says what the player asks (a unit's new position or an offset, a facing or a turn, a formation,
a run where a game has one, a mission where the pieces stand at missions); a :class:`Mark` sets or clears a
state a player sets in play (BU-9.1's ``will_move``, ``aimed``, ``prone``). The game checks either as it checks
an attack: a :class:`MoveCheck` holds the battle after it and its log lines by clause, or the refusals with their
clauses. Like an attack, a move is a value that can be written as one line of a log and played again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rangefire.core.errors import RangefireError
from rangefire.core.numbers import MAX_MAGNITUDE, MAX_PLACES, dump_exact, parse_exact
from rangefire.core.types import LogLine, Refusal

XY = tuple[Fraction, Fraction]


class IllegalMoveError(RangefireError):
    """A move or a mark the rules refuse; carries the refusals, each with its clause."""

    exit_code = 1
    kind = "illegal_move"

    def __init__(self, refusals: Sequence[Refusal]) -> None:
        self.refusals = tuple(refusals)
        super().__init__("illegal move: " + "; ".join(str(r) for r in self.refusals))


def _xy(value: Any, name: str) -> XY | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise RangefireError(f"{name}: must be a point [x, y], got {value!r}")
    try:
        return parse_exact(value[0]), parse_exact(value[1])
    except ValueError as exc:
        raise RangefireError(f"{name}: {exc}") from None


def _number(value: Any, name: str) -> Fraction | None:
    if value is None:
        return None
    try:
        return parse_exact(value)
    except ValueError as exc:
        raise RangefireError(f"{name}: {exc}") from None


#: A distance moved whose square root is irrational is reported to this many decimal places, rounded down (a game
#: compares its allowance with the squared distance, exactly).
DISTANCE_PLACES = 12


def move_number(value: Any, name: str) -> Fraction:
    """A number of a move read as a scenario's are (finite, of magnitude at most 10^6, at most 40 decimal places),
    or :class:`RangefireError` naming the field: a move built in code is held to what a request may hold.

    >>> move_number(2.5, "to"), move_number(Fraction(1, 3), "facing")
    (Fraction(5, 2), Fraction(1, 3))
    >>> move_number(float("nan"), "to")
    Traceback (most recent call last):
    ...
    rangefire.core.errors.RangefireError: to: must be a finite number, got nan
    """
    try:
        number = parse_exact(value)
    except ValueError as exc:
        raise RangefireError(f"{name}: {exc}") from None
    if number.denominator > 10**MAX_PLACES:
        raise RangefireError(f"{name}: must be a number of at most {MAX_PLACES} decimal places, got {float(number)!r}")
    return number


def written_back(value: Fraction, name: str) -> Fraction:
    """A number a move leaves in the battle (a new coordinate or facing), refused (:class:`RangefireError`) where a
    battle file could not hold it (beyond 10^6, or more digits than a written number keeps): the battle after a
    move must read back as it is.

    >>> written_back(Fraction(21, 2), "to")
    Fraction(21, 2)
    >>> written_back(4 + Fraction(1, 10**30), "to")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rangefire.core.errors.RangefireError: to: the move would leave it at 4.000000000000000000000000000001, more ...
    """
    if abs(value) > MAX_MAGNITUDE:
        raise RangefireError(f"{name}: the move would leave it at {float(value):g}, beyond the {MAX_MAGNITUDE} a "
                             "battle file holds")
    written = dump_exact(value)
    try:
        back: Fraction | None = parse_exact(written)
    except ValueError:
        back = None
    if back != value:
        raise RangefireError(f"{name}: the move would leave it at {_decimal(value)}, more digits than a battle file "
                             "keeps (a decimal of about 17 significant digits, or n/d in 40 characters)")
    return value


def _decimal(value: Fraction) -> str:
    """A number as exact decimal text where it has one of at most 40 places, else as n/d."""
    d, twos, fives = value.denominator, 0, 0
    while d % 2 == 0:
        d, twos = d // 2, twos + 1
    while d % 5 == 0:
        d, fives = d // 5, fives + 1
    places = max(twos, fives)
    if d != 1 or places > MAX_PLACES:
        return f"{value.numerator}/{value.denominator}"
    scaled = abs(value.numerator) * 10**places // value.denominator
    whole, frac = divmod(scaled, 10**places)
    return ("-" if value < 0 else "") + f"{whole}." + f"{frac:0{places}d}" if places else str(value.numerator)


def square_root(square: Fraction, *, up: bool = False) -> Fraction:
    """A distance from its square: exact where it is rational, otherwise rounded down (``up``: up) to
    :data:`DISTANCE_PLACES` decimal places. A game rounds up the distance of a move it refuses as too long, so
    that the distance it reports lies beyond the allowance, as the exact one does.

    >>> square_root(Fraction(25, 4)), square_root(Fraction(2)) == Fraction(1414213562373, 10**12)
    (Fraction(5, 2), True)
    >>> square_root(Fraction(2), up=True) == Fraction(1414213562374, 10**12)
    True
    """
    n, d = square.numerator, square.denominator
    rn, rd = math.isqrt(n), math.isqrt(d)
    if rn * rn == n and rd * rd == d:
        return Fraction(rn, rd)
    scale = 10**DISTANCE_PLACES
    return Fraction(math.isqrt(n * scale * scale // d) + up, scale)


def placed(move: Move, position: XY, facing: Fraction) -> dict[str, object]:
    """The new position and facing a move asks of a piece standing at ``position`` facing ``facing``: ``to`` or
    ``by``, ``facing`` or ``turn`` (clockwise; a facing kept within 0 to 360), each number checked as a scenario's
    and one a battle file can write back. Only what the move gives."""
    update: dict[str, object] = {}
    if move.to is not None:
        update["position"] = tuple(written_back(move_number(v, "to"), "to") for v in move.to)
    elif move.by is not None:
        dx, dy = (move_number(v, "by") for v in move.by)
        update["position"] = (written_back(position[0] + dx, "by"), written_back(position[1] + dy, "by"))
    if move.facing is not None:
        update["facing"] = written_back(move_number(move.facing, "facing") % 360, "facing")  # 720 faces as 0 does
    elif move.turn is not None:
        update["facing"] = written_back((facing + move_number(move.turn, "turn")) % 360, "turn")
    return update


def turn_refusals(turn: Any, uid: str, side: str, clause: str) -> list[Refusal]:
    """Only the side whose turn it is (the battle's recorded ``turn``: its ``side`` and ``number``) moves its units
    (``clause``: DC-10.1, AL-10.1); before a side to act is recorded nothing limits whose unit moves, as nothing
    limits who fires then (:func:`free_note`)."""
    acting = getattr(turn, "side", None)
    if acting is not None and side != acting:
        number = getattr(turn, "number", 1)
        return [Refusal(clause, f"it is {acting}'s turn ({number}); only its units move, and {uid} is on {side}'s "
                                "side")]
    return []


def free_note(turn: Any, uid: str, side: str, clause: str) -> list[LogLine]:
    """Where the battle's ``turn`` records no side to act (set-up, or a battle that keeps no turns yet), the log
    line that says nothing limited whose unit moved (``clause``: the game's set-up clause)."""
    if getattr(turn, "side", None) is not None:
        return []
    return [LogLine(clause, f"no side to act is recorded: nothing limits which side's units move ({uid} is one of "
                            f"{side}'s)")]


def shown_beyond(distance: Fraction, limit: Fraction) -> str:
    """A distance refused as longer than ``limit``, to two places where they show it longer, else in full.

    >>> shown_beyond(Fraction(13, 2), Fraction(6)), shown_beyond(Fraction(5000000000001, 10**12), Fraction(5))
    ('6.50', '5.000000000001')
    """
    short = f"{float(distance):.2f}"
    return short if Fraction(short) > limit else str(dump_exact(distance))


@dataclass(frozen=True)
class Move:
    """A move of one unit (card, model): every field but ``unit`` optional; ``to`` and ``by`` exclusive, as are
    ``facing`` and ``turn``. ``to`` is the new position (as the game places the unit: the midpoint of its front
    edge, or its base centre), ``by`` an offset from where it stands; ``facing``
    the new bearing in degrees, ``turn`` degrees added to it (clockwise); ``formation`` where the game has one;
    ``run`` a run (BU-9.1); ``mission`` the mission a card moves to (SW-9.1)."""

    unit: str
    to: XY | None = None
    by: XY | None = None
    facing: Fraction | None = None
    turn: Fraction | None = None
    formation: str | None = None
    run: bool = False
    mission: str | None = None

    def __post_init__(self) -> None:
        if self.to is not None and self.by is not None:
            raise RangefireError("a move gives a new position (to) or an offset (by), not both")
        if self.facing is not None and self.turn is not None:
            raise RangefireError("a move gives a new facing or a turn, not both")

    def to_dict(self) -> dict[str, Any]:
        """The move as JSON gives it (exact numbers as the scenario writes them); fields not given left out."""
        data: dict[str, Any] = {"unit": self.unit}
        for name in ("to", "by"):
            point = getattr(self, name)
            if point is not None:
                data[name] = [dump_exact(point[0]), dump_exact(point[1])]
        for name in ("facing", "turn"):
            value = getattr(self, name)
            if value is not None:
                data[name] = dump_exact(value)
        if self.formation is not None:
            data["formation"] = self.formation
        if self.run:
            data["run"] = True
        if self.mission is not None:
            data["mission"] = self.mission
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Move:
        """A move read back from :meth:`to_dict` (or a request): a value of another kind is named."""
        unknown = sorted(set(data) - {"unit", "to", "by", "facing", "turn", "formation", "run", "mission"})
        if unknown:
            raise RangefireError(f"{unknown[0]}: a move has no such field")
        unit = data.get("unit")
        if not isinstance(unit, str) or not unit:
            raise RangefireError(f"unit: must name the unit that moves, got {unit!r}")
        run = data.get("run", False)
        if not isinstance(run, bool):
            raise RangefireError(f"run: must be true or false, got {run!r}")
        texts = {}
        for name in ("formation", "mission"):
            value = data.get(name)
            if value is not None and not isinstance(value, str):
                raise RangefireError(f"{name}: must be text, got {value!r}")
            texts[name] = value
        return cls(unit, to=_xy(data.get("to"), "to"), by=_xy(data.get("by"), "by"),
                   facing=_number(data.get("facing"), "facing"), turn=_number(data.get("turn"), "turn"),
                   formation=texts["formation"], run=run, mission=texts["mission"])


@dataclass(frozen=True)
class Mark:
    """A state a player sets (``on``) or clears on one of its units in play (``will_move``, ``aimed``,
    ``prone``: BU-9.1)."""

    unit: str
    state: str
    on: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "state": self.state, "on": self.on}


#: What a set-up edit does to an item of the battle (DC-10.4, AL-10.3, BU-9.3, SW-9.2).
EDIT_OPS = ("place", "change", "remove")


@dataclass(frozen=True)
class Edit:
    """A set-up edit: ``place`` a new item (``data`` is the whole item, its ``id`` included), ``change`` one (``data``
    holds the keys to set, each replacing the item's value), or ``remove`` one, in a section of the scenario
    (``units``, ``terrain`` or ``cards``). Allowed only before the first turn."""

    op: str
    section: str
    id: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.op not in EDIT_OPS:
            raise RangefireError(f"op: must be one of {', '.join(EDIT_OPS)}, got {self.op!r}")
        if self.op == "remove" and self.data:
            raise RangefireError("data: a removal takes no data")
        if self.op != "remove" and not self.data:
            wanted = "a placement gives the whole item" if self.op == "place" else "a change gives the keys it sets"
            raise RangefireError(f"data: {wanted}")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op, "section": self.section, "id": self.id}
        if self.data:
            out["data"] = dict(self.data)
        return out


@dataclass(frozen=True)
class MoveCheck:
    """A move (or a mark) checked: the battle after it with its log lines by clause and the distance moved (in
    the game's unit, :attr:`Ruleset.move_unit`; None where the game measures none), or the refusals."""

    unit: str
    refusals: tuple[Refusal, ...] = ()
    after: Any = None
    log: tuple[LogLine, ...] = ()
    distance: Fraction | None = None
    notes: tuple[LogLine, ...] = field(default=())

    @property
    def is_legal(self) -> bool:
        return not self.refusals and self.after is not None

    def to_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "legal": self.is_legal, "refusals": [r.to_dict() for r in self.refusals],
                "distance": None if self.distance is None else dump_exact(self.distance),
                "log": [line.to_dict() for line in self.log]}


__all__ = ["DISTANCE_PLACES", "EDIT_OPS", "XY", "Edit", "IllegalMoveError", "Mark", "Move", "MoveCheck", "free_note",
           "move_number", "placed", "shown_beyond", "square_root", "turn_refusals", "written_back"]
