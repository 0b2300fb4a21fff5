"""The swerve card game's scenario model (design section 4): players, decks, cards, hands [SW-1]."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from rangefire.core.options import OptionsModel, option
from rangefire.scenario import Id, Model, duplicate_ids, find_by_id

KEY = "swerve"
MAX_CARDS = 500
MAX_DECK = 200
Number = Annotated[int, Field(strict=True, ge=-1000, le=1000)]
Timing = Literal["main", "combat", "close-combat", "ranged-combat"]
TIMINGS: tuple[Timing, ...] = ("main", "combat", "close-combat", "ranged-combat")


class Options(OptionsModel):
    """The numbers and rulings of a ranged combat a designer could change, with the rules' values as defaults
    [SW-3.4 to SW-5.3]."""

    target_swerve_speed: Annotated[int, Field(strict=True, ge=0, le=10)] = option(
        1, "SW-3.4", "times its printed speed the defender adds to total speed by swerving the target")
    usable_timings: Annotated[tuple[Timing, ...], Field(max_length=4)] = option(
        ("combat", "ranged-combat"), "SW-3.5", "timings of the tactics and abilities usable in ranged combat")
    empty_deck_bonus: Number = option(0, "SW-4.2", "the combat bonus an empty deck gives")
    attacker_wins_ties: bool = option(
        False, "SW-4.3", "equal totals go to the attacker (the ruling gives them to the defender)")
    unprinted_toughness: Annotated[int, Field(strict=True, ge=1, le=1000)] = option(
        1, "SW-5.3", "damage that destroys a unit or vehicle with no toughness printed")

    @field_validator("usable_timings", mode="after")
    @classmethod
    def _in_order(cls, value: tuple[Timing, ...]) -> tuple[Timing, ...]:
        # a set of timings, kept in the rules' order: the same set given in any order is the same rule
        return tuple(t for t in TIMINGS if t in value)

    def toughness(self, card: Card) -> int:
        """The damage that destroys ``card``: its toughness, or the option's where none is printed [SW-5.3]."""
        return card.toughness if card.toughness is not None else self.unprinted_toughness


class Player(Model):
    """A player's deck of combat bonuses (top first when the order is known) [SW-1.4].

    ``top_revealed`` is a bonus revealed on top of a deck whose order is otherwise unknown: it stays on top
    [SW-4.2] and is what the next reveal shows.
    """

    deck: Annotated[tuple[Number, ...], Field(max_length=MAX_DECK)] = ()
    deck_order: Literal["known", "unknown"] = "known"
    top_revealed: Number | None = None


class Ranged(Model):
    """The text of a card that begins ranged combat [SW-1.2, SW-2.1]."""

    accuracy: Number
    damage: Number
    cost: Literal["swerve-self", "none"] = "swerve-self"
    targets: tuple[Literal["unit", "vehicle"], ...] = ("unit", "vehicle")


class Effect(Model):
    """A tactic's or ability's effect: add N to a total [SW-1.3]."""

    accuracy: Number = 0
    speed: Number = 0
    damage: Number = 0


class Card(Model):
    """A card in play or in a hand [SW-1.1]."""

    id: Id
    owner: Annotated[str, Field(min_length=1, max_length=64)]
    type: Literal["unit", "vehicle", "weapon", "tactic"]
    name: Annotated[str, Field(max_length=120)] = ""
    speed: Number | None = None
    accuracy: Number | None = None
    damage: Number | None = None
    toughness: Annotated[int, Field(strict=True, ge=1, le=1000)] | None = None
    counters: Annotated[int, Field(strict=True, ge=0, le=1000)] = 0
    swerved: bool = False
    mission: Annotated[str, Field(max_length=64)] | None = None
    ranged: Ranged | None = None
    timing: Timing | None = None
    effect: Effect | None = None
    #: The activated ability's cost: "swerve this" unless the card says ``none`` [SW-1.6].
    cost: Literal["swerve-self", "none"] | None = None

    @property
    def ability_cost(self) -> Literal["swerve-self", "none"]:
        return self.cost or "swerve-self"


