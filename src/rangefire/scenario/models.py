"""Pydantic building blocks shared by every game's scenario model: exact numbers, points, polygons."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, PlainValidator

from rangefire.core.numbers import dump_exact, parse_exact
from rangefire.geometry import GeometryError, Point, Polygon


class Model(BaseModel):
    """Immutable, strict about unknown keys: a misspelt key is an error, never silently ignored."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)


def _exact(value: Any) -> Fraction:
    return parse_exact(value)


#: A scenario number read exactly (``10.1`` is 101/10) and written back losslessly.
Exact = Annotated[Fraction, PlainValidator(_exact), PlainSerializer(dump_exact)]


def _xy(value: Any) -> tuple[Fraction, Fraction]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ValueError("must be a point [x, y]")
    return parse_exact(value[0]), parse_exact(value[1])


def _dump_xy(value: tuple[Fraction, Fraction]) -> list[int | float | str]:
    return [dump_exact(value[0]), dump_exact(value[1])]


#: A point ``[x, y]`` in table units, exact.
XY = Annotated[tuple[Fraction, Fraction], PlainValidator(_xy), PlainSerializer(_dump_xy)]


def _polygon(value: Any) -> Polygon:
    if isinstance(value, Polygon):
        return value
    if not isinstance(value, list | tuple):
        raise ValueError("must be a list of points [[x, y], ...]")
    try:
        return Polygon(tuple(Point(*_xy(p)) for p in value))
    except GeometryError as exc:
        raise ValueError(f"not a valid polygon: {exc}") from None


def _dump_polygon(value: Polygon) -> list[list[int | float | str]]:
    return [_dump_xy((p.x, p.y)) for p in value.vertices]


#: A simple polygon with positive area, validated on reading.
PolygonField = Annotated[Polygon, PlainValidator(_polygon), PlainSerializer(_dump_polygon)]

#: A unit or terrain id: short, printable, no spaces.
Id = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]


class Table(Model):
    """The table's size, in the game's units, its lower left corner at (0, 0) (optional): a move or a placement
    that leaves a unit off it is refused (DC-10.2, AL-10.1, BU-9.2)."""

    width: Annotated[Fraction, PlainValidator(_exact), PlainSerializer(dump_exact), Field(gt=0, le=10_000)]
    depth: Annotated[Fraction, PlainValidator(_exact), PlainSerializer(dump_exact), Field(gt=0, le=10_000)]


T = TypeVar("T")


def find_by_id(items: Iterable[T], uid: str) -> T:
    """The item whose ``id`` is ``uid`` (KeyError when none is)."""
    for item in items:
        if getattr(item, "id", None) == uid:
            return item
    raise KeyError(uid)


def duplicate_ids(data: Mapping[str, Any], sections: Sequence[str]) -> list[str]:
    """Ids used twice within each listed section of a raw scenario mapping, with their paths (checked on the
    raw data so that they are listed beside every other error)."""
    problems = []
    for section in sections:
        items = data.get(section)
        if not isinstance(items, list):
            continue
        seen: dict[str, int] = {}
        for i, item in enumerate(items):
            uid = item.get("id") if isinstance(item, dict) else None
            if not isinstance(uid, str):
                continue
            if uid in seen:
                problems.append(f"{section}[{i}].id: {uid!r} is already the id of {section}[{seen[uid]}]")
            else:
                seen[uid] = i
    return problems
