"""Dress on the Colors scenario model (design section 4): options, units, terrain [DC-1.1, DC-1.3]."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from rangefire.core.numbers import dump_exact
from rangefire.core.options import OptionsModel, option
from rangefire.scenario import XY, Exact, Id, Model, PolygonField, Table, duplicate_ids, find_by_id
from rangefire.scenario.order import Order, SideName, order_problems, with_order

KEY = "dress-on-the-colors"

#: A regiment of more stands than this is refused (a hostile "million dice" never reaches the dice).
MAX_STANDS = 60
MAX_UNITS = 400
MAX_TERRAIN = 400

Weapon = Literal["smoothbore", "rifled-musket", "breechloader", "artillery"]
Formation = Literal["line", "march-column", "skirmish"]
Stands = Annotated[int, Field(strict=True, ge=1, le=MAX_STANDS)]
Positive = Annotated[Exact, Field(gt=0, le=100)]


#: A target number on a die (2+ to 6+), or "none": the weapon cannot fire at that band [DC-3.2] / no save [DC-4.1].
TargetNumber = Literal["none"] | Annotated[int, Field(strict=True, ge=2, le=6)]
#: A modifier to each to-hit die (negative for a penalty) [DC-3.3].
Delta = Annotated[int, Field(strict=True, ge=-5, le=5)]
#: A distance in inches, read exactly (``6.5`` is 13/2).
Inches = Annotated[Exact, Field(gt=0, le=1000)]


def number(value: TargetNumber) -> int | None:
    """A table entry as the engine uses it: ``"none"`` is None."""
    return None if value == "none" else int(value)


class Bands(OptionsModel):
    """The range bands' upper edges in inches [DC-2.4]: d <= short, short < d <= medium, medium < d <= long;
    beyond long a unit cannot fire [DC-2.3]."""

    short: Inches = option(Fraction(6), "DC-2.4", "short range reaches this far (inches, inclusive)")
    medium: Inches = option(Fraction(14), "DC-2.4", "medium range reaches this far (inches, inclusive)")
    long: Inches = option(Fraction(20), "DC-2.4", "long range, and the farthest any unit fires (inches)")

    @model_validator(mode="after")
    def _increasing(self) -> Bands:
        if not self.short < self.medium < self.long:
            raise ValueError(f"the band edges must increase: short {dump_exact(self.short)}, medium "
                             f"{dump_exact(self.medium)}, long {dump_exact(self.long)} [DC-2.4]")
        return self


class WeaponRow(OptionsModel):
    """One weapon's target numbers by band [DC-3.2]."""

    # no help of their own: each row's help (its weapon) is listed beside them
    short: TargetNumber = option("none", "DC-3.2", "")
    medium: TargetNumber = option("none", "DC-3.2", "")
    long: TargetNumber = option("none", "DC-3.2", "")

    def at(self, band: str) -> int | None:
        return number(getattr(self, band))


class ToHit(OptionsModel):
    """Target numbers by weapon and band [DC-3.2]; artillery fires canister at short range and roundshot at
    medium and long range."""

    smoothbore: WeaponRow = option(WeaponRow(short=3, medium=5, long="none"), "DC-3.2",
                                   "smoothbore musket (none: cannot fire)")
    rifled_musket: WeaponRow = option(WeaponRow(short=4, medium=4, long=5), "DC-3.2",
                                      "rifled musket (none: cannot fire)",
                                      alias="rifled-musket")
    breechloader: WeaponRow = option(WeaponRow(short=3, medium=4, long=5), "DC-3.2",
                                     "breechloader / repeater (none: cannot fire)")
    artillery: WeaponRow = option(WeaponRow(short=2, medium=4, long=5), "DC-3.2",
                                  "artillery: canister at short range, roundshot beyond")

    def row(self, weapon: str) -> WeaponRow:
        row: WeaponRow = getattr(self, weapon.replace("-", "_"))
        return row


class Modifiers(OptionsModel):
    """Each to-hit modifier's delta [DC-3.3, DC-7.2]; 0 turns one off."""

    target_skirmish: Delta = option(-1, "DC-3.3", "to each die when the target is in skirmish formation")
    gunsmoke: Delta = option(-1, "DC-7.2", "to each die firing through gunsmoke (longer than gunsmoke_beyond)")
    firer_disordered: Delta = option(-1, "DC-3.3", "to each die when the firer is disordered")
    firer_march_column: Delta = option(-1, "DC-3.3", "to each die when the firer is in march column")


class CoverSaves(OptionsModel):
    """The cover save by grade [DC-4.1]: 5 means a save on 5+; none, no save."""

    open: TargetNumber = option("none", "DC-4.1", "cover save in the open")
    light: TargetNumber = option(5, "DC-4.1", "cover save in light cover (fences, scrub, thin woods)")
    heavy: TargetNumber = option(4, "DC-4.1", "cover save in heavy cover (stone walls, trenches, dense woods)")

    def at(self, grade: str) -> int | None:
        return number(getattr(self, grade))


class Enfilade(OptionsModel):
    """Enfilade fire [DC-6.2, DC-6.3]: extra dice by stands firing, and a worse cover save."""

    dice: Annotated[int, Field(strict=True, ge=0, le=3)] = option(
        1, "DC-6.2", "extra to-hit dice for every per_stands stands firing")
    per_stands: Annotated[int, Field(strict=True, ge=1, le=MAX_STANDS)] = option(
        2, "DC-6.2", "stands firing per step of extra dice (rounded down)")
    save_shift: Annotated[int, Field(strict=True, ge=0, le=5)] = option(
        1, "DC-6.3", "the target's cover save worsens by this (past 6+: no save)")


