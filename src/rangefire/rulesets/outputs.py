"""Each game's part of the JSON outputs, typed: its plan's details as a model (the range, band, line of fire or
sight, dice, modifiers, cover, save, nominations, line of play...), and each game's model of every command's
output built on it (:func:`rangefire.core.schemas.game_output`), with ``ruleset`` the game's key.

``rangefire schema GAME --output COMMAND`` prints one game's; ``rangefire schema --output COMMAND`` the model
common to every game with each game's under ``oneOf``, told apart by ``ruleset``. A plan's model lists every key
its ``details`` writes and no other (the models are strict), and each value's type; the values a game names
(weapons, bands, cover grades) are the game's own declarations.

>>> model = game_models("odds")["bushido"]
>>> model.__name__, model.model_fields["ruleset"].annotation
('BushidoOddsOutput', typing.Literal['bushido'])
"""

from __future__ import annotations

import functools
import typing
from typing import Annotated

from pydantic import BaseModel, Field

from rangefire.core.schemas import COMMAND_OUTPUTS, PlanBase, Rational, _Out, game_output, outcome_type
from rangefire.rulesets import RULESETS
from rangefire.rulesets.dress_on_the_colors.scenario import Weapon
from rangefire.rulesets.dress_on_the_colors.table import Band, Grade

#: An exact point, each coordinate an exact number as text ("21/2").
ExactPoint = Annotated[list[Rational], Field(min_length=2, max_length=2)]
#: A point as a float pair (rounded to 4 places), for drawing.
FloatPoint = Annotated[list[float], Field(min_length=2, max_length=2)]


# -- Dress on the Colors ----------------------------------------------------------------------------------------
class DressRange(_Out):
    """The range from the firer's front edge [DC-2.4]: inches (rounded), exactly squared, and its band."""

    inches: float
    squared: Rational
    band: Band


class DisciplineCheck(_Out):
    """The target's discipline check, were it to take one [DC-5.2]: its dice, modifier and the pass."""

    dice: int
    modifier: int
    pass_: int = Field(alias="pass")


class DressPlan(PlanBase):
    """A Dress on the Colors volley's plan: the weapon, range and band [DC-2.4], the line of fire [DC-7.3], the
    target number and natural roll needed [DC-3.2, DC-3.4], the dice [DC-3.1, DC-6.2], cover and save [DC-4.1,
    DC-4.2], gunsmoke crossed [DC-7.2], the target's state, its discipline check [DC-5.2] and the house rules
    of the dice [DC-3.4, DC-4.1]."""

    weapon: Weapon
    range: DressRange
    line_of_fire: Annotated[list[ExactPoint], Field(min_length=2, max_length=2)] | None
    line_of_fire_tied: bool
    target_number: int
    need: int = Field(description="the natural roll each die needs (7 or more: no die can hit)")
    can_hit: bool
    dice: int
    stands_firing: int
    enfilade: bool
    enfilade_dice: int
    cover: Grade
    cover_from: list[str]
    save: int | None = Field(description="the cover save (a die of this or more), None where there is none")
    gunsmoke_crossed: list[str]
    target_stands: int
    target_micro_hits: int
    target_disordered: bool
    discipline_check: DisciplineCheck
    places_gunsmoke: bool
    tied_targets: list[str]
    reroll_to_hit: typing.Literal["none", "ones", "misses"] = Field(
        description="the to-hit dice rolled once more (house rule ``options.reroll_to_hit``) [DC-3.4]")
    sixes_ignore_cover: bool


# -- Arcane Legions ---------------------------------------------------------------------------------------------
class ArcaneSides(_Out):
    """The sides the order is given from and to [AL-3.1], whether the engine chose them, and the pairs tied."""

    from_: str = Field(alias="from")
    to: str
    chosen_by_engine: bool
    tied_with: list[Annotated[list[str], Field(min_length=2, max_length=2)]]


class ArcaneNotches(_Out):
    """The notches measured between [AL-3.2], exact, None where none is."""

    from_: ExactPoint | None = Field(alias="from")
    to: ExactPoint | None


class ArcaneRange(_Out):
    """The range in steps (rounded), and exactly squared."""

    steps: float
    squared: Rational


class ArcaneSight(_Out):
    """The line of sight: its verdict, the units that hinder it and those it touches [AL-4]."""

    verdict: str
    hindered_by: list[str]
    touching: list[str]


class AttackDefense(_Out):
    """A number for the attack and one for the defense."""

    attack: int
    defense: int


