"""swerve duels: a ranged combat followed by the next, each player's card beginning combat in its owner's turn
[SW-2.1, SW-8.1], until a card is destroyed [SW-5.3] or the turn limit. The exact transitions and the whole chain
against a brute force sharing none of their code (every card the reveal may show, fed to the game's own
``resolve`` through the scripted dice source and applied by its own ``apply``, the turn ended by its own clauses,
recursively); the Monte Carlo (the top card drawn for each trial) against the exact chain by chi-square."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from scipy.stats import chisquare

from rangefire.analysis.duel import duel, sample_duel
from rangefire.core import Attack, ScriptedSource
from rangefire.rulesets import battle_from_mapping, find_ruleset, load_battle
from rangefire.rulesets.swerve import duel as swerve_duel
from tests.duel_oracle import assert_chain_is, assert_sample_agrees, marginals, nonzero

SW = find_ruleset("swerve")


def cards(**extra: Any) -> list[dict[str, Any]]:
    """Jason's buggy and Tyler's truck, each able to begin ranged combat against a vehicle; a tactic in each hand."""
    return [
        {"id": "buggy", "owner": "jason", "type": "vehicle", "speed": 20, "toughness": 2, "mission": "canyon",
         "timing": "main", "ranged": {"accuracy": 25, "damage": 1}, **extra.get("buggy", {})},
        {"id": "truck", "owner": "tyler", "type": "vehicle", "speed": 15, "toughness": 2, "mission": "canyon",
         "timing": "main", "ranged": {"accuracy": 20, "damage": 1}, **extra.get("truck", {})},
        {"id": "smoke", "owner": "tyler", "type": "tactic", "timing": "ranged-combat", "effect": {"speed": 10}},
        {"id": "nitro", "owner": "jason", "type": "tactic", "timing": "combat", "effect": {"accuracy": 5}},
    ]


def game(jason: Any = (0, 5, 10, 15, 30), tyler: Any = (0, 10, 20, 25), order: str = "unknown", **extra: Any) -> Any:
    data = {"ruleset": "swerve",
            "players": {"jason": {"deck": list(jason), "deck_order": order},
                        "tyler": {"deck": list(tyler), "deck_order": order}},
            "cards": cards(**extra), "hands": {"jason": ["nitro"], "tyler": ["smoke"]},
            "turn": {"number": 1, "side": "jason"}}
    return battle_from_mapping(data)[1]


def key(b: Any) -> str:
    return json.dumps(b.model_dump(mode="json"), sort_keys=True)


# -- the brute force ------------------------------------------------------------------------------------------
def brute_exchanges(b: Any, attack: Attack) -> dict[str, tuple[Fraction, Any]]:
    """Every top card the reveal may show, each card of the deck equally likely where its order is unknown and no
    card has been revealed on it [SW-6.1, SW-4.2], fed to the game's own resolve by the scripted source (best play
    in stage 1 [SW-6.2]) and applied by its own apply; a refused combat leaves the battle as it is."""
    checked = SW.check(b, attack)
    if not checked.is_legal:
        return {key(b): (Fraction(1), b)}
    deck = b.players[b.card(attack.attacker).owner]
    shown = list(deck.deck) if deck.deck_order == "unknown" and deck.top_revealed is None and deck.deck else [None]
    out: dict[str, tuple[Fraction, Any]] = {}
    for card in shown:
        after = SW.apply(b, SW.resolve(checked.plan, ScriptedSource([] if card is None else [card])))
        p, _ = out.get(key(after), (Fraction(0), after))
        out[key(after)] = (p + Fraction(1, len(shown)), after)
    return out


def left(b: Any, cid: str) -> int:
    """Toughness less damage; a card printing none has the option's [SW-5.3]."""
    return next(((b.options.unprinted_toughness if c.toughness is None else c.toughness) - c.counters
                 for c in b.cards if c.id == cid), 0)


