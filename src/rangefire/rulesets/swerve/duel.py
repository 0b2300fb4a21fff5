"""swerve duels: a ranged combat followed by the next, turn by turn, until a card is destroyed [SW-5.3] or the
turn limit.

Each combat is begun in its owner's turn by the card named for that side against the other's [SW-2.1, SW-2.2]
(the attacker and the defender as SW-2 has them: the card that begins it attacks), played by both sides at their
best [SW-6.2], then revealed [SW-4.1] and applied by the game's own ``apply``. What carries over is what the game
keeps: damage counters [SW-5.3]; swerved cards, which stay swerved until their owner's next turn starts [SW-5.3,
SW-8.1]; tactics played, discarded from the hand [SW-1.5]; and the revealed card, which stays on top of its deck
[SW-4.2] so that the next reveal of that deck shows it again. A combat the rules refuse (a card with no text that
begins ranged combat [SW-2.1], a target of a type it may not target [SW-2.2], a launcher still swerved [SW-2.1])
leaves the battle as it is.

The only chance in a combat is the reveal: where a deck's order is unknown its top card is any card left, each
equally likely [SW-6.1]. :func:`exchanges` weighs each combat bonus exactly; :func:`sampled_exchanges` draws the top
card for every trial (numpy) and plays each drawn bonus through the game's own ``resolve``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, TypeVar

from rangefire.core import Attack, Resolution, ScriptedSource
from rangefire.rulesets.swerve import CombatPlan, Swerve, SwerveOutcome
from rangefire.rulesets.swerve.combat import not_in_play
from rangefire.rulesets.swerve.scenario import Battle, Card, Turn

if TYPE_CHECKING:
    import numpy as np

W = TypeVar("W", Fraction, int)


def battle_key(battle: Battle) -> str:
    """A key equal for two battles only where they are equal, for a duel to merge the battles it reaches (a swerve
    battle holds mappings, the players and the hands, so it is not hashable itself; they are compared as mappings
    are, whatever the order of their keys)."""
    return json.dumps(battle.model_dump(mode="json"), sort_keys=True)


def state_key(battle: Battle) -> str:
    """A key equal for two battles a duel cannot tell apart: everything but the turn's number, which no combat
    and no end of turn reads [SW-8.1] (only the player whose turn it is)."""
    data = battle.model_dump(mode="json")
    if data.get("turn"):
        data["turn"].pop("number", None)
    return json.dumps(data, sort_keys=True)


def merge(branches: Iterable[tuple[W, Battle]]) -> list[tuple[W, Battle]]:
    """Equal battles merged, their weights added, in the order each first came."""
    out: dict[str, tuple[W, Battle]] = {}
    for weight, battle in branches:
        key = battle_key(battle)
        out[key] = (out[key][0] + weight, battle) if key in out else (weight, battle)
    return list(out.values())


def _plan(rules: Swerve, battle: Battle, attack: Attack) -> CombatPlan | None:
    plan = rules.check(battle, attack).plan
    if plan is None:
        return None
    assert isinstance(plan, CombatPlan) and plan.combat is not None
    return plan


def exchanges(rules: Swerve, battle: Battle, attack: Attack) -> list[tuple[Fraction, Battle]]:
    """Every battle this combat can leave behind, with its exact probability; equal battles merged; the
    probabilities sum to 1. Stage 1 is played by both sides at their best [SW-6.2] (no line is chosen for them:
    the duel asks what the rules' best play comes to); each combat bonus the reveal may show [SW-4.1, SW-6.1]
    decides the winner [SW-4.3] and the damage [SW-5.1, SW-5.2]. A refused combat leaves the battle as it is."""
    plan = _plan(rules, battle, attack)
    if plan is None:
        return [(Fraction(1), battle)]
    combat = plan.combat
    assert combat is not None
    start = combat.start()
    combat.require_searchable(start)
    final, _, _, _ = combat.play(start, combat.best_line(start))
    spent = tuple(sorted(final.spent))
    toughness = battle.options.toughness(combat.target)  # a card printing none: the battle's option [SW-5.3]
    branches = []
    for bonus, p in combat.bonus().probabilities().items():
        wins = combat.attacker_wins(final, bonus)
        damage = combat.damage_dealt(final, wins)
        outcome = SwerveOutcome(attacker_wins=wins, damage=damage, bonus=bonus, accuracy=final.accuracy + bonus,
                                speed=final.speed, destroyed=wins and combat.target.counters + damage >= toughness,
                                spent=spent)
        branches.append((p, rules.apply(battle, Resolution(plan, (), {}, outcome))))
    return merge(branches)


def sampled_exchanges(rules: Swerve, battle: Battle, attack: Attack, n: int, rng: np.random.Generator,
                      ) -> list[tuple[int, Battle]]:
    """``n`` trials of this combat: the top card drawn for each (any card left in a deck of unknown order, each
    equally likely [SW-6.1]; the top card itself where the order is known or a card was revealed [SW-4.2]), each
    drawn bonus played through the game's own ``resolve`` (best play [SW-6.2]) and ``apply``; counted by the
    battle left behind. A refused combat leaves all ``n`` where they were."""
    import numpy as np

    plan = _plan(rules, battle, attack)
    if plan is None or n == 0:
        return [(n, battle)]
    combat = plan.combat
    assert combat is not None
    options = combat.bonus_options()
    if options:
        drawn = np.asarray(options, dtype=np.int64)[rng.integers(0, len(options), size=n)]
        values, counts = np.unique(drawn, return_counts=True)
        draws = list(zip(values.tolist(), counts.tolist(), strict=True))
    else:
        draws = [(combat.known_bonus(), n)]
    branches = []
    for bonus, count in draws:
        resolution = rules.resolve(plan, ScriptedSource([bonus]))
        branches.append((count, rules.apply(battle, resolution)))
    return merge(branches)


def left(battle: Battle, uid: str) -> int:
    """What is left of a card: its toughness less its damage counters (a card printing none has the battle's
    option, 1 by the rules), 0 once it is destroyed and gone [SW-5.3]."""
    for card in battle.cards:
        if card.id == uid:
            return battle.options.toughness(card) - card.counters
    return 0


def begin(rules: Swerve, battle: Battle, uid: str) -> Battle:
    """The battle as a duel begins with ``uid`` to begin combat, in its owner's turn [SW-8.1]: a battle recording
    no turn is taken to be at turn 1 of that player; one recording another player's turn has it passed on
    (:func:`pass_to`)."""
    owner = battle.card(uid).owner
    if battle.turn is None:
        return battle.model_copy(update={"turn": Turn(number=1, side=owner)})
    return pass_to(rules, battle, uid)


def pass_to(rules: Swerve, battle: Battle, uid: str) -> Battle:
    """The battle with the turn passed on until it is ``uid``'s owner's: each player's turn ends in the order the
    players appear, and each player's swerved cards are unswerved as their turn starts [SW-8.1]."""
    owner = battle.card(uid).owner
    for _ in range(len(rules.sides(battle)) + 1):
        if rules.side_to_act(battle) == owner:
            return battle
        battle = rules.end_turn(battle)[0]
    raise AssertionError(f"the turn never passes to {owner}")


# -- the duel's work, bounded before it is done -----------------------------------------------------------------
def bounds(rules: Swerve, battle: Battle, attack: Attack) -> tuple[int, int]:
    """The target's share of the duel's states while it stands, and the most battles one combat against it can
    leave.

    A combat's only chance is the reveal [SW-4.1]: stage 1 is played at both sides' best [SW-6.2], and a deck of
    unknown order shows any bonus left once [SW-6.1], then the card revealed stays on top and shows again
    [SW-4.2]. So the duel is a path for each pair of first reveals (as many as the distinct bonuses of each deck,
    one where its top card is known), and along a path a state comes back, or else something moves on for good:
    damage counters added [SW-5.3] (one short of the toughness at most, while the card stands), a tactic played
    and discarded [SW-1.5], a first reveal. Between two such steps only swerved cards change: those a combat may
    swerve [SW-2.5, SW-3.4, SW-1.6] (the card, which pays "swerve this" and may be swerved for its speed, and its
    player's abilities usable in ranged combat at that cost [SW-1.5, SW-3.5]), and of one player only in each
    state, the other's being unswerved as its turn starts [SW-8.1]. The states are then at most the pairs of
    reveals, times the steps (at most 3 + a's + b's, within (2 + a's) times (2 + b's)), times twice the swerved
    sets of the player that has more, in each half-turn: each card's share is its reveals times 2 + its steps,
    the swerved sets with the player that has more. What the battle begins with (cards swerved already, a turn
    not recorded) lasts at most until each player's turn has started, one combat in: one state more of each
    card's (the product grows by more: the start, and one combat's results). One combat leaves as many battles
    as the bonuses the attacker's deck may show, one where its top card is known."""
    if attack.target is None:
        raise ValueError("a duel's attack names its target")
    firer, target = battle.card(attack.attacker), battle.card(attack.target)
    hits = _may_begin(rules, battle, attack)
    back = _may_begin(rules, battle, Attack(target.id, firer.id))
    mine, theirs = _shares(battle, target, firer, hits, back), _shares(battle, firer, target, back, hits)
    # the smaller of the two bounds, the same for both cards (each card's call weighs the two alike)
    way = 0 if mine[0] * theirs[0] <= mine[1] * theirs[1] else 1
    return mine[way] + 1, _reveals(battle, firer.owner) if hits else 1


def _shares(battle: Battle, card: Card, other: Card, hit: bool, fires: bool) -> tuple[int, int]:
    """A card's share of the duel's states, counted field by field (its counters, its player's tactics, reveals
    and swerved cards), and along the paths (its reveals times 2 + its steps, swerved cards); ``hit``: whether the
    other card may ever begin combat against it, ``fires``: whether it may against the other."""
    counters = steps = 0
    if hit:
        # a total damage below 0 deals none [SW-5.1]: counters are only ever added [SW-5.3]
        counters = steps = battle.options.toughness(card) - card.counters - 1
    tactics = sum(1 for c in _usable(battle, card.owner) if c.type == "tactic") if hit or fires else 0
    mine, theirs = _swerving(battle, card, hit or fires), _swerving(battle, other, hit or fires)
    swerved = 2 ** mine if (mine, card.owner) > (theirs, other.owner) else 1
    reveals = _reveals(battle, card.owner) if fires else 1
    first = reveals + 1 if reveals > 1 else 1  # none revealed yet, then any of them
    return ((counters + 1) * 2 ** tactics * first * swerved, reveals * (2 + steps + tactics) * swerved)


def _reveals(battle: Battle, player: str) -> int:
    """The bonuses a player's first reveal may show: any bonus in a deck of unknown order, none revealed yet
    [SW-6.1]; else the one on top [SW-4.2]."""
    deck = battle.players.get(player)
    if deck is None or deck.deck_order != "unknown" or not deck.deck or deck.top_revealed is not None:
        return 1
    return len(set(deck.deck))


def _swerving(battle: Battle, card: Card, fights: bool) -> int:
    """How many of the card's player's cards a combat of the duel may swerve: the card, and its player's
    abilities at the cost "swerve this" [SW-1.6, SW-2.5, SW-3.4]; none where neither card fights."""
    if not fights:
        return 0
    return 1 + sum(1 for c in _usable(battle, card.owner)
                   if c.type != "tactic" and c.ability_cost == "swerve-self" and c.id != card.id)


def _may_begin(rules: Swerve, battle: Battle, attack: Attack) -> bool:
    """Whether the card may ever begin this combat in a duel: checked unswerved in its player's turn (what the
    turn's passing gives it [SW-8.1]), so that whatever refuses it then refuses it for good (a card with no ranged
    text, in a hand, or a target of a type it may not target [SW-1.5, SW-2.1, SW-2.2])."""
    launcher = battle.card(attack.attacker)
    cards = tuple(c.model_copy(update={"swerved": False}) if c.id == launcher.id else c for c in battle.cards)
    probe = battle.model_copy(update={"cards": cards, "turn": Turn(side=launcher.owner)})
    return rules.check(probe, attack).plan is not None


def _usable(battle: Battle, player: str) -> list[Card]:
    """The cards a player may play or use in a ranged combat: its tactics in hand and its abilities in play, of a
    timing usable there [SW-1.5, SW-3.5]."""
    usable = battle.options.usable_timings
    hand = battle.hands.get(player, ())
    return [c for c in battle.cards if c.owner == player and c.effect is not None and c.timing in usable
            and ((c.type == "tactic" and c.id in hand) or (c.type != "tactic" and not_in_play(c, battle.holder(c.id))
                                                            is None))]


__all__ = ["battle_key", "begin", "bounds", "exchanges", "left", "pass_to", "sampled_exchanges", "state_key"]
