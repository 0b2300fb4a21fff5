"""Moves as data (DC-10, AL-10, BU-9, SW-9): what a player does to the table between attacks.

A :class:`Move` says what the player asks (a unit's new position or an offset, a facing or a turn, a formation,
Bushido's run, swerve's mission); a :class:`Mark` sets or clears a state a player sets in play (Bushido's
``will_move``, ``aimed``, ``prone``). The game checks either as it checks an attack: a :class:`MoveCheck` holds the
battle after it and its log lines by clause, or the refusals with their clauses. Like an attack, a move is a value
that can be written as one line of a log and played again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rangefire.core.errors import RangefireError
from rangefire.core.numbers import dump_exact, parse_exact
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


@dataclass(frozen=True)
class Move:
    """A move of one unit (card, model): every field but ``unit`` optional; ``to`` and ``by`` exclusive, as are
    ``facing`` and ``turn``. ``to`` is the new position (as the game places the unit: Dress on the Colors the
    midpoint of its front edge, the others the base centre), ``by`` an offset from where it stands; ``facing``
    the new bearing in degrees, ``turn`` degrees added to it (clockwise); ``formation`` where the game has one;
    ``run`` Bushido's run (BU-9.1); ``mission`` swerve's mission the card moves to (SW-9.1)."""

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
    """A state a player sets (``on``) or clears on one of its units in play (Bushido's ``will_move``, ``aimed``,
    ``prone``: BU-9.1)."""

    unit: str
    state: str
    on: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "state": self.state, "on": self.on}


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


__all__ = ["XY", "IllegalMoveError", "Mark", "Move", "MoveCheck"]