def brute_duel(start: Any, a: str, b: str, turns: int) -> dict[tuple[str, int, int, int], Fraction]:
    """(winner, turns taken, what is left of a, of b): a begins combat in its owner's turn, the turn ends [SW-8.1],
    b begins combat in its owner's, the turn ends; a destroyed card is gone [SW-5.3] and the duel ends."""
    memo: dict[tuple[str, int, str], dict[tuple[str, int, int, int], Fraction]] = {}

    def from_(state: Any, turn: int, shooter: str) -> dict[tuple[str, int, int, int], Fraction]:
        found = memo.get((key(state), turn, shooter))
        if found is not None:
            return found
        target, role = (b, "a") if shooter == a else (a, "b")
        out: dict[tuple[str, int, int, int], Fraction] = {}
        for p, after in brute_exchanges(state, Attack(shooter, target)).values():
            if all(c.id != target for c in after.cards):
                ends = {(role, turn, left(after, a), left(after, b)): Fraction(1)}
            elif shooter == b and turn == turns:
                ends = {("neither", turn, left(after, a), left(after, b)): Fraction(1)}
            else:
                passed, _ = SW.end_turn(after)
                ends = from_(passed, turn + (shooter == b), target)
            for k, q in ends.items():
                out[k] = out.get(k, Fraction(0)) + p * q
        memo[(key(state), turn, shooter)] = out
        return out

    return from_(start, 1, a)




# -- one combat -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("order", ["unknown", "known"])
def test_exchanges_equal_every_reveal_through_resolve_and_apply_sw_4_sw_6_1(order: str):
    """The exact transitions of one combat and of the next (the other way round, in Tyler's turn) are the brute
    force's, battle for battle, summing to 1: damage [SW-5.1], swerved cards [SW-5.3], the tactic played
    discarded [SW-1.5] and the revealed card left on top [SW-4.2]."""
    first = game(order=order)
    exact = swerve_duel.exchanges(SW, first, Attack("buggy", "truck"))
    assert sum(q for q, _ in exact) == 1
    assert {key(s): q for q, s in exact} == {k: q for k, (q, _) in
                                            brute_exchanges(first, Attack("buggy", "truck")).items()}
    seen = 0
    for _, after in exact:
        if all(c.id != "truck" for c in after.cards):
            continue
        nxt = SW.end_turn(after)[0]
        exact = swerve_duel.exchanges(SW, nxt, Attack("truck", "buggy"))
        assert sum(q for q, _ in exact) == 1
        assert {key(s): q for q, s in exact} == {k: q for k, (q, _) in
                                                brute_exchanges(nxt, Attack("truck", "buggy")).items()}
        seen += 1
    assert seen


def test_what_carries_over_to_the_next_combat_sw_1_5_sw_4_2_sw_8_1():
    """After Jason's combat: the buggy is swerved (it paid to begin [SW-2.5]), the truck too (the defender swerved
    it [SW-3.4]) and Tyler's smoke is spent from his hand [SW-1.5]; the top card stays revealed [SW-4.2]. Tyler's
    turn unswerves only his cards [SW-8.1], so the buggy cannot be swerved for speed in the next combat."""
    first = game()
    after = [s for _, s in swerve_duel.exchanges(SW, first, Attack("buggy", "truck"))]
    assert len(after) == 5  # one battle for each card the reveal may show: the deck remembers it [SW-4.2]
    assert sorted(s.players["jason"].top_revealed for s in after) == [0, 5, 10, 15, 30]
    assert all(s.card("buggy").swerved and s.card("truck").swerved for s in after)
    assert all(s.hands["tyler"] == () for s in after)
    passed = SW.duel_pass(after[0], "truck")
    assert passed.turn.side == "tyler" and not passed.card("truck").swerved and passed.card("buggy").swerved
    back = SW.duel_pass(passed, "buggy")
    assert back.turn.number == 2 and back.turn.side == "jason" and not back.card("buggy").swerved
    # the revealed card stays on top: Jason's next reveal is that card, one branch [SW-4.2]
    again = swerve_duel.exchanges(SW, back, Attack("buggy", "truck"))
    assert len(again) == 1 and again[0][0] == 1


def test_a_duel_begins_in_the_first_shooter_s_turn_sw_8_1():
    """No turn recorded: the duel begins at turn 1 of the first card's owner; a battle at Tyler's turn has it
    passed to Jason first (turn 2, Jason's swerved cards unswerved)."""
    b = battle_from_mapping({**game().model_dump(mode="json"), "turn": None})[1]
    assert SW.duel_begin(b, "truck").turn.model_dump() == {"number": 1, "side": "tyler"}
    at_tyler = game(buggy={"swerved": True}).model_copy(update={"turn": game().turn.model_copy(
        update={"side": "tyler"})})
    start = SW.duel_begin(at_tyler, "buggy")
    assert start.turn.model_dump() == {"number": 2, "side": "jason"} and not start.card("buggy").swerved
    assert SW.duel_begin(start, "buggy") == start
    # a swerve battle holds mappings: a duel merges its battles by a key equal only for equal battles
    assert SW.duel_key(start) == SW.duel_key(start.model_copy()) != SW.duel_key(b)


