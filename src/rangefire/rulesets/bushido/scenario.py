"""Bushido scenario model (design section 4): models on round bases, weapons, wound tracks, terrain [BU-1]."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from rangefire.core.numbers import parse_exact
from rangefire.core.options import OptionsModel, option
from rangefire.geometry.discs import Disc
from rangefire.scenario import XY, Exact, Id, Model, PolygonField, Table, duplicate_ids, find_by_id
from rangefire.scenario.order import Order, order_problems, with_order

KEY = "bushido"
MAX_MODELS = 200
MAX_TERRAIN = 200
#: All terrain vertices together: sight is judged over many segments, so a hostile table is refused up front.
MAX_TERRAIN_VERTICES = 4000
#: No model rolls more dice than this: a hostile "RCP 1000000" is refused when the file is read.
MAX_RCP = 50
State = Literal["aimed", "ran", "moved", "will_move", "prone", "surprised"]
Side = Annotated[str, Field(min_length=1, max_length=64)]
Inches = Annotated[Exact, Field(gt=0, le=1000)]
#: Base sizes and the size they give [BU-1.2].
SIZES = {30: "small", 40: "medium", 50: "large", 60: "large"}


#: The most attack dice the house rule ``exploding_sixes`` may add to one attack [BU-6.2].
MAX_EXPLODING = 20
#: Wounds the chart may give: a house chart of hostile size is refused when the file is read.
MAX_CHART_WOUNDS = 100
#: The wound chart's rows (roll 1 to 10) and columns (SL 0 to 6) [BU-7.2].
CHART_ROLLS = range(1, 11)
CHART_SLS = range(0, 7)
#: The wound chart as the rules print it [BU-7.2], row by row: roll 1 to 10, columns SL 0 to 6.
RULES_WOUND_CHART: tuple[tuple[int, ...], ...] = (
    (0, 1, 1, 1, 1, 2, 3),
    (0, 1, 1, 1, 2, 3, 4),
    (0, 1, 1, 2, 3, 4, 5),
    (1, 1, 2, 3, 4, 5, 6),
    (1, 2, 3, 4, 5, 6, 7),
    (2, 3, 4, 5, 6, 7, 8),
    (3, 4, 5, 6, 7, 8, 9),
    (4, 5, 6, 7, 8, 9, 10),
    (5, 6, 7, 8, 9, 10, 11),
    (6, 7, 8, 9, 10, 11, 12),
)
Dice = Annotated[int, Field(strict=True, ge=0, le=MAX_RCP)]
Delta = Annotated[int, Field(strict=True, ge=-10, le=10)]
Wounds_ = Annotated[int, Field(strict=True, ge=0, le=MAX_CHART_WOUNDS)]
Reach = Annotated[Exact, Field(ge=0, le=100)]


class DefenseDice(OptionsModel):
    """Defense dice by range band [BU-5.1]."""

    short: Dice = option(1, "BU-5.1", "defense dice against an attack at short range")
    medium: Dice = option(2, "BU-5.1", "defense dice against an attack at medium range")
    long: Dice = option(3, "BU-5.1", "defense dice against an attack at long range")


class AttackModifiers(OptionsModel):
    """The attacker's modifiers, in dice [BU-5.3, BU-5.5]."""

    aimed: Delta = option(1, "BU-5.3", "attack dice for a shooter that aimed this turn")
    ran: Delta = option(-1, "BU-5.3", "attack dice for a shooter that ran this turn")
    moved: Delta = option(-1, "BU-5.3", "attack dice for a shooter that has moved or will move this activation")
    cover: Delta = option(-1, "BU-5.3", "attack dice against a defender in cover")


class DefenseModifiers(OptionsModel):
    """The defender's modifiers, in dice [BU-5.4, BU-5.5]."""

    prone: Delta = option(-1, "BU-5.4", "defense dice for a prone defender")
    ran: Delta = option(-1, "BU-5.4", "defense dice for a defender that ran this turn")
    surprised: Delta = option(-1, "BU-5.4", "defense dice for a surprised defender")
    large: Delta = option(-1, "BU-5.4", "defense dice for a Large defender (50 or 60 mm base)")
    small: Delta = option(1, "BU-5.4", "defense dice for a Small defender (30 mm base)")