class Options(OptionsModel):
    """The game's numbers and rulings, with the rules' values as defaults [DC-2 to DC-7, DC-9.1]."""

    arc: Literal["corners", "centre"] = option(
        "corners", "DC-2.1", "where the 45 degree arc lines start: the front corners or the front-edge midpoint")
    bands: Bands = option(Bands(), "DC-2.4", "range bands' upper edges in inches")
    dice_per_stand: Annotated[int, Field(strict=True, ge=1, le=2)] = option(
        1, "DC-3.1", "to-hit dice rolled for each stand firing")
    to_hit: ToHit = option(ToHit(), "DC-3.2", "to-hit target numbers by weapon and band; none: cannot fire")
    modifiers: Modifiers = option(Modifiers(), "DC-3.3", "to-hit modifiers")
    lowest_hit: Annotated[int, Field(strict=True, ge=1, le=6)] = option(
        2, "DC-3.4", "the lowest natural roll that can hit")
    reroll_to_hit: Literal["none", "ones", "misses"] = option(
        "none", "DC-3.4", "house rule: to-hit dice rolled once more, the second roll standing: none; ones (a "
                          "natural 1 that misses); misses (every die that misses; a 6 is never rolled again)")
    sixes_ignore_cover: bool = option(
        False, "DC-4.1", "house rule: a hit on a natural 6 cannot be saved (no cover save is rolled for it)")
    cover_save: CoverSaves = option(CoverSaves(), "DC-4.1", "cover saves by grade")
    cover_reach: Annotated[Exact, Field(ge=0, le=20)] = option(
        Fraction(1), "DC-4.2", "terrain crossed less than this far (inches) from the target gives it cover")
    discipline_dice: Annotated[int, Field(strict=True, ge=1, le=10)] = option(
        2, "DC-5.2", "dice rolled for a discipline check")
    discipline_pass: Annotated[int, Field(strict=True, ge=-100, le=100)] = option(
        6, "DC-5.2", "the check passes when the dice plus discipline reach this")
    discipline_disordered: Annotated[int, Field(strict=True, ge=-20, le=20)] = option(
        -1, "DC-5.2", "added to the check of a unit already disordered")
    enfilade: Enfilade = option(Enfilade(), "DC-6.2", "enfilade fire")
    gunsmoke_beyond: Annotated[Exact, Field(ge=0, le=1000)] = option(
        Fraction(6), "DC-7.2", "gunsmoke hinders only lines of fire longer than this (inches)")
    one_volley_per_turn: bool = option(True, "DC-9.1", "a unit fires at most one volley a turn")
    engaged_may_move: bool = option(False, "DC-10.2", "a unit engaged in melee may move")
    max_move: Inches | None = option(
        None, "DC-10.3", "the longest move in inches (the farthest any corner of a stand travels); none: no limit")


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
    """The turn number and the side whose turn it is [DC-9.2]; the order of the sides, fixed when the scenario was
    first read [DC-9.4]. No side recorded: no side is limited until the first end of turn [DC-9.2]."""

    number: Annotated[int, Field(strict=True, ge=1, le=100_000)] = 1
    side: SideName | None = None
    order: Order | None = None


class Battle(Model):
    """A Dress on the Colors battle: the scenario file, validated, immutable."""

    ruleset: Literal["dress-on-the-colors"] = "dress-on-the-colors"
    name: Annotated[str, Field(max_length=200)] | None = None
    options: Options = Options()
    turn: Turn | None = None  # none recorded: no side is limited until the first end of turn [DC-9.2]
    table: Table | None = None  # the table's size: a move leaving it is refused [DC-10.2]; none: no edge
    terrain: Annotated[tuple[Terrain, ...], Field(max_length=MAX_TERRAIN)] = ()
    units: Annotated[tuple[Unit, ...], Field(max_length=MAX_UNITS)]

    @model_validator(mode="before")
    @classmethod
    def _record_order(cls, data: Any) -> Any:
        """The order of the sides, fixed as the scenario is first read: the order its units first name them
        [DC-9.4]."""
        return with_order(data)

    def unit(self, uid: str) -> Unit:
        return find_by_id(self.units, uid)


def cross_problems(data: Mapping[str, Any]) -> list[str]:
    """Problems the field validators cannot see: no unit at all (where no order of the sides is recorded either: a
    battle whose sides are named still has its units to place [DC-10.4]), ids used twice, a turn for no side."""
    turn = data.get("turn")
    ordered = isinstance(turn, dict) and isinstance(turn.get("order"), list) and bool(turn["order"])
    problems = ["units: a battle needs at least one unit"] if data.get("units") == [] and not ordered else []
    return problems + duplicate_ids(data, ("units", "terrain")) + turn_side_problems(data)


def turn_side_problems(data: Mapping[str, Any]) -> list[str]:
    """The side a recorded turn names must be a side of its recorded order [DC-9.4] or, where it records none,
    the side of some unit [DC-9.2] (checked on the raw file: a value of another kind is left to validation)."""
    turn, units = data.get("turn"), data.get("units")
    if isinstance(turn, dict) and "order" in turn:
        return order_problems(data, "DC-9.4")
    side = turn.get("side") if isinstance(turn, dict) else None
    if not isinstance(side, str) or not isinstance(units, list):
        return []
    sides = [u.get("side") for u in units if isinstance(u, dict)]
    if not sides or side in sides or not all(isinstance(s, str) for s in sides):
        return []
    named = ", ".join(dict.fromkeys(str(s) for s in sides))
    return [f"turn.side: {side!r} is not the side of any unit (sides: {named})"]
