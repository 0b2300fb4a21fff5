"""Dress on the Colors scenario model (design section 4): options, units, terrain [DC-1.1, DC-1.3]."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import Field

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


class Options(Model):
    """The rulings' options, with their defaults [DC-2.1, DC-5.2]."""

    arc: Literal["corners", "centre"] = "corners"
    discipline_dice: Annotated[int, Field(strict=True, ge=1, le=10)] = 2
    discipline_pass: Annotated[int, Field(strict=True, ge=-100, le=100)] = 6


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


class Terrain(Model):
    """A terrain piece or gunsmoke marker: a polygon with a cover grade [DC-1.3]."""

    id: Id
    kind: Literal["open", "light", "heavy", "gunsmoke"]
    polygon: PolygonField


class Battle(Model):
    """A Dress on the Colors battle: the scenario file, validated, immutable."""

    ruleset: Literal["dress-on-the-colors"] = "dress-on-the-colors"
    name: Annotated[str, Field(max_length=200)] | None = None
    options: Options = Options()
    terrain: Annotated[tuple[Terrain, ...], Field(max_length=MAX_TERRAIN)] = ()
    units: Annotated[tuple[Unit, ...], Field(max_length=MAX_UNITS)]

    def unit(self, uid: str) -> Unit:
        return find_by_id(self.units, uid)


def cross_problems(data: Mapping[str, Any]) -> list[str]:
    """Problems the field validators cannot see: no unit at all, ids used twice."""
    problems = ["units: a battle needs at least one unit"] if data.get("units") == [] else []
    return problems + duplicate_ids(data, ("units", "terrain"))