class WoundRow(OptionsModel):
    """One roll's row of the wound chart: the wounds at SL 0 to 6 [BU-7.2]. The chart's default carries each
    row's numbers, so a row has no defaults of its own; its cells take the row's clause and help."""

    sl_0: Wounds_
    sl_1: Wounds_
    sl_2: Wounds_
    sl_3: Wounds_
    sl_4: Wounds_
    sl_5: Wounds_
    sl_6: Wounds_

    @property
    def entries(self) -> tuple[int, ...]:
        return tuple(getattr(self, f"sl_{sl}") for sl in CHART_SLS)


def _row(roll: int) -> Any:
    entries = RULES_WOUND_CHART[roll - 1]
    return option(WoundRow(**{f"sl_{sl}": n for sl, n in zip(CHART_SLS, entries, strict=True)}), "BU-7.2",
                  f"wounds on a wound roll of {roll}{' or less' if roll == 1 else ' or more' if roll == 10 else ''} at "
                  "this SL")


class WoundChart(OptionsModel):
    """The wound chart [BU-7.2]: a row for each wound roll (1 to 10, after clamping), a column for each SL
    (0 to 6; above 6 counts as 6)."""

    roll_1: WoundRow = _row(1)
    roll_2: WoundRow = _row(2)
    roll_3: WoundRow = _row(3)
    roll_4: WoundRow = _row(4)
    roll_5: WoundRow = _row(5)
    roll_6: WoundRow = _row(6)
    roll_7: WoundRow = _row(7)
    roll_8: WoundRow = _row(8)
    roll_9: WoundRow = _row(9)
    roll_10: WoundRow = _row(10)

    @property
    def rows(self) -> tuple[tuple[int, ...], ...]:
        """The chart as ``rows[roll - 1][sl]``, as :data:`RULES_WOUND_CHART` holds the rules' chart."""
        return tuple(getattr(self, f"roll_{roll}").entries for roll in CHART_ROLLS)


class Options(OptionsModel):
    """The game's numbers and rulings, with the rules' values as defaults [BU-1.4 to BU-9.2]."""

    obscuring_sight: Reach = option(
        Fraction(3), "BU-2.1", "inches of obscuring terrain a model sees into or through (more blocks sight)")
    zone_of_control: Reach = option(
        Fraction(1), "BU-2.2", "inches a zone of control reaches beyond the base edge")
    defense_dice: DefenseDice = option(DefenseDice(), "BU-5.1", "defense dice by range band")
    attack_modifiers: AttackModifiers = option(AttackModifiers(), "BU-5.3", "the attacker's modifiers, in dice")
    defense_modifiers: DefenseModifiers = option(DefenseModifiers(), "BU-5.4", "the defender's modifiers, in dice")
    cover_reach: Reach = option(
        Fraction(1), "BU-5.7", "inches from the target's base within which obscuring terrain gives cover")
    supporting_dice_cap: Literal["none"] | Annotated[int, Field(strict=True, ge=0, le=MAX_RCP)] = option(
        "none", "BU-6.2", "most supporting dice an attack may add, or none for no cap")
    reroll_failed_attack: bool = option(
        False, "BU-6.2", "house rule: each attack die that fails (a 1, discarded) is rolled once more, the second "
                         "roll standing")
    exploding_sixes: Annotated[int, Field(strict=True, ge=0, le=MAX_EXPLODING)] = option(
        0, "BU-6.2", "house rule: each 6 on the attack dice adds an attack die (an added 6 adds another; an added "
                     "die is rolled once), at most this many added dice in all; 0: none")
    attacker_wins_ties: bool = option(
        True, "BU-6.3", "equal results and equal dice remaining: the attacker wins at SL 0 (false: the defender)")
    wound_chart: WoundChart = option(WoundChart(), "BU-7.2", "the wound chart: wounds by roll and SL")
    one_attack_per_turn: bool = option(True, "BU-8.1", "a model makes at most one ranged attack a turn")
    max_move: Literal["none"] | Inches = option(
        "none", "BU-9.2", "most inches a move may take a model (base centre to base centre), or none for no allowance")

    @property
    def cap(self) -> int | None:
        return None if self.supporting_dice_cap == "none" else int(self.supporting_dice_cap)

    @cached_property
    def chart(self) -> tuple[tuple[int, ...], ...]:
        """The wound chart as rows of numbers (asked for every attack's odds: made once)."""
        return self.wound_chart.rows


