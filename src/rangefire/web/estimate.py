"""How long the engine would take to answer a request, told before it starts: a request whose estimate is past the
server's engine time (2 seconds unless ``rangefire serve --engine-seconds`` says otherwise) is refused at once
(422 ``too_large``, saying what to ask instead), never started; what the estimate misses is stopped by the
engine's hard limit (:mod:`rangefire.web.engine`).

The engine's time on a question about attacks grows with the pairs of units it looks at (an attacker and each
unit it might shoot) and, for each pair, with the units that may stand in the way and the corners of terrain a
line of fire may cross. The rates below are this time per pair, per unit and per corner, measured on a 2-core
laptop of 2026 (the slowest found over tables as large as a battle served here may be: 31 units against 31 and
3,000 corners, answering in 6 to 7 seconds for a whole side; the bench prints them again: ``bench/engine.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rangefire.core import Ruleset
from rangefire.web.errors import ApiError

#: Seconds per pair of units looked at, for each unit on the table and for each corner of terrain, by game.
RATES: dict[str, tuple[float, float]] = {"dress-on-the-colors": (55e-6, 2.4e-6), "bushido": (13e-6, 2.1e-6)}
#: The rates of a game not measured apart (the slowest measured).
SLOWEST = (55e-6, 2.4e-6)
#: Seconds a request takes before its first pair (reading the table, writing the answer).
FIXED_SECONDS = 0.15


@dataclass(frozen=True)
class Work:
    """What a request asks of the engine: the pairs of units it looks at, and the table they stand on."""

    pairs: int
    units: int
    corners: int

    def seconds(self, game: str) -> float:
        """The engine's time for it, estimated at the measured rates of ``game``."""
        per_unit, per_corner = RATES.get(game, SLOWEST)
        return FIXED_SECONDS + self.pairs * (self.units * per_unit + self.corners * per_corner)


def corners_of(battle: Any) -> int:
    """The corners of every piece of terrain on the table."""
    return sum(_corners(getattr(piece, "polygon", None)) for piece in getattr(battle, "terrain", ()) or ())


def _corners(polygon: Any) -> int:
    """A polygon's corners (its vertices, or the points of a list)."""
    vertices = getattr(polygon, "vertices", polygon)
    return len(vertices) if isinstance(vertices, tuple | list) else 0


def work_of(ruleset: Ruleset[Any, Any], battle: Any, attacker: str | None = None, side: str | None = None,
            target: str | None = None, alone: bool = False) -> Work:
    """The work of a question about the attacks of one ``attacker`` (on one ``target``, or on each unit of
    another side), of each unit of ``side``, or (neither) of every unit on the table; ``alone``: of none (the
    table drawn alone)."""
    units = list(ruleset.unit_ids(battle))
    side_of = {uid: ruleset.side_of(battle, uid) for uid in units}
    if alone:
        attackers: list[str] = []
    elif attacker is not None:
        attackers = [attacker] if attacker in side_of else []
    elif side is not None:
        attackers = [uid for uid in units if side_of[uid] == side]
    else:
        attackers = units
    if target is not None:
        pairs = len(attackers)
    else:
        pairs = sum(1 for a in attackers for uid in units if side_of[uid] != side_of.get(a))
    return Work(pairs, len(units), corners_of(battle))


def refuse_past(work: Work, game: str, seconds: float, what: str, instead: str) -> None:
    """Refuse (422 ``too_large``) work estimated past ``seconds`` of the engine's time, saying what it is and what
    to ask ``instead``."""
    needed = work.seconds(game)
    if needed > seconds:
        raise ApiError(422, "too_large", f"{what} asks the engine about {work.pairs:,} pairs of units on a table of "
                                         f"{work.units} units and {work.corners:,} corners of terrain: about "
                                         f"{needed:.1f} s of work, more than the {seconds:g} s this server gives one "
                                         f"request; {instead}, or ask the command line (rangefire targets, rangefire "
                                         "advise), which takes its time")
