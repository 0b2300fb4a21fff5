"""Dress on the Colors scenario model (design section 4): options, units, terrain [DC-1.1, DC-1.3]."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import Field

from rangefire.core.options import OptionsModel, option
from rangefire.scenario import XY, Exact, Id, Model, PolygonField, duplicate_ids, find_by_id

KEY = "dress-on-the-colors"

#: A regiment of more stands than this is refused (a hostile "million dice" never reaches the dice).
MAX_STANDS = 60
MAX_UNITS = 400
MAX_TERRAIN = 400

Weapon = Literal["smoothbore", "rifled-musket", "breechloader", "artillery"]
Formation = Literal["line", "march-column", "skirmish"]
Stands = Annotated[int, Field(strict=True, ge=1, le=MAX_STANDS)]
Positive = Annotated[Exact, Field(gt=0, le=100)]


class Options(OptionsModel):
    """The rulings' options, with their defaults [DC-2.1, DC-5.2]."""

    arc: Literal["corners", "centre"] = option(
        "corners", "DC-2.1", "where the 45 degree arc lines start: the front corners or the front-edge midpoint")
    discipline_dice: Annotated[int, Field(strict=True, ge=1, le=10)] = option(
        2, "DC-5.2", "dice rolled for a discipline check")
    discipline_pass: Annotated[int, Field(strict=True, ge=-100, le=100)] = option(
        6, "DC-5.2", "the check passes when the dice plus discipline reach this")
    one_volley_per_turn: bool = option(True, "DC-9.1", "a unit fires at most one volley a turn")


class Unit(Model):
    """A regiment or battery [DC-1.1]."""

    id: Id
    side: Annotated[str, Field(min_length=1, max_length=64)]
    stands: Stands
    weapon: Weapon
    formation: Formation
    position: XY
    facing: Exact
    stand_width: Positive = Fraction(3, 2)
    stand_depth: Positive = Fraction(1)
    moved: bool = False
    engaged: bool = False
    disordered: bool = False
    micro_hits: Annotated[int, Field(strict=True, ge=0, le=1)] = 0
    discipline: Annotated[int, Field(strict=True, ge=-20, le=20)] = 0
    start_position: XY | None = None
    start_facing: Exact | None = None
    gunsmoke: bool = False
    fired: bool = False  # it has fired a volley this turn [DC-9.1]


class Terrain(Model):
    """A terrain piece or gunsmoke marker: a polygon with a cover grade [DC-1.3]."""

    id: Id
    kind: Literal["open", "light", "heavy", "gunsmoke"]
    polygon: PolygonField


class Turn(Model):
    """The turn number and the side whose turn it is [DC-9.2]."""

    number: Annotated[int, Field(strict=True, ge=1, le=100_000)] = 1
    side: Annotated[str, Field(min_length=1, max_length=64)]


class Battle(Model):
    """A Dress on the Colors battle: the scenario file, validated, immutable."""

    ruleset: Literal["dress-on-the-colors"] = "dress-on-the-colors"
    name: Annotated[str, Field(max_length=200)] | None = None
    options: Options = Options()
    turn: Turn | None = None  # none recorded: no side is limited until the first end of turn [DC-9.2]
    terrain: Annotated[tuple[Terrain, ...], Field(max_length=MAX_TERRAIN)] = ()
    units: Annotated[tuple[Unit, ...], Field(max_length=MAX_UNITS)]

    def unit(self, uid: str) -> Unit:
        return find_by_id(self.units, uid)


def cross_problems(data: Mapping[str, Any]) -> list[str]:
    """Problems the field validators cannot see: no unit at all, ids used twice, a turn for no side."""
    problems = ["units: a battle needs at least one unit"] if data.get("units") == [] else []
    return problems + duplicate_ids(data, ("units", "terrain")) + turn_side_problems(data)


def turn_side_problems(data: Mapping[str, Any]) -> list[str]:
    """The side a recorded turn names must be the side of some unit [DC-9.2] (checked on the raw file: a value
    of another kind is left to validation)."""
    turn, units = data.get("turn"), data.get("units")
    side = turn.get("side") if isinstance(turn, dict) else None
    if not isinstance(side, str) or not isinstance(units, list):
        return []
    sides = [u.get("side") for u in units if isinstance(u, dict)]
    if not sides or side in sides or not all(isinstance(s, str) for s in sides):
        return []
    named = ", ".join(dict.fromkeys(str(s) for s in sides))
    return [f"turn.side: {side!r} is not the side of any unit (sides: {named})"]