class Weapon(Model):
    """A ranged weapon: three range bounds, a wound modifier, optional Ammo [BU-1.3]."""

    name: Annotated[str, Field(min_length=1, max_length=64)] = "ranged weapon"
    short: Inches
    medium: Inches
    long: Inches
    wound_modifier: Annotated[int, Field(strict=True, ge=-20, le=20)] = 0
    ammo: Annotated[int, Field(strict=True, ge=0, le=1000)] | None = None
    armour_piercing: bool = False

    @model_validator(mode="after")
    def _bands_in_order(self) -> Weapon:
        if not self.short <= self.medium <= self.long:
            raise ValueError(f"range bounds must not decrease: short {self.short}, medium {self.medium}, "
                             f"long {self.long} [BU-5.1]")
        return self


class Wounds(Model):
    """The wound track: boxes, and how many are marked [BU-7.3]."""

    boxes: Annotated[int, Field(strict=True, ge=1, le=100)]
    marked: Annotated[int, Field(strict=True, ge=0, le=100)] = 0

    @model_validator(mode="after")
    def _some_left(self) -> Wounds:
        if self.marked >= self.boxes:
            raise ValueError(f"{self.marked} of {self.boxes} boxes marked: a model with every box marked has been "
                             "removed [BU-7.3]")
        return self

    @property
    def left(self) -> int:
        return self.boxes - self.marked


class Unit(Model):
    """A model on a round base [BU-1.1]."""

    id: Id
    side: Side
    position: XY
    base: Literal[30, 40, 50, 60]
    rcp: Annotated[int, Field(strict=True, ge=0, le=MAX_RCP)] | None = None
    armour: Annotated[int, Field(strict=True, ge=0, le=20)] = 0
    wounds: Wounds
    states: Annotated[tuple[State, ...], Field(max_length=6)] = ()
    weapon: Weapon | None = None
    traits: Annotated[tuple[Annotated[str, Field(max_length=64)], ...], Field(max_length=50)] = ()
    attacked: bool = False  # it has made a ranged attack this turn [BU-8.1]
    # where it stood at the start of the turn, written by its first move of the turn [BU-9.1] and cleared when the
    # turn ends with its moved and ran [BU-8.2] (or by a move back there): its move this turn is drawn from there;
    # none: it stands where it began the turn
    start_position: XY | None = None

    @property
    def disc(self) -> Disc:
        return base_disc(self.position, self.base)

    @property
    def size(self) -> str:
        """Small, medium or large, from the base [BU-1.2]."""
        return SIZES[self.base]

    def has(self, state: str) -> bool:
        return state in self.states


@lru_cache(maxsize=4096)
def base_disc(position: tuple[Fraction, Fraction], mm: int) -> Disc:
    """A base as a disc [BU-1.5], made once for a place and size (a side's checks ask every model's many times)."""
    return Disc.base(position, mm)


class Terrain(Model):
    """A terrain piece: solid, obscuring or clear [BU-1.4]."""

    id: Id
    kind: Literal["solid", "obscuring", "clear"]
    polygon: PolygonField


class Turn(Model):
    """The turn number; whose activation it is stays ``active_side`` [BU-8.2]; the order of the sides, fixed when
    the scenario was first read [BU-8.4]."""

    number: Annotated[int, Field(strict=True, ge=1, le=100_000)] = 1
    order: Order | None = None


