"""What a player of the card game may see [SW-1.4]: its own hand, and of every other hand only its size. A card
in another player's hand is left out of the battle that player is shown, so that nothing worked out on it (the
units, a check, the odds, the lines of play, the advice) can name that card; a spectator sees no hand."""

from __future__ import annotations

from collections.abc import Collection

from rangefire.rulesets.swerve.scenario import Battle


def seen_by(battle: Battle, side: str | None, revealed: Collection[str] = ()) -> Battle:
    """The battle as ``side`` (a player; None for a spectator) may know it: every hand but its own left out,
    with the cards those hands hold [SW-1.4], but for a card ``revealed`` names (an action of a line of play
    that plays it from its hand, ``defender:play:smoke-screen``: shown as it is played, SW-3.5)."""
    shown = {text.rpartition(":")[2] for text in revealed}
    hidden = {cid for player, hand in battle.hands.items() if player != side for cid in hand if cid not in shown}
    if not hidden:
        return battle
    cards = tuple(card for card in battle.cards if card.id not in hidden)
    hands = {player: tuple(c for c in hand if c not in hidden) for player, hand in battle.hands.items()}
    hands = {player: hand for player, hand in hands.items() if player == side or hand}
    return battle.model_copy(update={"cards": cards, "hands": hands})


def kept_from(battle: Battle, side: str | None) -> dict[str, int]:
    """The size of every hand ``side`` may not see, by its player [SW-1.4]."""
    return {player: len(hand) for player, hand in battle.hands.items() if player != side}


__all__ = ["kept_from", "seen_by"]
