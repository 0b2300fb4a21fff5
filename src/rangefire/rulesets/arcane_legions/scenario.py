"""Arcane Legions scenario model (design section 4): units on bases, coloured sides, slots, abilities [AL-1]."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field

from rangefire.core.options import OptionsModel, option
from rangefire.scenario import XY, Exact, Id, Model, PolygonField, duplicate_ids, find_by_id

KEY = "arcane-legions"
MAX_UNITS = 300
MAX_SLOTS = 40
SIDE_NAMES = ("front", "right", "back", "left")
Colour = Literal["blue", "red", "grey"]
Small = Annotated[int, Field(strict=True, ge=-20, le=20)]
Count = Annotated[int, Field(strict=True, ge=0, le=100)]


class Options(OptionsModel):
    """The rulings' options, with their defaults [AL-1.4, AL-4.4, AL-5.5, AL-6.2]."""

    corner_contact_is_adjacent: bool = option(False, "AL-1.4", "bases touching at a corner only are adjacent")
    touching_hinders: bool = option(False, "AL-4.4", "a line that only touches hindering terrain passes through it")
    refuse_zero_dice: bool = option(False, "AL-5.5", "an attack left with no dice is refused rather than made")
    crit_per_three_sixes: bool = option(
        False, "AL-6.2", "one critical per full set of three 6s (instead of one at most)")


class Player(Model):
    order_points: Count = 8
    #: What the order points become at the end of the side's turn; none: they are left as they are [AL-9.2].
    order_points_per_turn: Count | None = None


class Turn(Model):
    """The turn number and the side whose turn it is [AL-9.1]."""

    number: Annotated[int, Field(strict=True, ge=1, le=100_000)] = 1
    side: Annotated[str, Field(min_length=1, max_length=64)]


class Sides(Model):
    """The colour of each side of the base [AL-1.2]."""

    front: Colour
    right: Colour
    back: Colour
    left: Colour


class Slot(Model):
    """A figure's slot: its icons are ready while it is occupied [AL-1.5]; hit points per figure [AL-7.2]."""

    icons: Annotated[tuple[Literal["blue", "red", "white"], ...], Field(max_length=12)] = ()
    occupied: bool = True
    hp: Annotated[int, Field(strict=True, ge=0, le=100)] = 1


class Abilities(Model):
    """The ability vocabulary [AL-5.1, AL-5.3, AL-5.4, AL-6.3, AL-6.6]."""

    attack_dice: Small = 0
    defense_dice: Small = 0
    attack_die_bonus: Small = 0
    defense_die_bonus: Small = 0
    reroll_attack_at_most: Annotated[int, Field(strict=True, ge=0, le=5)] = 0
    reroll_defense_at_most: Annotated[int, Field(strict=True, ge=0, le=5)] = 0
    order_cost: Small = 0
    defender_scores_in_ranged: bool = False


class Unit(Model):
    """A unit on a sortie (1 x 1 step) or formation (2 x 1 steps) base [AL-1.1]."""

    id: Id
    side: Annotated[str, Field(min_length=1, max_length=64)]
    base: Literal["sortie", "formation"]
    position: XY
    facing: Exact
    sides: Sides
    slots: Annotated[tuple[Slot, ...], Field(min_length=1, max_length=MAX_SLOTS)]
    abilities: Abilities = Abilities()
    ranged_orders_this_turn: Count = 0
    pushed: bool = False
    casualty_order: tuple[Annotated[int, Field(strict=True, ge=0)], ...] | None = None

    def ready(self, icon: str) -> int:
        """Ready icons of one kind: the icons of occupied slots [AL-1.5]."""
        return sum(slot.icons.count(icon) for slot in self.slots if slot.occupied)

    @property
    def figures(self) -> int:
        return sum(1 for slot in self.slots if slot.occupied)


class Terrain(Model):
    id: Id
    kind: Literal["blocking", "hindering"]
    polygon: PolygonField


class Battle(Model):
    """An Arcane Legions battle: the scenario file, validated, immutable."""

    ruleset: Literal["arcane-legions"] = "arcane-legions"
    name: Annotated[str, Field(max_length=200)] | None = None
    options: Options = Options()
    players: dict[Annotated[str, Field(min_length=1, max_length=64)], Player] = Field(default_factory=dict)
    turn: Turn | None = None  # none recorded: no side is limited until the first end of turn [AL-9.1]
    terrain: Annotated[tuple[Terrain, ...], Field(max_length=300)] = ()
    units: Annotated[tuple[Unit, ...], Field(max_length=MAX_UNITS)]

    def unit(self, uid: str) -> Unit:
        return find_by_id(self.units, uid)


def cross_problems(data: Mapping[str, Any]) -> list[str]:
    """Ids used twice, casualty orders naming slots that do not exist, sides without a player entry."""
    problems = duplicate_ids(data, ("units", "terrain"))
    units: list[Any] = data["units"] if isinstance(data.get("units"), list) else []
    players: dict[str, Any] = data["players"] if isinstance(data.get("players"), dict) else {}
    for i, unit in enumerate(units):
        if not isinstance(unit, dict):
            continue
        side = unit.get("side")
        if isinstance(side, str) and side not in players:
            problems.append(f"units[{i}].side: {side!r} has no entry under players (order points)")
        order = unit.get("casualty_order")
        slots = unit.get("slots")
        if isinstance(order, list) and isinstance(slots, list):
            for j, index in enumerate(order):
                if isinstance(index, int) and not 0 <= index < len(slots):
                    problems.append(f"units[{i}].casualty_order[{j}]: slot {index} does not exist "
                                    f"(the unit has {len(slots)})")
    turn = data.get("turn")
    side = turn.get("side") if isinstance(turn, dict) else None
    if isinstance(side, str) and players and side not in players:
        problems.append(f"turn.side: {side!r} is not a side under players ({', '.join(map(str, players))}) [AL-9.1]")
    return problems