class Battle(Model):
    """A Bushido battle: the scenario file, validated, immutable."""

    ruleset: Literal["bushido"] = "bushido"
    name: Annotated[str, Field(max_length=200)] | None = None
    options: Options = Options()
    turn: Turn | None = None
    active_side: Side | None = None
    terrain: Annotated[tuple[Terrain, ...], Field(max_length=MAX_TERRAIN)] = ()
    units: Annotated[tuple[Unit, ...], Field(max_length=MAX_MODELS)]
    #: The table's size, where given: a move off it is refused [BU-9.2].
    table: Table | None = None

    @model_validator(mode="before")
    @classmethod
    def _record_order(cls, data: Any) -> Any:
        """The order of the sides, fixed as the scenario is first read: the order its models first name them
        [BU-8.4]."""
        return with_order(data)

    def unit(self, uid: str) -> Unit:
        return find_by_id(self.units, uid)


def _clearly_apart(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    """Whether two bases (centre and radius in floats) are apart by more than the floats' rounding could hide:
    a coordinate is at most a million inches, rounded by some 10^-10, so a gap of 10^-6 is a sure one.

    >>> _clearly_apart((0.0, 0.0, 1.0), (3.0, 0.0, 1.0)), _clearly_apart((0.0, 0.0, 1.0), (2.0, 0.0, 1.0))
    (True, False)
    """
    return math.hypot(a[0] - b[0], a[1] - b[1]) > a[2] + b[2] + 1e-6


def cross_problems(data: Mapping[str, Any]) -> list[str]:
    """Ids used twice, bases that overlap, an active side no model belongs to.

    These run on the raw file, before validation, so every value may be of any type: a value not of the kind
    expected is passed over (never read as another kind: a string is no position), and validation names it."""
    problems = duplicate_ids(data, ("units", "terrain"))
    units = data["units"] if isinstance(data.get("units"), list) else []
    discs: list[tuple[int, str, Disc, tuple[float, float, float]]] = []
    for i, unit in enumerate(units):
        if not isinstance(unit, dict):
            continue
        base, position = unit.get("base"), unit.get("position")
        # a base as validation takes it (30 or 30.0; never True, text or a list, which cannot be looked up)
        size = base if isinstance(base, int | float) and not isinstance(base, bool) and base in SIZES else None
        if size is None or not isinstance(position, list) or len(position) != 2:
            continue  # the field validators report a bad position or base
        try:
            disc = Disc.base((parse_exact(position[0]), parse_exact(position[1])), int(size))
        except ValueError:
            continue  # not a number: the field validators report it
        here = (float(disc.centre.x), float(disc.centre.y), float(disc.radius))
        for j, uid, other, there in discs:
            if _clearly_apart(here, there):
                continue  # farther apart than the floats' rounding could hide: no need of the exact test
            if disc.overlaps(other):
                problems.append(f"units[{i}].position: its base overlaps the base of units[{j}] ({uid}); bases may "
                                "touch but not overlap [BU-2.3]")
        discs.append((i, str(unit.get("id")), disc, here))
    terrain = data["terrain"] if isinstance(data.get("terrain"), list) else []
    vertices = sum(len(t["polygon"]) for t in terrain if isinstance(t, dict) and isinstance(t.get("polygon"), list))
    if vertices > MAX_TERRAIN_VERTICES:
        problems.append(f"terrain: {vertices} vertices in all; at most {MAX_TERRAIN_VERTICES} are accepted")
    active = data.get("active_side")
    given = [u.get("side") for u in units if isinstance(u, dict)]
    if not all(isinstance(side, str) for side in given):
        return problems  # a side of another kind is reported by validation; no side to compare with yet
    turn = data.get("turn")
    if isinstance(turn, dict) and "order" in turn:
        return problems + order_problems(data, "BU-8.4", acting="active_side")
    sides = set(given)
    if isinstance(active, str) and units and active not in sides:
        problems.append(f"active_side: {active!r} is not the side of any model (sides: "
                        f"{', '.join(sorted(str(s) for s in sides))})")
    return problems


__all__ = ["KEY", "MAX_RCP", "RULES_WOUND_CHART", "SIZES", "AttackModifiers", "Battle", "DefenseDice",
           "DefenseModifiers", "Options", "Terrain", "Turn", "Unit", "Weapon", "WoundChart", "WoundRow", "Wounds",
           "cross_problems"]