class Turn(Model):
    """The turn number and the player whose turn it is [SW-8.1]."""

    number: Annotated[int, Field(strict=True, ge=1, le=100_000)] = 1
    side: Annotated[str, Field(min_length=1, max_length=64)]


class Battle(Model):
    """A swerve game state: the players, the cards and the hands."""

    ruleset: Literal["swerve"] = "swerve"
    name: Annotated[str, Field(max_length=200)] | None = None
    options: Options = Options()
    turn: Turn | None = None
    players: dict[Annotated[str, Field(min_length=1, max_length=64)], Player]
    cards: Annotated[tuple[Card, ...], Field(max_length=MAX_CARDS)]
    hands: dict[str, tuple[str, ...]] = Field(default_factory=dict)

    def card(self, cid: str) -> Card:
        return find_by_id(self.cards, cid)

    def holder(self, cid: str) -> str | None:
        """The player whose hand holds the card, if any [SW-1.5]."""
        return next((player for player, hand in self.hands.items() if cid in hand), None)


def _names(keys: Any) -> str:
    return ", ".join(str(k) for k in keys)


def cross_problems(data: Mapping[str, Any]) -> list[str]:
    """What field validation cannot see: duplicate ids, owners and hands naming players or cards that do not
    exist, a card in two hands or both in a hand and at a mission [SW-1.5], a tactic or ability without an
    effect [SW-1.6].

    It runs on the raw mapping, before validation, so every value may be of any type: what is not of the
    expected type is skipped here and reported by validation with its path.
    """
    problems = duplicate_ids(data, ("cards",))
    players: dict[Any, Any] = data["players"] if isinstance(data.get("players"), dict) else {}
    cards: list[Any] = data["cards"] if isinstance(data.get("cards"), list) else []
    ids: dict[str, int] = {}
    for i, card in enumerate(cards):
        if not isinstance(card, dict):
            continue
        cid = card.get("id")
        if isinstance(cid, str):
            ids.setdefault(cid, i)
        owner = card.get("owner")
        if isinstance(owner, str) and players and owner not in players:
            problems.append(f"cards[{i}].owner: {owner!r} is not a player ({_names(players)})")
        problems += _effect_problems(i, card)
    turn = data.get("turn")
    side = turn.get("side") if isinstance(turn, dict) else None
    if isinstance(side, str) and players and side not in players:
        problems.append(f"turn.side: {side!r} is not a player ({_names(players)}) [SW-8.1]")
    hands: dict[Any, Any] = data["hands"] if isinstance(data.get("hands"), dict) else {}
    held: dict[str, Any] = {}
    for player, hand in hands.items():
        if players and player not in players:
            problems.append(f"hands.{player}: {player!r} is not a player ({_names(players)})")
        for j, cid in enumerate(hand if isinstance(hand, list) else []):
            if not isinstance(cid, str):
                continue  # validation says it must be a card id, with its path
            if cid not in ids:
                problems.append(f"hands.{player}[{j}]: no card has the id {cid!r}")
            elif cid in held:
                problems.append(f"hands.{player}[{j}]: {cid!r} is already in {held[cid]}'s hand")
            else:
                held[cid] = player
                card = cards[ids[cid]]
                owner = card.get("owner")
                if owner != player:
                    problems.append(f"hands.{player}[{j}]: {cid!r} belongs to {owner!r}")
                mission = card.get("mission")
                if mission is not None:
                    problems.append(f"hands.{player}[{j}]: {cid!r} is at mission {mission!r}: a card is in a hand "
                                    "or in play at a mission, not both [SW-1.5]")
    return problems


def _effect_problems(i: int, card: dict[Any, Any]) -> list[str]:
    """A tactic, or a card with an activated ability (a timing with no ranged text to time, or a cost of its
    own), must say what it does [SW-1.6]: without an effect it could be played or used to no end."""
    if card.get("effect") is not None:
        return []
    kind = card.get("type")
    if kind == "tactic":
        what = "a tactic"
    elif card.get("cost") is not None:
        what = "an activated ability (the card gives its cost)"
    elif card.get("timing") is not None and card.get("ranged") is None:
        what = "an activated ability (the card gives its timing)"
    else:
        return []
    return [f"cards[{i}].effect: is required for {what}: add N to accuracy, speed or damage [SW-1.6]"]
