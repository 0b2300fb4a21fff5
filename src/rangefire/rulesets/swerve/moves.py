"""swerve's moves [SW-9.1]: in a player's turn, one of its cards in play goes to another mission, keeping its
swerved state and its damage counters. Nothing is measured: a card is at a mission or it is not.

The battle names no missions of its own: a mission is known by the cards at it. So "another mission" is one at
which some other card in play stands; a name no card in play stands at is refused (a misspelt mission would
otherwise begin a new one unseen).
"""

from __future__ import annotations

from rangefire.core import LogLine, RangefireError, Refusal
from rangefire.core.moves import Move, MoveCheck
from rangefire.rulesets.swerve.combat import not_in_play
from rangefire.rulesets.swerve.scenario import Battle, Card


def missions(battle: Battle) -> list[str]:
    """The missions of the battle: those at which a card in play stands, in the order the cards list them
    [SW-1.1, SW-1.5]."""
    return list(dict.fromkeys(c.mission for c in battle.cards
                              if c.mission is not None and battle.holder(c.id) is None))


def check_move(battle: Battle, move: Move) -> MoveCheck:
    """A card moved to another mission [SW-9.1]: the battle after it, or the refusals. A move that names no
    mission, or a position, facing, formation or run (a card has none), is bad input (:class:`RangefireError`)."""
    card = battle.card(move.unit)
    _only_a_mission(move)
    to = move.mission
    assert to is not None
    refusals = []
    turn = battle.turn.side if battle.turn is not None else None
    if turn is not None and card.owner != turn:
        refusals.append(Refusal("SW-9.1", f"it is {turn}'s turn; {card.id} is {card.owner}'s card: a player moves "
                                          "only its own cards, in its turn"))
    away = not_in_play(card, battle.holder(card.id))
    if away is not None:
        refusals.append(Refusal("SW-1.5", f"{away}: only a card in play moves to another mission [SW-9.1]"))
    elif to == card.mission:
        refusals.append(Refusal("SW-9.1", f"{card.id} is at {to} already: a move takes it to another mission"))
    elif to not in missions(battle):
        known = ", ".join(m for m in missions(battle) if m != card.mission) or "none"
        refusals.append(Refusal("SW-9.1", f"no card in play is at a mission {to!r}: {card.id} may move to another "
                                          f"mission of the battle ({known})"))
    if refusals:
        return MoveCheck(card.id, refusals=tuple(refusals))
    log = []
    if turn is None:
        log.append(LogLine("SW-9.2", f"no turn is recorded: nothing limits whose card moves ({card.id} is "
                                     f"{card.owner}'s)"))
    log.append(LogLine("SW-9.1", f"{card.owner} moves {card.id} from {card.mission} to {to}; it keeps "
                                 f"{_kept(card)}"))
    cards = tuple(c.model_copy(update={"mission": to}) if c.id == card.id else c for c in battle.cards)
    return MoveCheck(card.id, after=battle.model_copy(update={"cards": cards}), log=tuple(log))


def _kept(card: Card) -> str:
    counters = f"{card.counters} damage counter{'' if card.counters == 1 else 's'}"
    return f"its swerved state ({'swerved' if card.swerved else 'unswerved'}) and {counters}"


def _only_a_mission(move: Move) -> None:
    others = [name for name, given in (("to", move.to), ("by", move.by), ("facing", move.facing),
                                       ("turn", move.turn), ("formation", move.formation)) if given is not None]
    if move.run:
        others.append("run")
    if others:
        raise RangefireError(f"{others[0]}: a swerve move takes a card to another mission and nothing else [SW-9.1]")
    if not move.mission:
        raise RangefireError("mission: a swerve move names the mission the card moves to [SW-9.1]")


__all__ = ["check_move", "missions"]
