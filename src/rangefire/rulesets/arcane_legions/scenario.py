"""Arcane Legions scenario model (design section 4): units on bases, coloured sides, slots, abilities [AL-1]."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from rangefire.core.options import OptionsModel, option
from rangefire.scenario import XY, Exact, Id, Model, PolygonField, Table, duplicate_ids, find_by_id
from rangefire.scenario.order import Order, SideName, order_problems, with_order

KEY = "arcane-legions"
MAX_UNITS = 300
MAX_SLOTS = 40
#: The longest range an option may set, in steps [AL-3.1].
MAX_RANGE = 100
SIDE_NAMES = ("front", "right", "back", "left")
Colour = Literal["blue", "red", "grey"]
Small = Annotated[int, Field(strict=True, ge=-20, le=20)]
Count = Annotated[int, Field(strict=True, ge=0, le=100)]


Penalty = Annotated[int, Field(strict=True, ge=0, le=50)]


class SidePenalty(OptionsModel):
    """Dice taken away for a side of each colour: one row of the side penalties, whose clause and help it takes
    (the attacker's side in ranged [AL-5.3] or close combat [AL-8.1], the side attacked [AL-5.4])."""

    blue: Penalty = 0
    red: Penalty = 0
    grey: Penalty = 0


class SidePenalties(OptionsModel):
    """The side penalties by order and role: the attacker's side in ranged combat [AL-5.3] and in close combat
    [AL-8.1], the side attacked [AL-5.4]."""

    ranged: SidePenalty = option(SidePenalty(red=3, grey=3), "AL-5.3",
                                 "attack dice lost shooting from a side of this colour")
    close: SidePenalty = option(SidePenalty(grey=3), "AL-8.1",
                                "close combat dice lost attacking from this colour")
    defense: SidePenalty = option(SidePenalty(grey=3), "AL-5.4",
                                  "defense dice lost when attacked on this colour")


class Costs(OptionsModel):
    """Order points an order costs by base, before abilities [AL-5.1]."""

    sortie: Annotated[int, Field(strict=True)] = option(1, "AL-5.1", "order points an order to a sortie costs",
                                                         ge=0, le=50)
    formation: Annotated[int, Field(strict=True)] = option(2, "AL-5.1",
                                                            "order points an order to a formation costs", ge=0, le=50)


class Critical(OptionsModel):
    """The critical hit: how many 6s on the first roll make one, and the extra hits it scores [AL-6.2]."""

    sixes: Annotated[int, Field(strict=True)] = option(3, "AL-6.2", "first-roll 6s that make a critical hit (or more)",
                                                       ge=1, le=50)
    hits: Annotated[int, Field(strict=True)] = option(1, "AL-6.2", "extra hits a critical scores", ge=0, le=10)


class Options(OptionsModel):
    """The game's numbers and the rulings' options, with the rules' values as defaults [AL-1.4, AL-3.1, AL-4.4,
    AL-5.1, AL-5.2, AL-5.3, AL-5.4, AL-5.5, AL-6.2, AL-6.4, AL-8.1]."""

    corner_contact_is_adjacent: bool = option(False, "AL-1.4", "bases touching at a corner only are adjacent")
    range_steps: Exact = option(Fraction(6), "AL-3.1", "the range in steps, notch to notch, inclusive")
    touching_hinders: bool = option(False, "AL-4.4", "a line only touching hindering terrain is hindered")
    cost: Costs = option(Costs(), "AL-5.1", "order points an order costs by base")
    push_figures: Annotated[int, Field(strict=True)] = option(1, "AL-5.2", "figures a push removes", ge=1, le=MAX_SLOTS)
    side_penalty: SidePenalties = option(SidePenalties(), "AL-5.3", "dice lost for the colour of a side")
    melee_penalty: Penalty = option(1, "AL-5.3", "attack dice lost firing into melee")
    hindrance_penalty: Penalty = option(1, "AL-5.3", "attack dice lost per hindrance on the line of sight")
    refuse_zero_dice: bool = option(False, "AL-5.5", "refuse an attack left with no attack dice")
    reroll_attack_at_most: Annotated[int, Field(strict=True)] = option(
        0, "AL-6.3", "house rule: every unit's attack dice showing this or less are rolled once more, as the ability "
                     "reroll_attack_at_most (a unit's own, where higher, stands); 0: none", ge=0, le=5)
    reroll_defense_at_most: Annotated[int, Field(strict=True)] = option(
        0, "AL-6.3", "house rule: every unit's defense dice showing this or less are rolled once more, as the ability "
                     "reroll_defense_at_most (a unit's own, where higher, stands); 0: none", ge=0, le=5)
    critical: Critical = option(Critical(), "AL-6.2", "the critical hit")
    crit_per_three_sixes: bool = option(False, "AL-6.2", "a critical per full set of critical.sixes 6s")
    phantom: Annotated[int, Field(strict=True)] = option(2, "AL-6.4", "the phantom die's value (a side out of dice)",
                                                         ge=0, le=20)
    max_move_steps: Annotated[Exact, Field(gt=0, le=1000)] | None = option(
        None, "AL-10.2", "the longest move in steps between base centres; none: no limit")

    @field_validator("range_steps")
    @classmethod
    def _range_in_reach(cls, value: Fraction) -> Fraction:
        # an exact number takes no ge/le of its own; past 100 steps every table is in range, and a long reach
        # only makes the notch and sight searches slower [AL-3.1]
        if not 0 < value <= MAX_RANGE:
            raise ValueError(f"must be more than 0 and at most {MAX_RANGE} steps, got {value}")
        return value


class Player(Model):
    order_points: Count = 8
    #: What the order points become at the end of the side's turn; none: they are left as they are [AL-9.2].
    order_points_per_turn: Count | None = None


class Turn(Model):
    """The turn number and the side whose turn it is [AL-9.1]; the order of the sides, fixed when the scenario was
    first read [AL-9.3]. No side recorded: no side is limited until the first end of turn [AL-9.1]."""

    number: Annotated[int, Field(strict=True, ge=1, le=100_000)] = 1
    side: SideName | None = None
    order: Order | None = None


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
    # where it stood and faced at the start of its side's turn, written by its first move of the turn [AL-10.1] and
    # cleared when that turn ends [AL-9.1] (or by a move back there): its move this turn is drawn from there; none:
    # it stands where it began the turn
    start_position: XY | None = None
    start_facing: Exact | None = None

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
    table: Table | None = None  # the table's size: a move leaving it is refused [AL-10.1]; none: no edge
    terrain: Annotated[tuple[Terrain, ...], Field(max_length=300)] = ()
    units: Annotated[tuple[Unit, ...], Field(max_length=MAX_UNITS)]

    @model_validator(mode="before")
    @classmethod
    def _record_order(cls, data: Any) -> Any:
        """The order of the sides, fixed as the scenario is first read: the order of its ``players`` block, or
        where it has none the order its units first name them [AL-9.3]."""
        players = data.get("players") if isinstance(data, Mapping) else None
        return with_order(data, [str(p) for p in players] if isinstance(players, Mapping) else None)

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
    return problems + order_problems(data, "AL-9.3")