class ArcaneCost(_Out):
    """What the order costs [AL-8.1]: order points, and whether it is a push [AL-5.2]."""

    order_points: int
    push: bool


class ArcanePlan(PlanBase):
    """An Arcane Legions order's plan: the order, sides and notches [AL-3], range, sight [AL-4], the dice, their
    bonuses and rerolls [AL-6], whether the defender scores [AL-6.6] and the cost [AL-8.1]."""

    order: str
    sides: ArcaneSides
    notches: ArcaneNotches
    range: ArcaneRange
    line_of_sight: ArcaneSight
    attack_dice: int
    defense_dice: int
    die_bonus: AttackDefense
    reroll_at_most: AttackDefense
    defender_scores: bool
    cost: ArcaneCost


# -- Bushido ----------------------------------------------------------------------------------------------------
class Nomination(_Out):
    """A model the target's player may nominate instead [BU-4.2], and what it crosses (base, zone of control)."""

    id: str
    crosses: str


class BushidoRange(_Out):
    """The range between bases (rounded) and its band, None beyond long range [BU-5.1]."""

    inches: float
    band: str | None


class SightLine(_Out):
    """The line that shows the target: its ends (rounded), what it crosses."""

    from_: FloatPoint = Field(alias="from")
    to: FloatPoint
    solid: list[str]
    obscuring: list[str]
    obscured_inches: float


class BushidoSight(_Out):
    """Whether the attacker sees the target [BU-2.1], by which line, or what blocks every line tried."""

    verdict: str
    clear: bool
    line: SightLine | None
    blocked_by: list[str]
    too_deep: list[str]
    lines_tried: int


class Ammo(_Out):
    """The weapon's Ammo markers before the attack and after it."""

    before: int
    after: int


class BushidoPlan(PlanBase):
    """A Bushido ranged attack's plan: the target declared and whether it was redirected, the models that may be
    nominated [BU-4.2], weapon, range and band [BU-5.1], sight [BU-2.1] and cover [BU-5.7], the pools and dice
    [BU-6.1], the house rules of the dice [BU-6.2], the wound roll's modifier [BU-7.2] and the ammo."""

    declared_target: str
    redirected: bool
    nominees: list[Nomination]
    weapon: str
    range: BushidoRange
    fails: bool = Field(description="a redirected attack beyond long range fails [BU-4.3]")
    line_of_sight: BushidoSight
    in_cover: bool
    cover_by: list[str]
    pools: AttackDefense
    attack_dice: int
    defense_dice: int
    supporting_dice_cap: int | typing.Literal["none"]
    reroll_failed_attack: bool
    exploding_sixes: int
    wound_roll_modifier: int
    ammo: Ammo | None
    target_wounds_left: int


# -- swerve -----------------------------------------------------------------------------------------------------
class Players(_Out):
    """The players of the combat by role."""

    attacker: str
    defender: str


class Totals(_Out):
    """The totals a ranged combat compares [SW-4.1]."""

    accuracy: int
    speed: int
    damage: int


class Reveal(_Out):
    """The combat bonus to be revealed [SW-4.2]: known (the top of a deck whose order is known), or one of the
    deck's."""

    known: int | None = None
    deck: list[int] | None = None


class SwervePlan(PlanBase):
    """A swerve ranged combat's plan: the players, the totals before the actions [SW-4.1], the line of play
    given [SW-3.1] and the totals after it, whether it is complete, and the bonus to be revealed [SW-4.2]."""

    players: Players
    start: Totals
    actions: list[str]
    actions_given: int
    totals_before_reveal: Totals
    line_complete: bool
    reveal: Reveal


#: Each game's plan model, by key.
PLANS: dict[str, type[PlanBase]] = {
    "dress-on-the-colors": DressPlan,
    "arcane-legions": ArcanePlan,
    "bushido": BushidoPlan,
    "swerve": SwervePlan,
}


@functools.cache
def game_models(command: str) -> dict[str, type[BaseModel]]:
    """Each game's model of a command's output (every built-in game's, by key), for the commands that name the
    game (every one but ``targets`` and the error: an empty mapping)."""
    if "ruleset" not in COMMAND_OUTPUTS[command].model_fields:
        return {}
    return {ruleset.key: game_output(command, ruleset.key, PLANS[ruleset.key], outcome_type(type(ruleset)))
            for ruleset in RULESETS}


__all__ = ["PLANS", "ArcanePlan", "BushidoPlan", "DressPlan", "SwervePlan", "game_models"]