# -- the whole chain --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("order", ["unknown", "known"])
def test_the_exact_chain_equals_the_brute_force_sw_8_1(order: str):
    """Four turns of combats both ways: the winner, the turns taken and what is left of each card, exactly as
    the brute force finds them, each summing to 1."""
    b = game(order=order)
    result = duel(SW, b, "buggy", "truck", turns=4)
    brute = brute_duel(b, "buggy", "truck", 4)
    assert_chain_is(result, brute)


def test_the_rules_example_duel_nobody_is_hurt_sw_7_1():
    """SW-7.1 played on: every turn the defender swerves the road warrior (40 against 35) and wins; the road
    warrior cannot answer, having no text that begins ranged combat [SW-2.1]; the launcher, swerved to begin,
    is unswerved at the start of each of Jason's turns [SW-8.1] and fires again."""
    sw, b = load_battle("src/rangefire/examples/sawblade.yaml")
    result = duel(sw, b, "sawblade-launcher", "road-warrior", turns=3)
    assert result.winner == {"a": 0, "b": 0, "both": 0, "neither": 1} and result.turns == {3: 1}
    assert result.left == {"a": {1: 1}, "b": {2: 1}}
    assert [r.clause for r in result.refusals["b"]] == ["SW-2.1"]
    assert result.refusals["a"] == ()


def test_a_target_the_card_may_not_target_is_refused_sw_2_2():
    """The truck may target only units: its combat against the buggy (a vehicle) is refused [SW-2.2] and leaves
    the battle as it is, so only the buggy fires."""
    b = game(truck={"ranged": {"accuracy": 20, "damage": 1, "targets": ["unit"]}})
    after = SW.duel_pass(b, "truck")
    assert [r.clause for r in SW.check(after, Attack("truck", "buggy")).refusals] == ["SW-2.2"]
    assert swerve_duel.exchanges(SW, after, Attack("truck", "buggy")) == [(1, after)]
    result = duel(SW, b, "buggy", "truck", turns=3)
    assert result.winner["b"] == 0 and [r.clause for r in result.refusals["b"]] == ["SW-2.2"]


def test_the_monte_carlo_agrees_with_the_exact_chain_sw_6_1():
    """The top card drawn for each of 20,000 duels of four turns (each drawn bonus played through resolve): the
    winner, the turns and what is left of each agree with the exact chain (chi-square at a fixed seed)."""
    b = game()
    exact = duel(SW, b, "buggy", "truck", turns=4)
    n = 20_000
    sampled = sample_duel(SW, b, "buggy", "truck", turns=4, samples=n, seed=7)
    assert_sample_agrees(exact, sampled, n)


def test_sampled_exchanges_draw_the_top_card_sw_6_1():
    """Each card of a deck of unknown order comes up about equally often; the counts sum to the trials."""
    sampled = swerve_duel.sampled_exchanges(SW, game(), Attack("buggy", "truck"), 5000, np.random.default_rng(3))
    assert sum(c for c, _ in sampled) == 5000 and len(sampled) == 5
    assert chisquare([c for c, _ in sampled]).pvalue > 0.001


def test_house_rules_carry_through_the_duel_sw_4_3_sw_5_3():
    """Ties to the attacker [SW-4.3] and a truck printing no toughness, destroyed by 3 damage by a house rule
    [SW-5.3]: the exact chain equals the brute force, and the truck can be left with 2 (1 destroys it by the
    rules)."""
    b = game(truck={"toughness": None})
    b = battle_from_mapping({**b.model_dump(mode="json", exclude_none=True),
                             "options": {"attacker_wins_ties": True, "unprinted_toughness": 3}})[1]
    result = duel(SW, b, "buggy", "truck", turns=4)
    brute = brute_duel(b, "buggy", "truck", 4)
    assert nonzero(result.winner) == marginals(brute)["winner"] and nonzero(result.turns) == marginals(brute)["turns"]
    assert nonzero(result.left["b"]) == marginals(brute)["b"]
    assert 2 in nonzero(result.left["b"])
